"""Themes: dark, light and high contrast, and ui.toml, where the choice is kept when the config is no file.

These configs are built in code (``c.toml`` is not on disk), so the choice goes to ui.toml; with a real
config file it goes to the config's ``[ui]`` table (tests/test_workstation_settings.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.conftest import make_backend
from themes import THEMES
from tui.app import create_app
from tui.settings.ui_settings import load_theme, save_theme, ui_file
from workspace.config import Config, Policy


def config() -> Config:
    return Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))


def test_three_themes_and_a_damaged_ui_file_means_the_default(isolated_home: Path) -> None:
    assert {"chambers-dark", "chambers-light", "chambers-high-contrast"} <= {t.name for t in THEMES}
    assert load_theme() is None
    ui_file().parent.mkdir(parents=True, exist_ok=True)
    ui_file().write_text("ui = [not toml")
    assert load_theme() is None
    save_theme("chambers-light")
    assert load_theme() == "chambers-light" and ui_file().parent == isolated_home


async def test_a_chosen_theme_is_saved_and_used_at_the_next_start(isolated_home: Path) -> None:
    app = create_app(config(), isolated_home / "data" / "chambers.sqlite3", start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == "chambers-dark" and not ui_file().exists()
        app.theme = "chambers-high-contrast"
        await pilot.pause()
        await asyncio.gather(*(w.wait() for w in app.workers if w.group == "ui"), return_exceptions=True)
    assert load_theme() == "chambers-high-contrast"
    again = create_app(config(), isolated_home / "data" / "chambers.sqlite3", start_on_dashboard=False)
    async with again.run_test(size=(80, 24)):
        assert again.theme == "chambers-high-contrast"
    save_theme("no-such-theme")
    third = create_app(config(), isolated_home / "data" / "chambers.sqlite3", start_on_dashboard=False)
    async with third.run_test(size=(80, 24)):
        assert third.theme == "chambers-dark"


def test_no_color_gives_a_monochrome_app_and_flags_keep_their_gutter_letters(
    isolated_home: Path, monkeypatch: object
) -> None:
    from tui.drafting.view import FlagView, marked_lines

    monkeypatch.setenv("NO_COLOR", "1")  # type: ignore[attr-defined]
    app = create_app(config(), isolated_home / "data" / "chambers.sqlite3", start_on_dashboard=False)
    assert app.no_color  # Textual's monochrome filter: colour goes, bold/reverse/underline stay
    draft = "One.\nCalder was paid $52,000.\nThree."
    flag = FlagView(21, 28, "verifier", "block", "amount", "$52,000", "No source mentions $52,000.00.")
    lines = [line.plain for line in marked_lines(draft, [flag], None)]
    assert lines == ["  One.", "B▌Calder was paid $52,000.", "  Three."]


async def test_the_palette_finds_the_drafting_actions(isolated_home: Path) -> None:
    from textual.command import CommandPalette

    from tui.drafting.screen import DraftingScreen

    app = create_app(config(), isolated_home / "data" / "chambers.sqlite3", start_on_dashboard=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"redline")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert "There is no draft yet." in str(screen.query_one("#ws-status").render())


async def test_the_palette_runs_any_screens_keys_and_the_apps_own(isolated_home: Path) -> None:
    from textual.command import CommandPalette

    from tests.test_corrections_screen import seeded_app
    from tui.corrections.screen import CorrectionsScreen

    app = seeded_app(isolated_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f5")
        screen = app.screen
        assert isinstance(screen, CorrectionsScreen) and not screen.showing_stats
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"corrections: stats")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and screen.showing_stats

        # The app's own keys are there on every screen: the help screen, from the corrections screen.
        from tui.widgets.screens import HelpScreen

        await pilot.press("ctrl+p", *"chambers: help")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
