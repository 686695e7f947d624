"""The flag dialog's r on a flag with no evidence of its own (an amount no source mentions) opens the
page its sentence cites, so he sees that page does not say it, instead of being told the flag cites
no page while the sentence plainly cites one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from drafting.flags import cited_in_sentence
from tests.support.drafting_screen_setup import demo_db, open_run  # noqa: F401 (demo_db: the db fixture)
from tests.test_workstation_drafting import app_with, planted_run
from tests.test_workstation_editing import until
from workspace.config import Config, Policy

LINE = "Calder was paid $52,000 (HPP-000004)."


def test_the_bates_numbers_of_the_flagged_sentence_only() -> None:
    text = f"The price was $84,000 (HPP-000001). {LINE} See also HPP-000009.\nNext HPP-000003."
    start = text.index("$52,000")
    assert cited_in_sentence(text, start, start + 7) == ["HPP-000004"]
    assert cited_in_sentence("A sum of $5 was paid.", 9, 11) == []


async def test_r_reads_the_page_the_sentence_cites_when_the_flag_has_no_evidence(db: Path) -> None:
    from tui.drafting.dialogs import FlagScreen
    from tui.widgets.evidence_views import ReadingScreen

    run_id = await asyncio.to_thread(planted_run, db, f"Dear Mr. Calder,\n\n{LINE}\n")
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        amount = next(i for i, f in enumerate(screen.flag_pane.flags) if f.text == "$52,000")
        assert screen.flag_pane.flags[amount].evidence == (), (
            "no source mentions the figure: no evidence of its own"
        )
        screen.query_one("#ws-flags").highlighted = amount  # type: ignore[attr-defined]
        await pilot.press("enter")
        assert isinstance(app.screen, FlagScreen)
        assert "r reads HPP-000004" in str(app.screen.query_one("#flag-foot", Static).render())
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ReadingScreen), pilot)
        reader = app.screen
        assert isinstance(reader, ReadingScreen)
        assert "HPP-000004" in reader.heading, reader.heading
        assert "25,200" in str(reader.body), "the invoice the sentence cites, which says another figure"
