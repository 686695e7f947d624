"""Settings (F10) saves that must be refused, or must change only the lines they must: a folder
that is not writable, a role moved to a public server, a config that is not on disk, roles left
without a backend, and the commented starter config of `chambers init`.

The read-only case makes the folder really unwritable (chmod, or chattr +i when the tests run as
root, whom chmod does not stop).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.settings_setup import (
    HAND_WRITTEN,
    app_for,
    choose,
    hand_written_config,  # noqa: F401 (the config_file fixture)
    load_config_text,
    open_settings,
    saved,
    status,
)
from tui.settings.ui_settings import load_theme
from tui.widgets.screens import ErrorScreen
from workspace.config import ConfigError, Policy, load_config, starter_config_text
from workspace.config_edit import assign_roles, edited_text, save_config, with_theme


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


async def test_an_old_ui_toml_is_still_read_and_a_config_not_on_disk_is_never_created(
    isolated_home: Path,
) -> None:
    from tui.settings.ui_settings import save_theme

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
        '-theme = "chambers-dark"',
        '+theme = "chambers-light"',
        '-roles = ["gate"]',
        '+roles = ["gate", "reviewer"]',
        '-roles = ["drafter"]',
        "+roles = []",
        '-roles = ["heavy"]',
        '+roles = ["heavy", "drafter"]',
        '-roles = ["reviewer"]',
        "+roles = []",
    ]
    comments = [line for line in starter.splitlines() if line.lstrip().startswith("#") or " # " in line]
    assert comments and all(line in text.splitlines() for line in comments)


def test_the_editor_refuses_a_change_it_cannot_write_without_dropping_it(config_file: Path) -> None:
    from dataclasses import replace

    config = load_config(config_file)
    moved = replace(config, policy=Policy(local_only=False))
    with pytest.raises(ConfigError, match="more than roles and the theme"):
        edited_text(HAND_WRITTEN, moved)
    assert config_file.read_text() == HAND_WRITTEN
