"""Settings (F10), driven with Pilot: roles moved between backends and the theme, saved into config.toml
with the attorney's comments and layout kept (tomlkit edits the file in place), and every open
screen then runs on the saved config.

Every save here writes a real hand-commented config under the test's CHAMBERS_HOME and reads it
back with the loader. The saves that must be refused or change only what they must are in
``test_workstation_settings_saves.py``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable, Select, Static

from tests.support.settings_setup import (
    HAND_WRITTEN,
    app_for,
    choose,
    hand_written_config,  # noqa: F401 (the config_file fixture)
    load_config_text,
    open_settings,
    saved,
    status,
    until,
)
from tui.app import create_app
from tui.settings.screen import SettingsScreen
from tui.settings.ui_settings import ui_file
from tui.widgets.screens import HelpScreen
from workspace.config import load_config


async def test_moving_the_drafter_saves_the_file_with_its_comments_and_the_app_uses_it(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        assert screen.query_one("#role-drafter", Select).value == "small"
        assert status(screen) == "Nothing changed yet."
        await choose(pilot, "role-drafter", "big")
        assert screen.query_one("#role-drafter", Select).value == "big"
        assert status(screen).startswith("Not saved yet (drafter)")
        assert config_file.read_text() == HAND_WRITTEN  # nothing is written before Ctrl+S
        # A hand edit made while chambers runs is kept: the save re-reads the file, not the start's copy.
        edited = HAND_WRITTEN.replace('url = "http://127.0.0.1:10"', 'url = "http://127.0.0.1:11"')
        config_file.write_text(edited, encoding="utf-8")
        await saved(screen, pilot)
        assert status(screen).startswith(f"Saved to {config_file}")
        assert app.config.backend_for_role("drafter").name == "big"
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        table = app.query_one("#backends", DataTable)
        assert table.get_cell("big", "roles") == "heavy,reviewer,drafter"
        assert table.get_cell("small", "roles") == "router,gate,extractor"
    again = load_config(config_file)
    assert again.backend_for_role("drafter").name == "big"
    assert again.backend_named("small").roles == ("router", "gate", "extractor")
    assert again.backend_named("big").roles == ("heavy", "reviewer", "drafter")
    assert again.backend_named("big").board == "board-a" and again.policy.local_only
    assert again.backend_named("big").url == "http://127.0.0.1:11"
    # Only the two roles arrays changed; every comment and the hand edit are as they were.
    assert config_file.read_text() == edited.replace(
        'roles = ["router", "gate", "drafter", "extractor"]', 'roles = ["router", "gate", "extractor"]'
    ).replace('roles = ["heavy", "reviewer"]', 'roles = ["heavy", "reviewer", "drafter"]')
    assert sorted(p.name for p in config_file.parent.iterdir()) == ["config.toml"]  # no .bak, no temp


async def test_a_save_says_what_it_saved_and_that_esc_now_keeps_it(
    config_file: Path, isolated_home: Path
) -> None:
    """The screen says Esc drops changes; once saved, its line says what was saved and that Esc keeps it."""
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        line = screen.query_one("#settings-status", Static)
        await choose(pilot, "role-drafter", "big")
        assert line.has_class("-pending")
        await choose(pilot, "settings-theme", "chambers-light")
        await saved(screen, pilot)
        assert status(screen) == (
            f"Saved to {config_file}: drafter on big, theme chambers-light. "
            "Esc goes back; the next run uses what is saved."
        )
        assert line.has_class("-saved") and not line.has_class("-pending")
        await saved(screen, pilot)  # again, with nothing changed since
        assert status(screen) == f"Saved to {config_file}; nothing had changed on screen. Esc goes back."
        await choose(pilot, "role-gate", "big")
        assert line.has_class("-pending") and not line.has_class("-saved")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
    again = load_config(config_file)
    assert again.backend_for_role("drafter").name == "big" and again.ui.theme == "chambers-light"
    assert again.backend_for_role("gate").name == "small"  # chosen after the save, dropped by Esc


async def test_the_drafting_screen_runs_on_the_saved_config(config_file: Path, isolated_home: Path) -> None:
    from tui.drafting.screen import DraftingScreen

    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        drafting = app.screen
        assert isinstance(drafting, DraftingScreen)
        screen = await open_settings(pilot)
        await choose(pilot, "role-reviewer", "small")
        await saved(screen, pilot)
        assert drafting.config is app.config
        assert drafting.config.backend_for_role("reviewer").name == "small"


async def test_every_open_screen_follows_the_saved_config(config_file: Path, isolated_home: Path) -> None:
    """The app's config is watched: the fleet dashboard, installed before the save, runs on the new one."""
    from tui.fleet.dashboard import DashboardScreen

    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        fleet = app.screen
        assert isinstance(fleet, DashboardScreen)
        await pilot.press("f2")  # back to the first screen; the dashboard stays installed
        screen = await open_settings(pilot)
        await choose(pilot, "role-gate", "big")
        await pilot.press("ctrl+s")
        await until(lambda: status(screen).startswith("Saved to"), pilot)  # the dashboard's pollers never end
        await pilot.pause()
        assert fleet.config is app.config and screen.config is app.config
        assert fleet.config.backend_for_role("gate").name == "big"


