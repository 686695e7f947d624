"""The search from every screen (/): it finds the matter's pages, the runs, their flags and the pairs in a
real database (the ingested demo matter, a run verified by the real verifier, a captured pair), and
Enter opens each in its room at that thing; in a text box / types a slash instead.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList, Static, TextArea

from drafting.flags import flags_in_run
from drafting.store import RunStore
from tests.conftest import make_backend
from tests.support.corrections_data import store as store_pair
from tests.support.drafting_screen_setup import demo_db, open_run  # noqa: F401 (demo_db: the db fixture)
from tests.test_workstation_drafting import app_with, open_drafting, planted_run, settle
from tui.app import ChambersApp
from tui.corrections.screen import CorrectionsScreen
from tui.evidence.screen import EvidenceScreen
from tui.search.hits import Hit, search_all
from tui.search.screen import SearchScreen
from tui.widgets.evidence_views import ReadingScreen
from tui.widgets.screens import HelpScreen
from workspace.config import Config, Policy

CONFIG = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))


def planted(db: Path) -> tuple[int, int]:
    """The planted run (its $52,000 flagged) and a pair whose final says "blast freezer"."""
    run_id = planted_run(db)
    return run_id, store_pair(db).pair_id


async def searched(pilot: Any, text: str) -> SearchScreen:
    """/ then ``text`` typed, and the hits the screen's worker found shown."""
    await pilot.press("slash")
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen), screen
    await pilot.press(*text)
    for _ in range(200):
        await pilot.pause(0.05)
        await settle(screen)
        if screen.shown == text:
            break
    return screen


async def open_kind(pilot: Any, screen: SearchScreen, kind: str) -> Hit:
    """Down to the first hit of ``kind`` (the focus stays in the box), then Enter."""
    at = next(i for i, hit in enumerate(screen.hits) if hit.kind == kind)
    for _ in range(at):
        await pilot.press("down")
    assert screen.query_one("#search-results", OptionList).highlighted == at
    assert isinstance(pilot.app.focused, Input)
    await pilot.press("enter")
    for _ in range(3):
        await pilot.pause()
        await settle(pilot.app.screen)
    return screen.hits[at]


def test_each_kind_is_found_in_the_real_database(db: Path) -> None:
    run_id, pair_id = planted(db)
    flags = flags_in_run(RunStore(db).load(run_id))
    flagged = next(i for i, f in enumerate(flags) if "52,000" in f.text)

    money = search_all(db, "52,000", None)
    assert any(h.kind == "Run" and h.run_id == run_id for h in money), money
    assert any(h.kind == "Flag" and (h.run_id, h.flag_index) == (run_id, flagged) for h in money), money
    pairs = [h for h in search_all(db, "blast freezer", "harbor-point") if h.kind == "Pair"]
    assert [h.pair_id for h in pairs] == [pair_id], pairs
    pages = [h for h in search_all(db, "Cald", "harbor-point") if h.kind == "Source"]  # he is still typing
    assert pages and all(h.matter == "harbor-point" and h.page_id for h in pages)
    kinds = [h.kind for h in search_all(db, "calder", None)]
    assert kinds[:3] == ["Source", "Run", "Pair"], kinds  # in turns: each kind's best near the top
    assert search_all(db, "zzyzx-nowhere", None) == [] and search_all(db, "  ", None) == []


async def test_enter_opens_a_page_over_the_evidence_screen(db: Path) -> None:
    await asyncio.to_thread(planted, db)
    app = app_with(CONFIG, db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f12")  # from the evidence screen itself: / must not close it
        await settle(app.screen)
        await pilot.press("slash")  # its search box has the focus: there / is typed
        assert app.screen.query_one("#evidence-query", Input).value == "/"
        app.screen.query_one("#evidence-results").focus()
        screen = await searched(pilot, "deposition novem")
        assert "harbor-point's sources" in str(screen.query_one("#search-box").border_title)
        hit = await open_kind(pilot, screen, "Source")
        for _ in range(100):
            if isinstance(app.screen, ReadingScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, ReadingScreen) and isinstance(app.screen_stack[-2], EvidenceScreen)
        assert "Deposition" in hit.title
        assert "DEPOSITION OF MARCUS CALDER" in str(app.screen.query_one("#reading-body", Static).render())
        await pilot.press("escape")
        evidence = app.screen
        assert isinstance(evidence, EvidenceScreen)
        assert evidence.query_one("#evidence-query", Input).value == "deposition novem"


async def test_enter_opens_a_run_at_its_flag_and_a_pair_selected(db: Path) -> None:
    run_id, pair_id = await asyncio.to_thread(planted, db)
    other = await asyncio.to_thread(planted_run, db, "A second draft about nothing much.\n")
    app = app_with(CONFIG, db)
    async with app.run_test(size=(80, 24)) as pilot:
        drafting = await open_drafting(pilot)
        drafting.show_run(other)  # another run on show: the one found replaces it
        await settle(drafting)
        assert drafting.run_id == other
        drafting.query_one("#ws-flags").focus()  # out of the instructions box, where / types a slash
        screen = await searched(pilot, "52,000")
        hit = await open_kind(pilot, screen, "Flag")
        assert app.screen is drafting and drafting.run_id == run_id
        assert drafting.flag_pane.current == hit.flag_index
        assert "52,000" in drafting.flag_pane.flags[hit.flag_index or 0].text

        await pilot.press("f5")
        await settle(app.screen)
        assert isinstance(app.screen, CorrectionsScreen)
        screen = await searched(pilot, "blast")
        await open_kind(pilot, screen, "Pair")
        corrections = app.screen
        assert isinstance(corrections, CorrectionsScreen)
        selected = corrections.selected()
        assert selected is not None and selected.id == pair_id


async def test_a_slash_typed_in_the_draft_editor_is_a_slash(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(CONFIG, db)
    async with app.run_test(size=(80, 24)) as pilot:
        drafting = await open_run(pilot, run_id)
        instructions = drafting.query_one("#ws-instructions", TextArea)
        assert app.focused is not instructions
        instructions.focus()
        await pilot.press("slash")
        assert not isinstance(app.screen, SearchScreen) and "/" in instructions.text
        await pilot.press("ctrl+t")  # his text in the editor
        await pilot.pause()
        editor = drafting.workspace.editor
        assert app.focused is editor
        before = editor.text
        await pilot.press("slash", "x")
        assert not isinstance(app.screen, SearchScreen)
        assert editor.text.count("/x") == before.count("/x") + 1
        await pilot.press("f1")  # over a dialog the search does not open: its room is under it
        await pilot.press("slash")
        assert isinstance(app.screen, HelpScreen)


async def test_the_palette_lists_the_search(db: Path) -> None:
    app = app_with(CONFIG, db)
    async with app.run_test(size=(80, 24)):
        titles = [c.title for c in ChambersApp.get_system_commands(app, app.screen)]
        assert "Search matter, runs, flags and pairs" in titles


def test_search_screen_at_80x24(snap_compare: Any, db: Path) -> None:
    """The search over the drafting screen: a line a hit, every kind within the first screenful."""
    run_id, _ = planted(db)

    async def search_it(pilot: Any) -> None:
        drafting = await open_run(pilot, run_id)
        drafting.query_one("#ws-flags").focus()
        await searched(pilot, "calder")
        await pilot.pause()

    assert snap_compare(app_with(CONFIG, db), terminal_size=(80, 24), run_before=search_it)
