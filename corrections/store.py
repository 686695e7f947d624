"""The corrections room's tables: pairs and their paragraph sub-pairs, party names, trained adapters.

Every SQL statement of the room is here, and each function hands back dataclasses. Pairs are read in
batches, so memory stays flat however many there are; an export reads through one ``ExportReader``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corrections import schema as corrections_schema
from corrections.errors import CorrectionsError, PairNotFound
from corrections.filters import PairFilters
from corrections.model import AdapterRecord, CorrectionInput, PairRow, RatioRow, StoredPair
from corrections.redline import Redline, word_diff
from workspace.database import session

__all__ = ["PairFilters", "delete_pair", "get_pair", "list_pairs", "models_and_tasks", "set_excluded"]

STREAM_BATCH = 500  # rows fetched at a time: memory stays flat however many pairs there are
PAIR_COLUMNS = ", ".join(f.name for f in fields(PairRow))  # PairRow's fields are the columns, in order


def _session(db_path: Path) -> AbstractContextManager[sqlite3.Connection]:
    return session(db_path, corrections_schema.SCHEMA)


def _paragraph(seq: int, draft: str, final: str, edit_ratio: float) -> dict[str, object]:
    return {"seq": seq, "draft": draft, "final": final, "edit_ratio": edit_ratio}


# --- pairs ---


def accepted_finals(db_path: Path) -> list[str]:
    """The final texts of the pairs not excluded, oldest first: what the attorney really writes."""
    if not db_path.exists():
        return []  # nothing was ever saved; none is created just to find that out
    with _session(db_path) as db:
        rows = db.execute("SELECT final FROM corrections_pairs WHERE excluded = 0 ORDER BY accepted_at, id")
        return [str(r[0]) for r in rows]


def _pair_rows(db: sqlite3.Connection) -> Iterator[PairRow]:
    cur = db.execute(f"SELECT {PAIR_COLUMNS} FROM corrections_pairs ORDER BY id")
    while rows := cur.fetchmany(STREAM_BATCH):
        yield from (PairRow.of(r) for r in rows)


def _paragraphs_of(db: sqlite3.Connection, pair_id: int) -> list[dict[str, object]]:
    return [
        _paragraph(*r)
        for r in db.execute(
            "SELECT seq, draft, final, edit_ratio FROM corrections_paragraphs WHERE pair_id = ? ORDER BY seq",
            (pair_id,),
        )
    ]


def iter_pairs(db_path: Path, *, with_paragraphs: bool = False) -> Iterator[StoredPair]:
    """Every pair in capture order, fetched in batches."""
    with _session(db_path) as db:
        for row in _pair_rows(db):
            pair = row.pair()
            if with_paragraphs:
                pair.paragraphs.extend(_paragraphs_of(db, pair.id))
            yield pair


def list_pairs(db_path: Path, filters: PairFilters | None = None, limit: int = 500) -> list[StoredPair]:
    """The newest pairs that pass ``filters`` (excluded ones included unless filtered), newest first."""
    filters = filters or PairFilters(include_excluded=True)
    found = [p for p in iter_pairs(db_path) if filters.reason_left_out(p) is None]
    return found[::-1][:limit]


def _not_found(pair_id: int) -> PairNotFound:
    return PairNotFound(
        f"There is no correction pair number {pair_id}. `chambers corrections list` shows them."
    )


def get_pair(db_path: Path, pair_id: int) -> StoredPair:
    with _session(db_path) as db:
        row = db.execute(f"SELECT {PAIR_COLUMNS} FROM corrections_pairs WHERE id = ?", (pair_id,)).fetchone()
        if row is None:
            raise _not_found(pair_id)
        pair = PairRow.of(row).pair()
        pair.paragraphs.extend(_paragraphs_of(db, pair_id))
        return pair


def set_excluded(db_path: Path, pair_id: int, excluded: bool) -> None:
    """Keep a pair but leave it out of every export (a draft he does not want to teach from)."""
    _change(
        db_path, pair_id, "UPDATE corrections_pairs SET excluded = ? WHERE id = ?", (int(excluded), pair_id)
    )


def delete_pair(db_path: Path, pair_id: int) -> None:
    """Remove a pair and its paragraph sub-pairs for good."""
    _change(db_path, pair_id, "DELETE FROM corrections_pairs WHERE id = ?", (pair_id,))


def _change(db_path: Path, pair_id: int, sql: str, params: tuple[object, ...]) -> None:
    with _session(db_path) as db:
        if db.execute(sql, params).rowcount == 0:
            raise _not_found(pair_id)


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
        db_path,
        pair_id,
        "UPDATE corrections_pairs SET rating = ?, rationale = ?, tags_json = ? WHERE id = ?",
        (rating, line, json.dumps(kept[:MAX_TAGS]) if kept else None, pair_id),
    )
    return kept[:MAX_TAGS]


def models_and_tasks(db_path: Path) -> tuple[list[str], list[str]]:
    """The models and task types that have pairs: the browser's filter choices."""
    with _session(db_path) as db:
        models = [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT model FROM corrections_pairs WHERE model IS NOT NULL ORDER BY 1"
            )
        ]
        tasks = [r[0] for r in db.execute("SELECT DISTINCT task_type FROM corrections_pairs ORDER BY 1")]
        return models, tasks


