"""The labels F8 asks for (tui/drafting/accept_dialog.py), driven with Pilot over a real stored pair: one key
each, digits typed into the rationale are text and not a rating, Esc keeps nothing; what they do to
the exports (the rating is KTO's label for the draft, the rationale is in the full record); and a store
that fails, on the real drafting screen."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static, TextArea

from corrections.errors import PairNotFound
from corrections.export import export
from corrections.store import delete_pair, get_pair, set_labels
from tests.conftest import make_backend
from tests.support.corrections_data import DRAFT, FINAL, store
from tests.support.pipeline_setup import demo_database
from tests.test_workstation_drafting import app_with, planted_run, settle
from tests.test_workstation_editing import until
from tui.drafting.accept_dialog import AcceptLabels
from tui.drafting.screen import DraftingScreen
from tui.widgets.screens import ErrorScreen
from workspace.config import Config, Policy


class Host(App[None]):
    """A text area with focus and a status line, as on the drafting screen."""

    def __init__(self, db: Path, pair_id: int) -> None:
        super().__init__()
        self.db, self.pair_id, self.status = db, pair_id, ""

    def compose(self) -> ComposeResult:
        yield TextArea("his text", id="editor")
        yield Static("", id="ws-status")

    def on_mount(self) -> None:
        self.query_one("#editor").focus()
        self.screen.mount(AcceptLabels(self.db, self.pair_id), before="#ws-status")

    def on_accept_labels_done(self, event: AcceptLabels.Done) -> None:
        self.status = event.text


async def label(db: Path, pair_id: int, *keys: str) -> Host:
    app = Host(db, pair_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        for _ in range(20):
            if not app.query(AcceptLabels):
                break
            await pilot.pause(0.05)
        assert not app.query(AcceptLabels)
        assert app.focused is app.query_one("#editor")  # focus is back where he was
    return app


async def test_rating_rationale_and_tags_with_one_key_each(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    pair_id = store(db).pair_id
    app = await label(
        db, pair_id, "4", "r", *"Too formal 2x", "enter", "t", *"tone, Tone,length", "enter", "enter"
    )
    pair = get_pair(db, pair_id)
    assert (pair.rating, pair.rationale, pair.tags) == (4, "Too formal 2x", ["tone", "length"])
    assert app.status == f"Pair {pair_id}: rated 4, a rationale, 2 tags kept."


async def test_escape_keeps_nothing_and_escape_in_a_line_leaves_only_the_line(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    pair_id = store(db).pair_id
    app = await label(db, pair_id, "2", "r", *"half", "escape", "escape")
    pair = get_pair(db, pair_id)
    assert (pair.rating, pair.rationale, pair.tags, app.status) == (None, None, [], "")


def test_the_rating_labels_the_draft_for_kto_and_the_rationale_is_in_the_full_record(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    good = store(db).pair_id
    poor = store(db, final=FINAL + " Thank you.").pair_id
    set_labels(db, good, rating=4, rationale="Right facts,\nwrong tone", tags=["tone"])
    set_labels(db, poor, rating=2, rationale=None, tags=[])
    for fast in (True, False):  # the fast path and the general one (scrub) give the same labels
        out = tmp_path / f"kto-{fast}.jsonl"
        if not fast:
            from corrections.scrub import add_party

            add_party(db, "harbor-point", "Nobody Named Here LLC")
        export(db, out, "kto", scrub=not fast)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        drafts = [r["label"] for r in rows if r["completion"][0]["content"] == DRAFT]
        assert drafts == [True, False]  # rated 4, rated 2
    export(db, tmp_path / "pairs.jsonl", "pairs")
    records = [json.loads(line) for line in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    assert records[0]["rationale"] == "Right facts, wrong tone" and records[0]["rating"] == 4
    assert records[0]["tags"] == ["tone"] and records[1]["rationale"] is None


async def test_labels_that_cannot_be_stored_are_shown_like_every_failed_worker(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """On the real drafting screen: F8 stores the pair, it is deleted before the labels are kept (the
    corrections browser, F5, can do that meanwhile); Enter must open the error modal and say so on the
    status line, and leave the bar for another try."""
    db = demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")
    run_id = await asyncio.to_thread(planted_run, db, "The supply agreement sets the delivery dates.")
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))
    app = app_with(config, db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        screen.show_run(run_id)
        await settle(screen)
        await pilot.press("f8")
        await until(lambda: bool(screen.query(AcceptLabels)), pilot)
        assert screen.finish_bar.accepted_pair is not None
        await asyncio.to_thread(delete_pair, db, screen.finish_bar.accepted_pair)
        await pilot.press("4", "enter")
        await until(lambda: isinstance(app.screen, ErrorScreen), pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.error_title == PairNotFound.title
        await pilot.press("escape")
        assert app.screen is screen
        assert str(screen.query_one("#ws-status", Static).render()) == f"Stopped: {PairNotFound.title}."
        assert screen.query(AcceptLabels)  # still there: Enter again, or Esc to give up
