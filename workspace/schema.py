"""The workspace's own table: the audit trail of every model call (its SQL is in ``workspace/store.py``).

Every room's schema requires this one, so any store that opens the database brings it up to date.
"""

from __future__ import annotations

from workspace.database import Connection, Migration, Schema


def audit(db: Connection) -> None:
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


def audit_checked_ip(db: Connection) -> None:
    """The address the policy checked and the call went to: the URL's name alone can hide it."""
    db.execute("ALTER TABLE audit ADD COLUMN checked_ip TEXT")


SCHEMA = Schema(
    "workspace",
    (
        Migration("workspace.001_audit", audit, replaces=("m001_audit",)),
        Migration("workspace.002_audit_checked_ip", audit_checked_ip, replaces=("m010_audit_checked_ip",)),
    ),
)
