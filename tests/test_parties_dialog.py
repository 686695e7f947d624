"""The parties dialog (p on the corrections screen), driven with Pilot over the ingested sample matter:
its proposals are ticked, Space unticks one, Enter records the rest for the export scrub."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import SelectionList

from corrections.scrub import party_list
from evidence.sample_matter import SAMPLE_MATTER
from tests.conftest import make_backend
from tests.support.corrections_data import store
from tests.support.pipeline_setup import demo_database
from tests.test_corrections_screen import open_corrections, settle
from tui.app import create_app
from tui.corrections.parties_dialog import PartiesScreen
from workspace.config import Config, Policy


async def test_confirm_the_proposed_parties_but_one(
    isolated_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    db = demo_database(tmp_path_factory.mktemp("demo-matter"), isolated_home / "data" / "chambers.sqlite3")
    store(db)  # a pair of the sample matter, so the corrections screen has one to highlight
    config = Config(
        file="config.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),)
    )
    app = create_app(config, db, start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_corrections(pilot)
        await pilot.press("p")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, PartiesScreen)
        listing = dialog.query_one("#parties-list", SelectionList)
        names = [p.name for p in dialog.proposals]
        assert "Harbor Point Provisions LLC" in names and "Dana Whitcombe" in names
        assert listing.selected == list(range(len(names)))  # all ticked to begin with
        await pilot.press("space")  # unticks the first
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, PartiesScreen)
    recorded = party_list(db, SAMPLE_MATTER)
    assert names[0] not in recorded and set(names[1:]) <= set(recorded)
