"""Settings (F10), driven with Pilot: roles moved between backends and the theme, saved into config.toml
with the attorney's comments and layout kept (tomlkit edits the file in place).

Every save here writes a real hand-commented config under the test's CHAMBERS_HOME and reads it
back with the loader; the read-only case makes the folder really unwritable (chmod, or chattr +i
when the tests run as root, whom chmod does not stop).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable, Select, Static

from themes import THEMES
from tui.app import ChambersApp, create_app
from tui.screens import ErrorScreen, HelpScreen
from tui.settings_screen import SettingsScreen, backend_label
from tui.ui_settings import load_theme, ui_file
from workspace.config import Config, ConfigError, Policy, load_config, starter_config_text
from workspace.config_edit import assign_roles, edited_text, save_config, with_theme

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


@pytest.fixture
def config_file(isolated_home: Path) -> Path:
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
        assert status(screen) == f"Saved to {config_file}; nothing had changed. Esc goes back."
        await choose(pilot, "role-gate", "big")
        assert line.has_class("-pending") and not line.has_class("-saved")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
    again = load_config(config_file)
    assert again.backend_for_role("drafter").name == "big" and again.ui.theme == "chambers-light"
    assert again.backend_for_role("gate").name == "small"  # chosen after the save, dropped by Esc


async def test_the_drafting_screen_runs_on_the_saved_config(config_file: Path, isolated_home: Path) -> None:
    from tui.drafting_screen import DraftingScreen

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
    from tui.dashboard import DashboardScreen

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


async def test_an_old_ui_toml_is_still_read_and_a_config_not_on_disk_is_never_created(
    isolated_home: Path,
) -> None:
    from tui.ui_settings import save_theme

    save_theme("chambers-light")  # where an earlier version kept it
    config = with_theme(load_config_text(HAND_WRITTEN, isolated_home / "nowhere" / "config.toml"), None)
    app = app_for(config, isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == "chambers-light"
        app.theme = "chambers-high-contrast"
        await pilot.pause()
        await asyncio.gather(*(w.wait() for w in app.workers if w.group == "ui"), return_exceptions=True)
        screen = await open_settings(pilot)
        await saved(screen, pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.error_title == "No config file to save to"
        assert "chambers init" in app.screen.error_message
    assert load_theme() == "chambers-high-contrast"
    assert not (isolated_home / "nowhere").exists()


def load_config_text(text: str, file: Path) -> Config:
    import tomllib

    from workspace.config import parse_config

    return parse_config(tomllib.loads(text), str(file))


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make ``folder`` unwritable for real: chmod for a user, chattr +i for root (chmod stops no root)."""
    folder.chmod(0o555)
    immutable = os.geteuid() == 0
    if immutable:
        chattr = shutil.which("chattr")
        if chattr is None or subprocess.run([chattr, "+i", str(folder)], check=False).returncode != 0:
            folder.chmod(0o755)
            pytest.fail("running as root, and chattr +i does not work here: cannot make a folder read-only")
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


async def test_a_read_only_folder_gives_an_error_naming_the_path_and_leaves_the_file_intact(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    with read_only(config_file.parent):
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_settings(pilot)
            await choose(pilot, "role-drafter", "big")
            await saved(screen, pilot)
            error = app.screen
            assert isinstance(error, ErrorScreen)
            assert error.error_title == "The config could not be saved"
            assert str(config_file) in error.error_message and "writable" in error.error_message
            assert "Nothing was changed" in error.error_message
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen and "Not saved" in status(screen)
            assert app.config.backend_for_role("drafter").name == "small"
    assert config_file.read_text() == HAND_WRITTEN
    assert sorted(p.name for p in config_file.parent.iterdir()) == ["config.toml"]


async def test_a_role_moved_to_a_public_server_is_refused_by_the_local_only_policy(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        await choose(pilot, "role-drafter", "cloud")
        await saved(screen, pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "public internet address" in app.screen.error_message
        assert "'cloud'" in app.screen.error_message
    assert config_file.read_text() == HAND_WRITTEN
    assert sorted(p.name for p in config_file.parent.iterdir()) == ["config.toml"]


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


def test_assigning_roles_checks_every_case(config_file: Path) -> None:
    config = load_config(config_file)
    moved = assign_roles(config, {"drafter": "big", "router": "small"})
    assert moved.backend_named("small").roles == ("router", "gate", "extractor")
    assert moved.backend_named("big").roles == ("heavy", "reviewer", "drafter")
    with pytest.raises(ConfigError, match="left without a backend"):
        assign_roles(config, {"drafter": None})
    with pytest.raises(ConfigError, match="no backend named 'gone'"):
        assign_roles(config, {"drafter": "gone"})
    with pytest.raises(ConfigError, match="unknown role 'typist'"):
        assign_roles(config, {"typist": "big"})
    # The validator runs on the rendered text before writing: a role on two backends is refused.
    from dataclasses import replace

    twice = replace(config, backends=tuple(replace(b, roles=("drafter",)) for b in config.backends))
    with pytest.raises(ConfigError, match="already given to backend"):
        save_config(twice)
    assert config_file.read_text() == HAND_WRITTEN
    assert Policy().local_only


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


def test_a_save_of_the_commented_starter_config_changes_only_the_lines_it_must(isolated_home: Path) -> None:
    """The config `chambers init` writes is the one most attorneys start from: every comment in it
    (why a board is a board, what local_only means) must still be there after Settings saves."""
    import difflib

    isolated_home.mkdir(parents=True, exist_ok=True)
    path = isolated_home / "config.toml"
    starter = starter_config_text()
    path.write_text(starter, encoding="utf-8")
    config = load_config(path)
    changed = with_theme(assign_roles(config, {"drafter": "heavy", "reviewer": "gate"}), "chambers-light")
    saved = save_config(changed)
    text = path.read_text(encoding="utf-8")
    assert saved.config == changed == load_config(path)
    diff = [
        line
        for line in difflib.unified_diff(starter.splitlines(), text.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert diff == [
        '-theme = "chambers-dark"', '+theme = "chambers-light"',
        '-roles = ["gate"]', '+roles = ["gate", "reviewer"]',
        '-roles = ["drafter"]', '+roles = []',
        '-roles = ["heavy"]', '+roles = ["heavy", "drafter"]',
        '-roles = ["reviewer"]', '+roles = []',
    ]  # fmt: skip
    comments = [line for line in starter.splitlines() if line.lstrip().startswith("#") or " # " in line]
    assert comments and all(line in text.splitlines() for line in comments)


def test_the_editor_refuses_a_change_it_cannot_write_without_dropping_it(config_file: Path) -> None:
    from dataclasses import replace

    config = load_config(config_file)
    moved = replace(config, policy=Policy(local_only=False))
    with pytest.raises(ConfigError, match="more than roles and the theme"):
        edited_text(HAND_WRITTEN, moved)
    assert config_file.read_text() == HAND_WRITTEN
