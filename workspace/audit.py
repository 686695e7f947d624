"""The audit trail: exactly what was sent to which server, and what came back.

Servers batch requests, so even temperature 0 with a fixed seed does not
reproduce an output; a legal audit trail therefore keeps the messages
themselves, the model and server build, the sampling, the timings and the
outcome of every model call, including cancelled and failed ones.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workspace.store import AuditRow, add_audit_row, recent_audit_rows


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
    """Appends audit records to the database (through ``workspace.store``).

    Each write opens its own short session, so a record can be written from
    any thread (Textual workers, asyncio.to_thread) without sharing a handle.
    """

    def __init__(self, database_file: Path) -> None:
        self.database_file = database_file

    def record(self, rec: AuditRecord) -> int:
        return add_audit_row(
            self.database_file,
            AuditRow(
                id=0,
                started_at=rec.started_at,
                finished_at=rec.finished_at or datetime.now(UTC).isoformat(),
                backend=rec.backend,
                role=rec.role,
                url=rec.url,
                model=rec.model,
                server_build=rec.server_build,
                sampling_json=json.dumps(rec.sampling, sort_keys=True),
                request_json=json.dumps(rec.request, sort_keys=True, ensure_ascii=False),
                messages_sha256=messages_sha256(rec.messages),
                messages_json=json.dumps(rec.messages, ensure_ascii=False),
                response_text=rec.response_text,
                reasoning_text=rec.reasoning_text,
                timings_json=json.dumps(rec.timings) if rec.timings is not None else None,
                usage_json=json.dumps(rec.usage) if rec.usage is not None else None,
                outcome=rec.outcome,
                error=rec.error,
                checked_ip=rec.checked_ip,
            ),
        )

    def recent(self, limit: int = 50) -> list[AuditRow]:
        """The latest ``limit`` calls, newest first."""
        return recent_audit_rows(self.database_file, limit)
