"""What the Settings (F10) tests share: a hand-commented config (the ``config_file`` fixture
writes it under the test's CHAMBERS_HOME), an app on it, and the keys that open the screen, choose
in a drop-down and save.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Select, Static

from themes import THEMES
from tui.app import ChambersApp, create_app
from tui.settings.screen import SettingsScreen, backend_label
from workspace.config import Config

HAND_WRITTEN = """\
# Chambers config, written by hand. These comments must survive every save.
[policy]
local_only = true  # never send client documents out of the office

[[boards]]
name = "board-a"
gpus = [0, 1]

# The small fast server does the quick steps.
[[backends]]
name = "small"
kind = "llamacpp"
url = "http://127.0.0.1:9"
roles = ["router", "gate", "drafter", "extractor"]

# The big one on board-a.
[[backends]]
name = "big"
kind = "llamacpp"
url = "http://127.0.0.1:10"
board = "board-a"
roles = ["heavy", "reviewer"]

[[backends]]
name = "cloud"
kind = "llamacpp"
url = "http://8.8.8.8:8080"
"""


@pytest.fixture(name="config_file")
def hand_written_config(isolated_home: Path) -> Path:
    """HAND_WRITTEN as the config file; a module that imports ``hand_written_config`` has ``config_file``."""
    isolated_home.mkdir(parents=True, exist_ok=True)
    path = isolated_home / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    return path


def app_for(config: Config, home: Path) -> ChambersApp:
    return create_app(config, home / "data" / "chambers.sqlite3", start_on_dashboard=False)


async def until(condition: Callable[[], bool], pilot: Any, tries: int = 100) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the condition never held")


async def saved(screen: SettingsScreen, pilot: Any) -> None:
    """Press Ctrl+S and wait for the save worker, then for its outcome to be shown."""
    await pilot.press("ctrl+s")
    await pilot.pause()
    await asyncio.gather(*(w.wait() for w in screen.workers), return_exceptions=True)
    await pilot.pause()


async def open_settings(pilot: Any) -> SettingsScreen:
    await pilot.press("f10")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


async def choose(pilot: Any, select_id: str, label_start: str) -> None:
    """Tab to the drop-down, open it with Enter, move down to the option, Enter: the keyboard only."""
    screen = pilot.app.screen
    for _ in range(12):
        if screen.focused is not None and screen.focused.id == select_id:
            break
        await pilot.press("tab")
    select = screen.query_one(f"#{select_id}", Select)
    assert screen.focused is select
    await pilot.press("enter")
    await pilot.pause()
    assert select.expanded
    app = pilot.app
    assert isinstance(app, ChambersApp)
    if select_id == "settings-theme":
        values = [t.name for t in THEMES]
        labels = values
    else:
        values = [b.name for b in app.config.backends]
        labels = [backend_label(b) for b in app.config.backends]
    target = next(i for i, text in enumerate(labels) if text.startswith(label_start))
    current = values.index(str(select.value))
    await pilot.press(*(["down"] * (target - current) if target >= current else ["up"] * (current - target)))
    await pilot.press("enter")
    await pilot.pause()


def status(screen: SettingsScreen) -> str:
    return str(screen.query_one("#settings-status", Static).render())


def load_config_text(text: str, file: Path) -> Config:
    import tomllib

    from workspace.config import parse_config

    return parse_config(tomllib.loads(text), str(file))
