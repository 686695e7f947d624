"""Settings (F10) saved after the attorney edited config.toml by hand while chambers ran: his edit is
never silently undone. A save writes only what he changed on screen into the file as it is now, and
refuses, leaving the file as he left it, where his hand edit and his choice on screen disagree."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Select

from tests.support.settings_setup import (
    HAND_WRITTEN,
    app_for,
    choose,
    hand_written_config,  # noqa: F401 (the config_file fixture)
    open_settings,
    saved,
    status,
)
from tui.widgets.screens import ErrorScreen
from workspace.config import load_config
from workspace.config_edit import ConfigChangedOutside

SMALL_ROLES = 'roles = ["router", "gate", "drafter", "extractor"]'
BIG_ROLES = 'roles = ["heavy", "reviewer"]'
# He moves the reviewer to the small server by hand, and says why in a comment of his own.
REVIEWER_MOVED = HAND_WRITTEN.replace(
    SMALL_ROLES, 'roles = ["router", "gate", "drafter", "extractor", "reviewer"]  # big is busy this week'
).replace(BIG_ROLES, 'roles = ["heavy"]')


async def test_a_save_with_nothing_changed_on_screen_keeps_his_hand_edit(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        assert screen.query_one("#role-reviewer", Select).value == "big"
        config_file.write_text(REVIEWER_MOVED, encoding="utf-8")
        await saved(screen, pilot)
        assert config_file.read_text() == REVIEWER_MOVED  # not one character of his edit undone
        assert "Your edits made in the file since Settings opened are kept." in status(screen), status(screen)
        assert app.config.backend_for_role("reviewer").name == "small"  # the app runs on the file now
        assert screen.query_one("#role-reviewer", Select).value == "small"  # and the screen shows it
        await saved(screen, pilot)  # a second Ctrl+S moves nothing back either
        assert config_file.read_text() == REVIEWER_MOVED


async def test_his_hand_edit_and_his_choice_on_screen_are_both_saved(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        await choose(pilot, "role-drafter", "big")
        config_file.write_text(REVIEWER_MOVED, encoding="utf-8")
        await saved(screen, pilot)
        assert status(screen).startswith(f"Saved to {config_file}: drafter on big."), status(screen)
    again = load_config(config_file)
    assert (
        again.backend_for_role("drafter").name == "big" and again.backend_for_role("reviewer").name == "small"
    )
    assert "# big is busy this week" in config_file.read_text()  # his comment, kept by the tomlkit edit
    assert config_file.read_text().startswith("# Chambers config, written by hand.")


async def test_a_role_moved_both_by_hand_and_on_screen_is_refused_and_the_file_left_as_he_wrote_it(
    config_file: Path, isolated_home: Path
) -> None:
    app = app_for(load_config(config_file), isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        await choose(pilot, "role-reviewer", "small")
        # Meanwhile, in his editor, he gives the reviewer a server of its own.
        by_hand = (
            REVIEWER_MOVED.replace(', "reviewer"]  # big is busy this week', "]")
            + '\n[[backends]]\nname = "mid"\nkind = "llamacpp"\nurl = "http://127.0.0.1:12"\nroles = ["reviewer"]\n'
        )
        config_file.write_text(by_hand, encoding="utf-8")
        await saved(screen, pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.error_title == ConfigChangedOutside.title
        message = app.screen.error_message
        assert str(config_file) in message and "open it again (F10)" in message
        assert "reviewer on mid in the file, on small on screen" in message
        await pilot.press("escape")
        assert status(screen) == f"Not saved; {config_file} is as it was."
        assert config_file.read_text() == by_hand
        assert app.config.backend_for_role("reviewer").name == "big"  # the app was not switched either
