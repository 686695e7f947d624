"""The labels F8 asks for (tui/accept_dialog.py), driven with Pilot over a real stored pair: one key
each, digits typed into the rationale are text and not a rating, Esc keeps nothing; and what they do to
the exports (the rating is KTO's label for the draft, the rationale is in the full record)."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Static, TextArea

from corrections.export import export
from corrections.store import get_pair, set_labels
from tests.corrections_data import DRAFT, FINAL, store
from tui.accept_dialog import AcceptLabels


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
