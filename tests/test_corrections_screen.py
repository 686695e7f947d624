"""The corrections browser (F5), driven with Pilot over real stored pairs; snapshots at 80x24 and 120x40."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, DataTable, Input, Static

from corrections.store import get_pair, list_pairs
from tests.conftest import make_backend
from tests.corrections_data import DRAFT, FINAL, store
from tui.app import ChambersApp, create_app
from tui.corrections_dialogs import ConfirmScreen, ExportScreen
from tui.corrections_screen import CorrectionsScreen
from workspace.config import Config, Policy


def seeded_app(home: Path) -> ChambersApp:
    db = home / "data" / "chambers.sqlite3"
    store(db, accepted_at="2026-11-02T10:00:00+00:00")
    store(db, model="qwen3.5-122b-a10b", task_type="summary", final=DRAFT, accepted_at="2026-11-03T10:00:00")
    store(db, model="qwen3.5-122b-a10b", final=FINAL + " Thank you.", accepted_at="2026-11-04T10:00:00")
    config = Config(
        file="config.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),)
    )
    return create_app(config, db, start_on_dashboard=False)


async def settle(pilot: Any) -> None:
    for _ in range(3):
        await asyncio.gather(*(w.wait() for w in pilot.app.workers), return_exceptions=True)
        await asyncio.gather(*(w.wait() for w in pilot.app.screen.workers), return_exceptions=True)
        await pilot.pause()


async def open_corrections(pilot: Any) -> CorrectionsScreen:
    await pilot.press("f5")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CorrectionsScreen)
    return screen


def redline_text(screen: CorrectionsScreen) -> str:
    return str(screen.query_one("#corrections-redline", Static).render())


async def test_browse_a_pair_as_a_redline_and_filter(isolated_home: Path) -> None:
    app = seeded_app(isolated_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_corrections(pilot)
        table = screen.query_one("#corrections-list", DataTable)
        assert table.row_count == 3 and [p.id for p in screen.pairs] == [3, 2, 1]
        table.focus()
        await pilot.press("down", "down")
        await settle(pilot)
        assert "completed six weeks late" in redline_text(screen)
        assert "Pair 1: +" in str(screen.query_one("#corrections-redline-scroll").border_title)
        screen.query_one("#corrections-min", Input).value = "1"
        screen.query_one("#corrections-min", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert [p.id for p in screen.pairs] == [3, 1]  # the unedited summary has edit ratio 0
        table.focus()
        await pilot.press("s")
        await settle(pilot)
        assert "qwen3.5-122b-a10b" in redline_text(screen) and "mean edit" in redline_text(screen)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, CorrectionsScreen)


async def test_exclude_and_delete_with_confirmation(isolated_home: Path) -> None:
    app = seeded_app(isolated_home)
    db = isolated_home / "data" / "chambers.sqlite3"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_corrections(pilot)
        screen.query_one("#corrections-list", DataTable).focus()
        await pilot.press("x")
        await settle(pilot)
        assert get_pair(db, 3).excluded and screen.pairs[0].excluded
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert len(list_pairs(db)) == 3
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert [p.id for p in list_pairs(db)] == [2, 1] and [p.id for p in screen.pairs] == [2, 1]


async def test_the_export_dialog_writes_the_file_and_shows_the_summary(
    isolated_home: Path, tmp_path: Path
) -> None:
    app = seeded_app(isolated_home)
    out = tmp_path / "exports" / "dpo.jsonl"
    async with app.run_test(size=(120, 40)) as pilot:
        await open_corrections(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        dialog.query_one("#export-format").value = "dpo"  # type: ignore[attr-defined]
        dialog.query_one("#export-out", Input).value = str(out)
        await pilot.pause()
        dialog.query_one("#export-run", Button).press()
        await settle(pilot)
        summary = str(dialog.query_one("#export-summary", Static).render())
        assert "Exported 2 of 3 pairs as 2 dpo rows" in summary and "accepted unedited" in summary
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert all(set(r) == {"prompt", "chosen", "rejected"} for r in rows)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_corrections_screen_snapshot(snap_compare: Any, isolated_home: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await open_corrections(pilot)
        pilot.app.screen.query_one("#corrections-list", DataTable).move_cursor(row=2)
        await settle(pilot)

    assert snap_compare(seeded_app(isolated_home), terminal_size=size, run_before=run_before)


async def test_help_on_the_corrections_screen_lists_its_keys_and_not_the_prompts(isolated_home: Path) -> None:
    from tui.screens import HelpScreen

    app = seeded_app(isolated_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_corrections(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.rows)
        assert "out of exports" in keys["x"] and "f5" in keys
        assert "ctrl+l" not in keys and "enter" not in keys  # the first screen's prompt keys do nothing here
