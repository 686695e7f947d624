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
