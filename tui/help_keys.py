"""What F1 lists, in the order he needs it: the keys of the screen on show, then those of the box with
the focus (the editor's motions while he edits), then the keys that work everywhere.

Each screen's keys come from its bindings' tooltips, so the list cannot drift from the keys; a key the
screen has switched off for now (Stop while nothing runs) is still listed, as the footer leaves it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

if TYPE_CHECKING:
    from tui.app import ChambersApp

Rows = list[tuple[str, str]]

FIRST_SCREEN_KEYS: Rows = [
    ("enter", "Send the prompt to the selected backend"),
    ("tab", "Move between the backend list and the prompt"),
    ("up/down", "In the backend list: choose where the prompt goes"),
]


def _rows(bindings: list[object]) -> Rows:
    return [(b.key, b.tooltip or b.description) for b in bindings if isinstance(b, Binding)]


def help_sections(app: ChambersApp) -> list[tuple[str, Rows]]:
    screen = app.screen
    first = screen is app.screen_stack[0]
    sections: list[tuple[str, Rows]] = []
    if first:
        own = FIRST_SCREEN_KEYS + _rows(
            [b for b in app.BINDINGS if getattr(b, "action", "") in _first_actions()]
        )
        sections.append(("This screen: the prompt and the backends", own))
    else:
        title = screen.sub_title or screen.SUB_TITLE or type(screen).__name__.removesuffix("Screen")
        sections.append((f"This screen: {title}", _rows(list(screen.BINDINGS))))
    focused = app.focused
    widget_keys = getattr(focused, "OWN_KEYS", None)
    if focused is not None and widget_keys is not None:
        sections.append(("While editing", _rows(list(focused.BINDINGS)) + list(widget_keys)))
    everywhere = [
        (
            key,
            "Back to the screen before (closes an open list first)"
            if key == "escape" and not first
            else text,
        )
        for key, text in _rows([b for b in app.BINDINGS if getattr(b, "action", "") not in _first_actions()])
    ]
    everywhere.append(("ctrl+p", "The command palette: every screen and action, found by typing its name"))
    sections.append(("Everywhere", everywhere))
    return sections


def _first_actions() -> frozenset[str]:
    from tui.app import FIRST_SCREEN_ACTIONS

    return FIRST_SCREEN_ACTIONS
