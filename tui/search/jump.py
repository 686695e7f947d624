"""Where a search hit opens: a page over the evidence screen, a run (at its flag) on the drafting
screen, a pair selected in the corrections browser; and which matter the search looks in.

Each room is opened with the app's own action for its F-key (the action is not run when the room is
on show already: run there, it would close it), so the room is built and wired as always; the room's
screen then goes to the thing found, at once or, for a screen opened just now, once it is mounted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from tui.corrections.screen import CorrectionsScreen
from tui.drafting.screen import DraftingScreen
from tui.evidence.screen import EvidenceScreen
from tui.search.hits import Hit

S = TypeVar("S", bound=Screen[Any])


def matter_on_show(app: App[Any]) -> str | None:
    """The matter of the drafting or evidence screen nearest the top, or None (no room has one open)."""
    for screen in reversed(app.screen_stack):
        if isinstance(screen, DraftingScreen) and screen.is_mounted and screen.pickers.matter:
            return screen.pickers.matter
        if isinstance(screen, EvidenceScreen) and screen.is_mounted and (matter := screen.matter()):
            return matter.name
    return None


async def open_hit(app: App[Any], hit: Hit | None) -> None:
    """Open ``hit`` in its room (nothing when the search was closed without one)."""
    if hit is None:
        return
    if hit.page_id is not None and hit.matter is not None:
        page_id, matter, words = hit.page_id, hit.matter, hit.words
        await _in_room(app, "evidence", EvidenceScreen, lambda s: s.read_found(matter, words, page_id))
    elif hit.run_id is not None:
        run_id, flag = hit.run_id, hit.flag_index
        await _in_room(app, "drafting", DraftingScreen, lambda s: s.show_run(run_id, flag))
    elif hit.pair_id is not None:
        pair_id = hit.pair_id
        await _in_room(app, "corrections", CorrectionsScreen, lambda s: s.select_pair(pair_id))


async def _in_room(app: App[Any], action: str, kind: type[S], then: Callable[[S], object]) -> None:
    if not isinstance(app.screen, kind):
        await app.run_action(action)
    screen = app.screen
    if not isinstance(screen, kind):
        return  # the room did not open (its action refused): it said why
    if screen.is_mounted:
        then(screen)
    else:
        app.call_after_refresh(then, screen)
