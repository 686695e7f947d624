"""The command palette finds every room's actions from any screen: "train" and "adapter" find the
corrections screen's Train from the first screen, and choosing it opens the training dialog there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.command import CommandList, CommandPalette

from tests.conftest import make_backend
from tests.test_workstation_editing import until
from tui.app import create_app
from tui.corrections.screen import CorrectionsScreen
from tui.corrections.train_dialog import TrainScreen
from workspace.config import Config, Policy


def hits(app: Any) -> list[str]:
    found = app.screen.query_one(CommandList)
    return [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]


async def search(pilot: Any, words: str) -> list[str]:
    await pilot.press("ctrl+p")
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*words)
    await until(lambda: bool(hits(pilot.app)), pilot)
    await pilot.pause(0.5)  # every provider has answered
    return hits(pilot.app)


async def test_train_and_adapter_are_found_from_the_first_screen(isolated_home: Path) -> None:
    db = isolated_home / "data" / "chambers.sqlite3"
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))
    app = create_app(config, db, start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        found = await search(pilot, "adapter")
        assert any("Corrections: Train (t)" in hit for hit in found), found
        await pilot.press("escape")
        await pilot.pause()
        found = await search(pilot, "train")
        assert any(hit.startswith("Corrections: Train (t)") for hit in found), found
        index = next(i for i, hit in enumerate(found) if hit.startswith("Corrections: Train (t)"))
        app.screen.query_one(CommandList).highlighted = index
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TrainScreen), pilot)
        assert isinstance(app.screen_stack[-2], CorrectionsScreen), "it opened in its room"
