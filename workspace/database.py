"""The SQLite database: WAL mode and ordered, named migrations.

Migrations are plain functions applied in list order and recorded by name in
``_migrations`` (the shape simonw/llm uses), so an older database is brought
forward step by step and a newer chambers never re-runs a step. Append new
migrations at the end; never edit or reorder one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from workspace.errors import ChambersError

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_audit(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE audit (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            backend TEXT NOT NULL,
            role TEXT,
            url TEXT NOT NULL,
            model TEXT,
            server_build TEXT,
            sampling_json TEXT NOT NULL,
            request_json TEXT NOT NULL,
            messages_sha256 TEXT NOT NULL,
            messages_json TEXT NOT NULL,
            response_text TEXT NOT NULL,
            reasoning_text TEXT NOT NULL,
            timings_json TEXT,
            usage_json TEXT,
            outcome TEXT NOT NULL,
            error TEXT
        )
        """
    )
    db.execute("CREATE INDEX audit_started ON audit(started_at)")


class DatabaseError(ChambersError):
    title = "The chambers database cannot be opened"


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` and bring its schema up to date."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=10)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        migrate(db)
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(
            f"{path} could not be opened as a chambers database ({exc}). If it is damaged, "
            "move it aside and chambers will start a new one; keep the old file for the audit trail."
        ) from exc
    return db


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded; returns the names applied."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    applied = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        with db:  # one transaction per migration: all of it or none of it
            fn(db)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                (fn.__name__, datetime.now(UTC).isoformat()),
            )
        applied.append(fn.__name__)
    return applied
