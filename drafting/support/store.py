"""The support check's tables: each verified draft's pairs, and the attorney's marks on judgements.

Both are append-only: a later run of the same draft adds its pairs after the earlier ones, and
``pairs_of`` reads the latest run's. A mark says the support role judged a pair wrongly; it keeps
the pair and the judgement as they were, so the corrections export can hand them on as training.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from drafting import schema as drafting_schema
from workspace.database import session


def _session(db_path: Path) -> AbstractContextManager[sqlite3.Connection]:
    return session(db_path, drafting_schema.SCHEMA)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def pair_key(pair: dict[str, Any]) -> str:
    """A pair's identity in its draft: where its citation stands, and what it cites."""
    return f"{pair['cite_start']}:{pair['cite']}"


def save_pairs(
    db_path: Path, matter: str, draft_sha256: str, pairs: list[dict[str, Any]], run_id: str = ""
) -> None:
    at = _now()
    with _session(db_path) as db:
        db.executemany(
            "INSERT INTO support_pairs (matter, draft_sha256, run_id, position, pair_json, at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (matter, draft_sha256, run_id or None, n, json.dumps(p, sort_keys=True), at)
                for n, p in enumerate(pairs)
            ],
        )


def pairs_of(db_path: Path, matter: str, draft_sha256: str) -> list[dict[str, Any]]:
    """The pairs of the latest run of the draft, in draft order."""
    with _session(db_path) as db:
        row = db.execute(
            "SELECT MAX(id) FROM support_pairs WHERE matter = ? AND draft_sha256 = ? AND position = 0",
            (matter, draft_sha256),
        ).fetchone()
        if row[0] is None:
            return []
        rows = db.execute(
            "SELECT pair_json FROM support_pairs WHERE matter = ? AND draft_sha256 = ? AND id >= ? ORDER BY position",
            (matter, draft_sha256, row[0]),
        ).fetchall()
    return [json.loads(r[0]) for r in rows]


@dataclass(frozen=True)
class Mark:
    pair_key: str
    pair: dict[str, Any]
    judgement: dict[str, Any]
    note: str
    at: str
    matter: str = ""


def mark_wrong(
    db_path: Path, matter: str, draft_sha256: str, pair: dict[str, Any], judgement: dict[str, Any], note: str
) -> Mark:
    """Record that the support role's ``judgement`` of ``pair`` is wrong, with the attorney's note."""
    mark = Mark(pair_key(pair), pair, judgement, note, _now(), matter)
    with _session(db_path) as db:
        db.execute(
            "INSERT INTO support_marks (matter, draft_sha256, pair_key, pair_json, judgement_json, note, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                matter,
                draft_sha256,
                mark.pair_key,
                json.dumps(pair, sort_keys=True),
                json.dumps(judgement),
                note,
                mark.at,
            ),
        )
    return mark


def marks_of(db_path: Path, matter: str | None = None) -> list[Mark]:
    """The marks of ``matter``, or of every matter, oldest first."""
    where, args = ("WHERE matter = ?", (matter,)) if matter is not None else ("", ())
    with _session(db_path) as db:
        rows = db.execute(
            f"SELECT pair_key, pair_json, judgement_json, note, at, matter FROM support_marks {where} ORDER BY id",
            args,
        ).fetchall()
    return [Mark(r[0], json.loads(r[1]), json.loads(r[2]), r[3], r[4], r[5]) for r in rows]
