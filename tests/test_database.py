"""The SQLite database: WAL, ordered named migrations, clear errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from backends.fleet import schema as fleet_schema
from corrections import schema as corrections_schema
from drafting.drafts import schema as drafts_schema
from exhibits import schema as exhibits_schema
from workspace import database
from workspace import schema as workspace_schema
from workspace.audit import AuditLog, AuditRecord, messages_sha256
from workspace.database import DatabaseError, Migration, Schema, connect

EVERY_ROOM = (corrections_schema.SCHEMA, drafts_schema.SCHEMA, exhibits_schema.SCHEMA, fleet_schema.SCHEMA)


def test_new_database_uses_wal_and_records_migrations(tmp_path: Path) -> None:
    db = connect(tmp_path / "c.sqlite3", *EVERY_ROOM)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [r[0] for r in db.execute("SELECT name FROM _migrations ORDER BY rowid")]
    wanted = [m.name for room in EVERY_ROOM for s in room.with_requirements() for m in s.migrations]
    assert names == list(dict.fromkeys(wanted))


def test_older_database_gets_only_the_new_migrations(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    connect(path, workspace_schema.SCHEMA).close()  # today's schema: the "older" one for the next release

    def add_note(db: sqlite3.Connection) -> None:
        db.execute("ALTER TABLE audit ADD COLUMN note TEXT")

    newer = Schema(
        "workspace", (*workspace_schema.SCHEMA.migrations, Migration("workspace.999_add_note", add_note))
    )
    db = connect(path, newer)
    assert "note" in [r[1] for r in db.execute("PRAGMA table_info(audit)")]
    assert database.migrate(db, newer) == []  # nothing is applied twice


def test_corrupt_database_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatabaseError) as info:
        connect(path, workspace_schema.SCHEMA)
    assert str(path) in info.value.message and "move it aside" in info.value.message


def test_audit_record_round_trip(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "c.sqlite3")
    messages = [{"role": "user", "content": "Summarise the lease."}]
    log.record(
        AuditRecord(
            backend="b",
            url="http://127.0.0.1:1",
            messages=messages,
            request={"stream": True},
            sampling={"temperature": 0.0},
            response_text="ok",
            outcome="completed",
        )
    )
    (row,) = log.recent()
    assert row.messages_sha256 == messages_sha256(messages)
    assert row.outcome == "completed" and row.response_text == "ok"
