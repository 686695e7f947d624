"""The corrections browser (F5), driven with Pilot over real stored pairs; snapshots at 80x24 and 120x40."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, DataTable, Input, ProgressBar, Static

from corrections.store import get_pair, list_pairs
from tests.conftest import make_backend
from tests.support.corrections_data import DRAFT, FINAL, store
from tui.app import ChambersApp, create_app
from tui.corrections.dialogs import ConfirmScreen, ExportScreen
from tui.corrections.screen import CorrectionsScreen
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
    """Until the screen's loads have ended and what they started has ended too: on a loaded machine a
    worker may start only after the first rounds (a highlighted row loads its redline), so a fixed count
    of rounds can take a screenshot between two loads."""
    quiet = 0
    for _ in range(40):
        busy = [w for w in (*pilot.app.workers, *pilot.app.screen.workers) if not w.is_finished]
        await asyncio.gather(*(w.wait() for w in busy), return_exceptions=True)
        await pilot.pause()
        quiet = 0 if busy else quiet + 1
        if quiet >= 3:
            return


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
        assert "{+ completed six weeks+} late" in redline_text(screen)  # marked as F7 marks it
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
        assert "No adapters yet: `chambers train" in redline_text(screen)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, CorrectionsScreen)


async def test_a_status_line_too_long_for_80_columns_wraps_rather_than_lose_its_end(
    isolated_home: Path,
) -> None:
    app = seeded_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_corrections(pilot)
        screen.set_status(
            "Adapter 'drafter-20261203' trained; s shows it once `chambers eval` has scored it."
        )
        await settle(pilot)
        assert screen.query_one("#corrections-status").size.height == 2
        assert screen.query_one("#corrections-list").size.height > 10  # the list keeps the room it had


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
        bar = dialog.query_one("#export-progress", ProgressBar)
        assert not bar.display  # no export yet: no bar animating over nothing
        dialog.query_one("#export-format").value = "dpo"  # type: ignore[attr-defined]
        dialog.query_one("#export-out", Input).value = str(out)
        await pilot.pause()
        dialog.query_one("#export-run", Button).press()
        await settle(pilot)
        summary = str(dialog.query_one("#export-summary", Static).render())
        assert "Exported 2 of 3 pairs as 2 dpo rows" in summary and "accepted unedited" in summary
        assert bar.display and bar.percentage == 1  # finished, full, still
        assert not dialog.query_one("#export-run", Button).disabled
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert all(set(r) == {"prompt", "chosen", "rejected"} for r in rows)


@pytest.mark.parametrize("place", ["a file in the way", "a folder"])
async def test_a_failed_export_says_so_in_the_dialog_and_in_the_error_modal(
    isolated_home: Path, tmp_path: Path, place: str
) -> None:
    from tui.widgets.screens import ErrorScreen

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    folder = tmp_path / "exports"
    folder.mkdir()
    out, said = (
        (blocker / "sft.jsonl", f"{blocker} is a file, not a folder")
        if place == "a file in the way"
        else (folder, f"{folder} is a folder")
    )
    app = seeded_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_corrections(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        assert dialog.styles.background.a < 1  # a dialog: the screen below shows through
        dialog.query_one("#export-out", Input).value = str(out)
        await pilot.pause()
        dialog.query_one("#export-run", Button).press()
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen) and app.screen_stack[-2] is dialog
        assert app.screen.error_title == "The export file could not be written"
        assert said in app.screen.error_message and "Nothing was written" in app.screen.error_message
        await pilot.press("escape")
        assert app.screen is dialog
        summary = str(dialog.query_one("#export-summary", Static).render())
        assert summary.startswith("Not exported: ") and said in summary, summary
        assert not dialog.query_one("#export-progress", ProgressBar).display  # no bar left over a failure
        assert not dialog.query_one("#export-run", Button).disabled  # he can fix the path and try again
    assert {p.name for p in tmp_path.iterdir() if p != isolated_home} == {"a-file", "exports"}
    assert list(folder.iterdir()) == []  # nothing half-written


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_corrections_screen_snapshot(snap_compare: Any, isolated_home: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await open_corrections(pilot)
        pilot.app.screen.query_one("#corrections-list", DataTable).move_cursor(row=2)
        await settle(pilot)

    assert snap_compare(seeded_app(isolated_home), terminal_size=size, run_before=run_before)


async def test_help_on_the_corrections_screen_lists_its_keys_and_not_the_prompts(isolated_home: Path) -> None:
    from tui.widgets.screens import HelpScreen

    app = seeded_app(isolated_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_corrections(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.rows)
        assert "out of exports" in keys["x"] and "f5" in keys
        assert "ctrl+l" not in keys and "enter" not in keys  # the first screen's prompt keys do nothing here


def app_with_adapters(home: Path) -> ChambersApp:
    """The seeded pairs, one more drafted with an adapter, and two registered adapters (one evaluated).

    The adapter rows are what ``chambers train`` registers and ``chambers eval`` stores; their GGUF files
    are never opened by the screen, so the paths name no file.
    """
    from corrections.adapters import AdapterRecord, register
    from corrections.store import set_excluded

    app = seeded_app(home)
    db = home / "data" / "chambers.sqlite3"
    store(db, adapter="demand-v1", final=FINAL + " Regards.", accepted_at="2026-11-05T10:00:00")
    scores = {
        "table": [
            {
                "task": "demand_letter",
                "pairs": 1,
                "base_edit_ratio": 0.412,
                "adapter_edit_ratio": 0.305,
                "base_chrf": 41.2,
                "adapter_chrf": 55.0,
                "base_blocks": None,
                "adapter_blocks": None,
            },
            {
                "task": "all",
                "pairs": 2,
                "base_edit_ratio": 0.25,
                "adapter_edit_ratio": 0.2,
                "base_chrf": 50.5,
                "adapter_chrf": 58.25,
                "base_blocks": None,
                "adapter_blocks": None,
            },
        ]
    }
    for name, train, held, evaluated in (("demand-v1", [1, 2], [3], scores), ("summary-v1", [2], [1], None)):
        register(
            db,
            AdapterRecord(
                name=name,
                role="drafter",
                backend="local",
                base_model="smollm2-135m-instruct",
                base_path="/m/base.gguf",
                base_sha256="b" * 64,
                architecture="LlamaForCausalLM",
                file=f"/a/{name}/{name}.gguf",
                file_sha256="f" * 64,
                settings={"r": 8},
                loss_curve=[4.5, 1.0],
                trained_tokens=100,
                train_seconds=1.0,
                train_pair_ids=train,
                held_out_pair_ids=held,
                eval=evaluated,
            ),
        )
    set_excluded(db, 2, True)  # trained on by both: both adapters go stale
    return app


async def test_stats_compare_drafts_with_and_without_adapters_and_show_each_adapters_scores(
    isolated_home: Path,
) -> None:
    app = app_with_adapters(isolated_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_corrections(pilot)
        screen.query_one("#corrections-list", DataTable).focus()
        await pilot.press("s")
        await settle(pilot)
        lines = redline_text(screen).splitlines()
        model_rows = [line.split("  ")[0].strip() for line in lines if "demand_letter" in line]
        assert "qwen3.6-35b-a3b" in model_rows  # the same model without the adapter, its own row
        assert any(row.endswith("+ demand-v1") for row in model_rows), lines
        demand = next(line for line in lines if line.startswith("demand-v1 "))
        assert demand.split()[:4] == ["demand-v1", "smollm2-135m-instruct", "2", "1"]
        assert "0.250 → 0.200" in demand and "50.5 → 58.2" in demand and "stale: pair 2 excluded" in demand
        summary = next(line for line in lines if line.startswith("summary-v1 "))
        assert "not evaluated" in summary and "stale: pair 2 excluded" in summary


def test_corrections_stats_with_adapters_snapshot(snap_compare: Any, isolated_home: Path) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await open_corrections(pilot)
        screen.query_one("#corrections-list", DataTable).focus()
        await pilot.press("s")
        await settle(pilot)

    assert snap_compare(app_with_adapters(isolated_home), terminal_size=(80, 24), run_before=run_before)