def add_pair(db_path: Path, item: CorrectionInput, digest: str, line: Redline) -> tuple[int, bool]:
    """Store ``item`` and its paragraph sub-pairs under ``digest``, once: (its id, whether it was new)."""
    sources = [
        {"message": index, **asdict(source)}
        for index, message in enumerate(item.messages)
        for source in message.sources
    ]
    with _session(db_path) as db:
        existing = db.execute("SELECT id FROM corrections_pairs WHERE pair_sha256 = ?", (digest,)).fetchone()
        if existing is not None:
            return int(existing[0]), False
        with db:
            cur = db.execute(
                """INSERT INTO corrections_pairs (pair_sha256, matter, task_type, instructions, messages_json,
                       sources_json, draft, final, backend, model, server_build, run_id, trigger, drafted_at,
                       accepted_at, captured_at, draft_words, final_words, words_added, words_removed,
                       edit_ratio, adapter, adapter_sha256, origin)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    digest,
                    item.matter,
                    item.task_type,
                    item.instructions,
                    json.dumps([m.as_chat() for m in item.messages], ensure_ascii=False),
                    json.dumps(sources, ensure_ascii=False),
                    item.draft,
                    item.final,
                    item.backend,
                    item.model,
                    item.server_build,
                    item.run_id,
                    item.trigger,
                    item.drafted_at,
                    item.accepted_at,
                    datetime.now(UTC).isoformat(),
                    line.draft_words,
                    line.final_words,
                    line.words_added,
                    line.words_removed,
                    line.edit_ratio,
                    item.adapter,
                    item.adapter_sha256,
                    item.origin,
                ),
            )
            pair_id = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT INTO corrections_paragraphs (pair_id, seq, draft, final, edit_ratio) VALUES (?, ?, ?, ?, ?)",
                [
                    (pair_id, seq, p.draft, p.final, word_diff(p.draft, p.final).edit_ratio)
                    for seq, p in enumerate(line.paragraph_pairs, start=1)
                ],
            )
    return pair_id, True


def edit_ratios(db_path: Path) -> Iterator[RatioRow]:
    """Every pair's model, task, adapter and edit ratio, in order of acceptance (for the statistics)."""
    with _session(db_path) as db:
        cur = db.execute(
            "SELECT model, task_type, accepted_at, edit_ratio, adapter, trigger FROM corrections_pairs "
            "ORDER BY accepted_at"
        )
        while rows := cur.fetchmany(2000):
            yield from (
                RatioRow(m, t, str(at), float(ratio), a, trig == "import")
                for m, t, at, ratio, a, trig in rows
            )


# --- party names ---


def _parties(db: sqlite3.Connection, matter: str) -> dict[str, str]:
    rows = db.execute(
        "SELECT name, placeholder FROM corrections_parties WHERE matter = ? ORDER BY placeholder, name",
        (matter,),
    )
    return {str(name): str(placeholder) for name, placeholder in rows}


def party_list(db_path: Path, matter: str) -> dict[str, str]:
    """The matter's party names and their placeholders."""
    with _session(db_path) as db:
        return _parties(db, matter)


def add_party_name(db_path: Path, matter: str, name: str, placeholder: str) -> None:
    with _session(db_path) as db:
        db.execute(
            "INSERT INTO corrections_parties (matter, name, placeholder, added_at) VALUES (?, ?, ?, ?)",
            (matter, name, placeholder, datetime.now(UTC).isoformat()),
        )


# --- trained adapters ---


def add_adapter(db_path: Path, record: AdapterRecord) -> int | None:
    """Register a trained adapter with its training and held-out pairs; None when the name is taken."""
    with _session(db_path) as db:
        try:
            cur = db.execute(
                """INSERT INTO corrections_adapters (name, role, backend, base_model, base_path,
                   base_sha256, architecture, file, file_sha256, settings_json, loss_curve_json,
                   trained_tokens, train_seconds, eval_json, created_at, base_size)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    record.name,
                    record.role,
                    record.backend,
                    record.base_model,
                    record.base_path,
                    record.base_sha256,
                    record.architecture,
                    record.file,
                    record.file_sha256,
                    json.dumps(record.settings),
                    json.dumps(record.loss_curve),
                    record.trained_tokens,
                    record.train_seconds,
                    json.dumps(record.eval) if record.eval else None,
                    record.created_at,
                    record.base_size,
                ),
            )
        except sqlite3.IntegrityError:
            return None
        adapter_id = int(cur.lastrowid or 0)
        db.executemany(
            "INSERT INTO corrections_adapter_pairs (adapter_id, pair_id, split) VALUES (?, ?, ?)",
            [(adapter_id, p, "train") for p in record.train_pair_ids]
            + [(adapter_id, p, "held_out") for p in record.held_out_pair_ids],
        )
    return adapter_id


_ADAPTER_COLUMNS = (
    "id, name, role, backend, base_model, base_path, base_sha256, architecture, file, file_sha256, "
    "settings_json, loss_curve_json, trained_tokens, train_seconds, eval_json, created_at, stale_reason, base_size"
)


def all_adapters(db_path: Path) -> list[AdapterRecord]:
    with _session(db_path) as db:
        rows = db.execute(f"SELECT {_ADAPTER_COLUMNS} FROM corrections_adapters ORDER BY id").fetchall()
        return [_adapter(db, row) for row in rows]


def adapter_named(db_path: Path, name: str) -> AdapterRecord | None:
    with _session(db_path) as db:
        row = db.execute(
            f"SELECT {_ADAPTER_COLUMNS} FROM corrections_adapters WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else _adapter(db, row)


def set_adapter_eval(db_path: Path, name: str, scores: dict[str, Any]) -> None:
    with _session(db_path) as db:
        db.execute("UPDATE corrections_adapters SET eval_json = ? WHERE name = ?", (json.dumps(scores), name))


def remove_adapter(db_path: Path, name: str) -> None:
    with _session(db_path) as db:
        db.execute("DELETE FROM corrections_adapters WHERE name = ?", (name,))


def _adapter(db: sqlite3.Connection, row: tuple[Any, ...]) -> AdapterRecord:
    splits: dict[str, list[int]] = {"train": [], "held_out": []}
    for pair_id, split in db.execute(
        "SELECT pair_id, split FROM corrections_adapter_pairs WHERE adapter_id = ? ORDER BY pair_id",
        (row[0],),
    ):
        splits[split].append(int(pair_id))
    col = dict(zip(_ADAPTER_COLUMNS.split(", "), row, strict=True))
    return AdapterRecord(
        id=int(col["id"]),
        **{k: col[k] for k in ("name", "role", "backend", "base_model", "base_path", "base_sha256")},
        **{k: col[k] for k in ("architecture", "file", "file_sha256", "created_at", "stale_reason")},
        settings=json.loads(col["settings_json"]),
        loss_curve=json.loads(col["loss_curve_json"]),
        trained_tokens=int(col["trained_tokens"]),
        train_seconds=float(col["train_seconds"]),
        train_pair_ids=splits["train"],
        held_out_pair_ids=splits["held_out"],
        eval=json.loads(col["eval_json"]) if col["eval_json"] else None,
        base_size=None if col["base_size"] is None else int(col["base_size"]),
    )


# --- one export's reads ---


@dataclass
class ExportReader:
    """One connection for a whole export: the pairs in id order, their sub-pairs beside them, party names.

    The sub-pairs are read in one ordered pass beside the pairs (not one query per pair).
    """

    db: sqlite3.Connection
    _sub_pairs: sqlite3.Cursor | None = None
    _pending: tuple[Any, ...] | None = None
    _parties: dict[str, dict[str, str]] = field(default_factory=dict)

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM corrections_pairs").fetchone()[0])

    def pairs(self) -> Iterator[PairRow]:
        return _pair_rows(self.db)

    def paragraphs_of(self, pair_id: int) -> list[dict[str, object]]:
        """The sub-pairs of ``pair_id``; asked in increasing pair order, as the pairs come."""
        if self._sub_pairs is None:
            self._sub_pairs = self.db.execute(
                "SELECT pair_id, seq, draft, final, edit_ratio FROM corrections_paragraphs ORDER BY pair_id, seq"
            )
            self._pending = self._sub_pairs.fetchone()
        found: list[dict[str, object]] = []
        while self._pending is not None and self._pending[0] <= pair_id:
            if self._pending[0] == pair_id:
                found.append(_paragraph(*self._pending[1:]))
            self._pending = self._sub_pairs.fetchone()
        return found

    def parties(self, matter: str) -> dict[str, str]:
        return _parties(self.db, matter)


@contextmanager
def export_reader(db_path: Path) -> Iterator[ExportReader]:
    with _session(db_path) as db:
        yield ExportReader(db)
