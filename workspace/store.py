"""The workspace's store: the only SQL over its own table, the audit trail (``workspace/schema.py``).

Each call opens its own short session, so a record can be written from any thread (Textual workers,
``asyncio.to_thread``) without sharing a connection.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields
from pathlib import Path

from workspace import schema as workspace_schema
from workspace.database import session


@dataclass(frozen=True)
class AuditRow:
    """One model call as stored: the JSON columns are kept as the text that was written."""

    id: int
    started_at: str
    finished_at: str | None
    backend: str
    role: str | None
    url: str
    model: str | None
    server_build: str | None
    sampling_json: str
    request_json: str
    messages_sha256: str
    messages_json: str
    response_text: str
    reasoning_text: str
    timings_json: str | None
    usage_json: str | None
    outcome: str
    error: str | None
    checked_ip: str | None


_COLUMNS = [f.name for f in fields(AuditRow)]


def add_audit_row(database_file: Path, row: AuditRow) -> int:
    """Append one row (its ``id`` is ignored); returns the id it was given."""
    values = {name: getattr(row, name) for name in _COLUMNS if name != "id"}
    with session(database_file, workspace_schema.SCHEMA) as db:
        cur = db.execute(
            f"INSERT INTO audit ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
            list(values.values()),
        )
        return int(cur.lastrowid or 0)


def recent_audit_rows(database_file: Path, limit: int = 50) -> list[AuditRow]:
    """The latest ``limit`` rows, newest first."""
    with session(database_file, workspace_schema.SCHEMA) as db:
        rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM audit ORDER BY id DESC LIMIT ?", (limit,))
        return [_row(r) for r in rows]


def _row(r: sqlite3.Row) -> AuditRow:
    return AuditRow(**{name: r[name] for name in _COLUMNS})
