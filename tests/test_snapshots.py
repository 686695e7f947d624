"""Snapshots of the main screen at 80x24 and 120x40 (update with --snapshot-update).

The backend points at port 9 on loopback, where nothing listens, so the
screen is the same on every machine: the row reads "down".
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_backend
from tui.app import create_app
from workspace.config import Config, Policy


def app(home: Path) -> Any:
    backend = make_backend("http://127.0.0.1:9", name="workhorse")
    config = Config(file="config.toml", policy=Policy(), boards=(), backends=(backend,))
    return create_app(config, home / "chambers.sqlite3")


async def settle(pilot: Any) -> None:
    await asyncio.gather(*(w.wait() for w in pilot.app.workers), return_exceptions=True)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_main_screen(snap_compare: Any, isolated_home: Path, size: tuple[int, int]) -> None:
    assert snap_compare(app(isolated_home), terminal_size=size, run_before=settle)


def test_help_screen(snap_compare: Any, isolated_home: Path) -> None:
    assert snap_compare(app(isolated_home), press=["f1"], terminal_size=(80, 24), run_before=settle)
