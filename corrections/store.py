"""Reading, excluding and deleting stored pairs, and the filters the exports and the browser share.

Filters are checked in Python, one reason at a time, rather than in SQL: the export's summary must say
how many pairs each filter left out, and a streamed pass over every row is cheap.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from corrections.errors import CorrectionsError, PairNotFound
from corrections.model import StoredPair
from workspace.database import connect

STREAM_BATCH = 500  # rows fetched at a time: memory stays flat however many pairs there are


@dataclass(frozen=True)
class PairFilters:
    task: str | None = None
    model: str | None = None
    since: str | None = None  # ISO date or timestamp; compared with the accepted time
    min_edit_ratio: float | None = None
    matter: str | None = None
    include_excluded: bool = False

    def reason_left_out(self, pair: StoredPair) -> str | None:
        """Why ``pair`` does not pass, as the summary's key; None when it passes."""
        return self.reason(
            pair.excluded, pair.task_type, pair.model, pair.matter, pair.accepted_at, pair.edit_ratio
        )

    def reason(
        self, excluded: bool, task_type: str, model: str | None, matter: str | None, accepted_at: str,
        edit_ratio: float,
    ) -> str | None:  # fmt: skip
        """The same check on bare column values (the export's fast path never builds a StoredPair)."""
        if excluded and not self.include_excluded:
            return "excluded by you"
        if self.task is not None and task_type != self.task:
            return f"task is not {self.task}"
        if self.model is not None and model != self.model:
            return f"model is not {self.model}"
        if self.matter is not None and matter != self.matter:
            return f"matter is not {self.matter}"
        if self.since is not None and accepted_at < self.since:
            return f"accepted before {self.since}"
        if self.min_edit_ratio is not None and edit_ratio < self.min_edit_ratio:
            return f"edit ratio below {self.min_edit_ratio:g}"
        return None


def iter_pairs(db: sqlite3.Connection, *, with_paragraphs: bool = False) -> Iterator[StoredPair]:
    """Every pair in capture order, fetched in batches."""
    cur = db.execute("SELECT * FROM corrections_pairs ORDER BY id")
    while rows := cur.fetchmany(STREAM_BATCH):
        for row in rows:
            pair = StoredPair.from_row(row)
            if with_paragraphs:
                pair.paragraphs.extend(paragraphs_of(db, pair.id))
            yield pair


def paragraphs_of(db: sqlite3.Connection, pair_id: int) -> list[dict[str, object]]:
    return [
        {"seq": r["seq"], "draft": r["draft"], "final": r["final"], "edit_ratio": r["edit_ratio"]}
        for r in db.execute(
            "SELECT seq, draft, final, edit_ratio FROM corrections_paragraphs WHERE pair_id = ? ORDER BY seq",
            (pair_id,),
        )
    ]


def count_pairs(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COUNT(*) FROM corrections_pairs").fetchone()[0])


def list_pairs(db_path: Path, filters: PairFilters | None = None, limit: int = 500) -> list[StoredPair]:
    """The newest pairs that pass ``filters`` (excluded ones included unless filtered), newest first."""
    filters = filters or PairFilters(include_excluded=True)
    db = connect(db_path)
    try:
        found = [p for p in iter_pairs(db) if filters.reason_left_out(p) is None]
    finally:
        db.close()
    return found[::-1][:limit]


def get_pair(db_path: Path, pair_id: int) -> StoredPair:
    db = connect(db_path)
    try:
        row = db.execute("SELECT * FROM corrections_pairs WHERE id = ?", (pair_id,)).fetchone()
        if row is None:
            raise PairNotFound(
                f"There is no correction pair number {pair_id}. `chambers corrections list` shows them."
            )
        pair = StoredPair.from_row(row)
        pair.paragraphs.extend(paragraphs_of(db, pair_id))
        return pair
    finally:
        db.close()


def set_excluded(db_path: Path, pair_id: int, excluded: bool) -> None:
    """Keep a pair but leave it out of every export (a draft he does not want to teach from)."""
    _change(
        db_path, pair_id, "UPDATE corrections_pairs SET excluded = ? WHERE id = ?", (int(excluded), pair_id)
    )


def delete_pair(db_path: Path, pair_id: int) -> None:
    """Remove a pair and its paragraph sub-pairs for good."""
    _change(db_path, pair_id, "DELETE FROM corrections_pairs WHERE id = ?", (pair_id,))


def _change(db_path: Path, pair_id: int, sql: str, params: tuple[object, ...]) -> None:
    db = connect(db_path)
    try:
        with db:
            if db.execute(sql, params).rowcount == 0:
                raise PairNotFound(
                    f"There is no correction pair number {pair_id}. `chambers corrections list` shows them."
                )
    finally:
        db.close()


MAX_RATIONALE_CHARS = 300
MAX_TAGS = 12


def set_labels(
    db_path: Path, pair_id: int, *, rating: int | None, rationale: str | None, tags: list[str]
) -> list[str]:
    """His labels for a pair at accept: a 1-5 rating of the model's draft, one line on why, tags;
    returns the tags as kept.

    The rationale is kept to one line (newlines become spaces) and tags are lower-case, unique and in
    the order given, so the same label typed twice is one."""
    if rating is not None and not 1 <= rating <= 5:
        raise CorrectionsError(
            f"A rating is 1 to 5, not {rating}. Press 1 (poor) to 5 (as he would write it).",
            title="No such rating",
        )
    line = " ".join((rationale or "").split())[:MAX_RATIONALE_CHARS] or None
    kept: list[str] = []
    for tag in tags:
        tag = " ".join(tag.split()).casefold()
        if tag and tag not in kept:
            kept.append(tag)
    _change(
        db_path, pair_id, "UPDATE corrections_pairs SET rating = ?, rationale = ?, tags_json = ? WHERE id = ?",
        (rating, line, json.dumps(kept[:MAX_TAGS]) if kept else None, pair_id),
    )  # fmt: skip
    return kept[:MAX_TAGS]


def models_and_tasks(db_path: Path) -> tuple[list[str], list[str]]:
    """The models and task types that have pairs: the browser's filter choices."""
    db = connect(db_path)
    try:
        models = [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT model FROM corrections_pairs WHERE model IS NOT NULL ORDER BY 1"
            )
        ]
        tasks = [r[0] for r in db.execute("SELECT DISTINCT task_type FROM corrections_pairs ORDER BY 1")]
        return models, tasks
    finally:
        db.close()
