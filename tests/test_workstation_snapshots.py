"""Snapshots of the drafting screen (F4) at 80x24 and 120x40 (update with --snapshot-update).

A run with a planted draft, verified by the real verifier against the demo matter, is opened and
the first flag jumped to, so the pictures show the strip, the marked draft and the flag list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_backend
from tests.support.drafting_screen_setup import demo_db, open_run  # noqa: F401 (demo_db: the db fixture)
from tests.test_workstation_drafting import app_with, planted_run
from workspace.config import Config, Policy


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_drafting_screen(snap_compare: Any, db: Path, size: tuple[int, int]) -> None:
    run_id = planted_run(db)
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))

    async def open_it(pilot: Any) -> None:
        await open_run(pilot, run_id)
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(app_with(config, db), terminal_size=size, run_before=open_it)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("show", ["help", "flag"])
def test_drafting_help_and_flag_dialog(snap_compare: Any, db: Path, size: tuple[int, int], show: str) -> None:
    """F1 on the drafting screen (its own keys first), and the flag dialog of the planted $52,000."""
    run_id = planted_run(db)
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))

    async def open_it(pilot: Any) -> None:
        screen = await open_run(pilot, run_id)
        await pilot.press("f1" if show == "help" else "n")
        if show == "flag":
            quoted = next(i for i, f in enumerate(screen.flag_pane.flags) if f.kind == "quotation")
            screen.query_one("#ws-flags").highlighted = quoted  # type: ignore[attr-defined]
            await pilot.press("enter")
            for _ in range(200):  # the cited passages, read from their pages in the dialog's worker
                if getattr(pilot.app.screen, "passages", None):
                    break
                await pilot.pause(0.05)
        await pilot.pause()

    assert snap_compare(app_with(config, db), terminal_size=size, run_before=open_it)