async def test_the_theme_is_saved_in_the_config_and_used_at_the_next_start(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == "chambers-dark"
        screen = await open_settings(pilot)
        await choose(pilot, "settings-theme", "chambers-high-contrast")
        assert app.theme == "chambers-dark"  # chosen, not yet saved
        assert status(screen).startswith("Not saved yet (theme)")
        await saved(screen, pilot)
        assert app.theme == "chambers-high-contrast"
        await asyncio.gather(*(w.wait() for w in app.workers if w.group == "ui"), return_exceptions=True)
    assert load_config(config_file).ui.theme == "chambers-high-contrast"
    assert not ui_file().exists()
    again = app_for(load_config(config_file), isolated_home)
    async with again.run_test(size=(80, 24)) as pilot:
        assert again.theme == "chambers-high-contrast"
        again.theme = "chambers-light"  # the command palette's theme choice goes to the config too
        await pilot.pause()
        await asyncio.gather(*(w.wait() for w in again.workers if w.group == "ui"), return_exceptions=True)
    assert load_config(config_file).ui.theme == "chambers-light"
    assert config_file.read_text() == HAND_WRITTEN + '\n[ui]\ntheme = "chambers-light"\n'


async def test_esc_closes_an_open_list_first_then_leaves_without_saving(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        await choose(pilot, "role-gate", "big")
        select = screen.query_one("#role-gate", Select)
        await pilot.press("enter")  # open the list again
        await pilot.pause()
        assert select.expanded
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and not select.expanded
        assert screen.focused is select  # the focus stays on the line, so Tab goes on to the next one
        await pilot.press("tab")
        assert screen.focused is screen.query_one("#role-drafter", Select)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
        assert app.config.backend_for_role("gate").name == "small"
    assert config_file.read_text() == HAND_WRITTEN


async def test_help_lists_the_keys_and_the_palette_opens_settings(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"settings")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.rows)
        assert "comments are kept" in keys["ctrl+s"] and keys["escape"].startswith("Back")
        assert "Settings" in keys["f10"]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_settings_screen_snapshot(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """The screen as the attorney sees it, over SSH at 80x24 and on a larger terminal (config built in code,
    so the path on screen is the same on every machine)."""
    config = load_config_text(HAND_WRITTEN, Path("config.toml"))

    async def open_it(pilot: Any) -> None:
        await open_settings(pilot)
        await pilot.press("tab", "tab")  # the drafter's line has the focus
        await pilot.pause()

    app = create_app(config, tmp_path / "chambers.sqlite3", start_on_dashboard=False)
    assert snap_compare(app, terminal_size=size, run_before=open_it)
