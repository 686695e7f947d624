"""The flag dialog's r on a support flag opens the page its passage begins on, in the reader: the
cited opinion's page from the authorities library, so he reads the page he cites whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from drafting.verify.library import add_opinion_file
from drafting.verify.text import normalize_for_match
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.drafting_screen_setup import demo_db, open_run  # noqa: F401 (demo_db: the db fixture)
from tests.support.support_keyed_set import key_items
from tests.support.verify_real_corpus import OPINIONS, requires_opinions
from tests.test_workstation_drafting import app_with, planted_run
from tests.test_workstation_editing import until
from workspace.config import Config, Policy

pytestmark = requires_opinions


async def test_r_on_a_support_flag_reads_the_cited_page_of_the_opinion(db: Path) -> None:
    from tui.drafting.dialogs import FlagScreen
    from tui.widgets.evidence_views import ReadingScreen

    assert OPINIONS is not None
    petro = OPINIONS / "petro-lubricant-v-adelman.txt"
    await asyncio.to_thread(add_opinion_file, db, f"{SAMPLE_MATTER}-authorities", petro, [], [])
    item = next(i for i in key_items() if i["id"] == "petro-396-wrong-page")
    run_id = await asyncio.to_thread(planted_run, db, f"{item['claim']}. See {item['cite']}.\n")
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        at = next(i for i, f in enumerate(screen.flag_pane.flags) if f.support is not None)
        support = screen.flag_pane.flags[at].support
        assert support is not None and support["source_page"] >= 1
        screen.query_one("#ws-flags").highlighted = at  # type: ignore[attr-defined]
        await pilot.press("enter")
        assert isinstance(app.screen, FlagScreen)
        assert "r reads the page" in str(app.screen.query_one("#flag-foot", Static).render())
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ReadingScreen), pilot)
        reader = app.screen
        assert isinstance(reader, ReadingScreen)
        assert "petro-lubricant-v-adelman.txt" in reader.heading, reader.heading
        # the page the passage begins on holds the passage's first words (the passage is the reading's)
        first = " ".join(support["passage"].split()[:4])
        assert first in normalize_for_match(str(reader.body)), first
