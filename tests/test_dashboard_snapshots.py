"""Dashboard snapshots at 80x24 (compact, two cards a row) and 120x40 (the whole installation).

GPUs come from the recorded stand-ins; the six backends point at port 9 on
loopback, where nothing listens, and the refresh is 60 s, so the picture is
the same on every machine: the first recorded frame, every server "down".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.dashboard_config import mission_config
from tui.app import create_app
from tui.fleet.dashboard import DashboardScreen


async def ready(pilot: Any) -> None:
    for _ in range(200):
        screen = pilot.app.screen
        if isinstance(screen, DashboardScreen) and screen.ready():
            break
        await pilot.pause(0.05)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_dashboard(snap_compare: Any, isolated_home: Path, size: tuple[int, int]) -> None:
    app = create_app(mission_config(), isolated_home / "db.sqlite3", start_on_dashboard=True)
    assert snap_compare(app, terminal_size=size, run_before=ready)


def test_board_detail(snap_compare: Any, isolated_home: Path) -> None:
    app = create_app(mission_config(), isolated_home / "db.sqlite3", start_on_dashboard=True)
    assert snap_compare(app, press=["right", "enter"], terminal_size=(100, 30), run_before=ready)


def test_dashboard_with_a_lora_adapter(snap_compare: Any, isolated_home: Path) -> None:
    """The workhorse's requests carry a LoRA adapter: its name follows the model on the server's line."""
    from dataclasses import replace

    from workspace.config import LoraRef

    config = mission_config()
    backends = tuple(
        replace(b, lora=(LoraRef("demand-v3"),)) if b.name == "workhorse" else b for b in config.backends
    )
    app = create_app(
        replace(config, backends=backends), isolated_home / "db.sqlite3", start_on_dashboard=True
    )
    assert snap_compare(app, terminal_size=(120, 40), run_before=ready)


def test_board_detail_with_a_measured_model_80x24(snap_compare: Any, isolated_home: Path) -> None:
    """pair-01's profile serves the tiny MoE that a real run measured and requantized (the stored rows
    of tests/support/measured_tiny_moe.py): the detail, scrolled to its end, shows them."""
    from dataclasses import replace

    from tests.support.measured_tiny_moe import SOURCE, seed_measured

    database = isolated_home / "db.sqlite3"
    seed_measured(database)
    profile = {"name": "tiny", "model": SOURCE, "board": "pair-01"}
    app = create_app(replace(mission_config(), profiles=(profile,)), database, start_on_dashboard=True)

    async def open_detail(pilot: Any) -> None:
        await ready(pilot)
        screen = pilot.app.screen
        for worker in [w for w in screen.workers if w.group == "fleet-bench"]:
            await worker.wait()
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.screen.query_one("#detail-scroll").scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_detail)
