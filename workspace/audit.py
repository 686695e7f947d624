"""The audit trail: exactly what was sent to which server, and what came back.

Servers batch requests, so even temperature 0 with a fixed seed does not
reproduce an output; a legal audit trail therefore keeps the messages
themselves, the model and server build, the sampling, the timings and the
outcome of every model call, including cancelled and failed ones.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workspace import schema as workspace_schema
from workspace.database import connect


def messages_sha256(messages: list[dict[str, Any]]) -> str:
    """A stable hash of the messages (canonical JSON), to find identical calls."""
    canonical = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class AuditRecord:
    backend: str
    url: str
    messages: list[dict[str, Any]]
    request: dict[str, Any]
    sampling: dict[str, Any]
    role: str | None = None
    model: str | None = None
    server_build: str | None = None
    started_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    finished_at: str | None = None
    response_text: str = ""
    reasoning_text: str = ""
    timings: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None
    outcome: str = "started"  # completed | cancelled | failed | refused
    error: str | None = None
    checked_ip: str | None = None  # the address the policy checked; the request went there and nowhere else


class AuditLog:
    """Appends audit records to the database.

    Each write opens its own short connection, so a record can be written from
    any thread (Textual workers, asyncio.to_thread) without sharing a handle.
    """

    def __init__(self, database_file: Path) -> None:
        self.database_file = database_file

    def record(self, rec: AuditRecord) -> int:
        db = connect(self.database_file, workspace_schema.SCHEMA)
        try:
            with db:
                cur = db.execute(
                    """
                    INSERT INTO audit (started_at, finished_at, backend, role, url, model,
                        server_build, sampling_json, request_json, messages_sha256,
                        messages_json, response_text, reasoning_text, timings_json,
                        usage_json, outcome, error, checked_ip)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    (
                        rec.started_at,
                        rec.finished_at or datetime.now(UTC).isoformat(),
                        rec.backend,
                        rec.role,
                        rec.url,
                        rec.model,
                        rec.server_build,
                        json.dumps(rec.sampling, sort_keys=True),
                        json.dumps(rec.request, sort_keys=True, ensure_ascii=False),
                        messages_sha256(rec.messages),
                        json.dumps(rec.messages, ensure_ascii=False),
                        rec.response_text,
                        rec.reasoning_text,
                        json.dumps(rec.timings) if rec.timings is not None else None,
                        json.dumps(rec.usage) if rec.usage is not None else None,
                        rec.outcome,
                        rec.error,
                        rec.checked_ip,
                    ),
                )
                return int(cur.lastrowid or 0)
        finally:
            db.close()

    def recent(self, limit: int = 50) -> list[sqlite3.Row]:
        db = connect(self.database_file, workspace_schema.SCHEMA)
        try:
            return list(db.execute("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,)))
        finally:
            db.close()
