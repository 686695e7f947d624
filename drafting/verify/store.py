"""The verifier's own tables: the attorney's overrides and the citations he gave his opinions.

Both are keyed by what the evidence room names (a matter's name, a matter's id, a file's sha256);
the verifier asks evidence for those and never joins its tables.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from drafting import schema as drafting_schema
from workspace.database import session


@dataclass(frozen=True)
class StoredOverride:
    flag_key: str
    reason: str
    by: str
    at: str


@dataclass(frozen=True)
class GivenCitation:
    sha256: str  # of the opinion's file
    cite: str


def _session(db_path: Path) -> AbstractContextManager[sqlite3.Connection]:
    return session(db_path, drafting_schema.SCHEMA)


def add_override(
    db_path: Path,
    matter: str,
    draft_sha256: str,
    flag_key: str,
    flag_json: str,
    reason: str,
    by: str,
    at: str,
) -> None:
    """Append one override to the audit trail (the table is never updated or deleted from)."""
    with _session(db_path) as db:
        db.execute(
            "INSERT INTO verify_overrides (matter, draft_sha256, flag_key, flag_json, reason, by, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (matter, draft_sha256, flag_key, flag_json, reason, by, at),
        )


def overrides_of(db_path: Path, matter: str) -> list[StoredOverride]:
    """Every override recorded for ``matter``, oldest first (a later one for the same flag wins)."""
    with _session(db_path) as db:
        rows = db.execute(
            "SELECT flag_key, reason, by, at FROM verify_overrides WHERE matter = ? ORDER BY id", (matter,)
        ).fetchall()
    return [StoredOverride(r[0], r[1], r[2], r[3]) for r in rows]


def stored_citations(db_path: Path, matter_id: int) -> list[GivenCitation]:
    """The citations the attorney gave the opinions of a library (a matter), in the order given.

    Read-only, like the rest of what the verifier loads; a database older than this table has none.
    """
    with session(db_path, readonly=True) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'verify_authority_citations'").fetchone():
            return []
        rows = db.execute(
            "SELECT sha256, cite FROM verify_authority_citations WHERE matter_id = ? ORDER BY rowid",
            (matter_id,),
        ).fetchall()
    return [GivenCitation(r[0], r[1]) for r in rows]


def add_given_citations(db_path: Path, matter_id: int, sha256: str, cites: list[str], at: str) -> None:
    """Record that the library's file with this content is reported at ``cites`` (repeats are kept once)."""
    with _session(db_path) as db:
        db.executemany(
            "INSERT OR IGNORE INTO verify_authority_citations (matter_id, sha256, cite, added_at) "
            "VALUES (?, ?, ?, ?)",
            [(matter_id, sha256, cite, at) for cite in cites],
        )
