"""The working copies' only SQL: the edited text of a run and its cursor, its versions, the last run open.

A save is one transaction, so a SIGKILL between two saves loses nothing that was saved. Every save
also keeps a short history of the text (``versions``): a new version at most once a minute while he
types, and always before a save that throws most of the text away, so the state before a
select-all-and-delete, or before a version is restored, can be had back.

Plain blocking functions over SQLite: the workstation calls them from thread workers.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from drafting.drafts import schema as drafts_schema
from workspace.database import session

VERSION_EVERY_S = 60.0  # while typing, the latest version is updated in place for this long
VERSIONS_KEPT = 30  # per run; the oldest go first
SHRINK = 0.5  # a save keeping less than this share of the text starts a new version


@dataclass(frozen=True)
class SavedDraft:
    """The attorney's text of a run as last saved, with where his cursor was."""

    run_id: int
    text: str
    cursor: tuple[int, int]
    saved_at: str


@dataclass(frozen=True)
class Version:
    id: int
    run_id: int
    text: str
    saved_at: str


def save(
    database_file: Path,
    run_id: int,
    text: str,
    cursor: tuple[int, int],
    *,
    new_version: bool = False,
    previous: str = "",
) -> str | None:
    """Store the edited text of ``run_id``, keep it in the version history, and mark the run as the one
    last open (one transaction). Returns the text it replaced (``previous``, the model's draft, when
    nothing was saved yet) when this one is empty or much shorter, so the screen can say so: the
    replaced text stays restorable as a version (or as the model's draft). ``new_version``
    keeps ``text`` as a version of its own (a restored one), so the state it replaced stays listed."""
    with session(database_file, drafts_schema.SCHEMA) as db:
        replaced = _load(db, run_id)
        _keep_version(db, run_id, text, new=new_version)
        db.execute(
            """INSERT INTO workstation_drafts (run_id, text, cursor_row, cursor_col, saved_at)
               VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (run_id) DO UPDATE SET text = excluded.text, cursor_row = excluded.cursor_row,
                   cursor_col = excluded.cursor_col, saved_at = excluded.saved_at""",
            (run_id, text, cursor[0], cursor[1], datetime.now(UTC).isoformat()),
        )
        _remember_run(db, run_id)
    before = replaced.text if replaced is not None else previous
    return before if before.strip() and _shrunk(before, text) else None


def _shrunk(before: str, after: str) -> bool:
    return len(after.strip()) < SHRINK * len(before.strip())


def _keep_version(db: sqlite3.Connection, run_id: int, text: str, *, new: bool = False) -> None:
    now = datetime.now(UTC)
    latest = db.execute(
        "SELECT id, text, saved_at FROM workstation_draft_versions WHERE run_id = ? ORDER BY id DESC LIMIT 1",
        (run_id,),
    ).fetchone()
    if latest is not None and latest["text"] == text:
        return
    fresh = (
        latest is not None
        and (now - datetime.fromisoformat(latest["saved_at"])).total_seconds() < VERSION_EVERY_S
    )
    if fresh and not new and not _shrunk(latest["text"], text):
        db.execute(
            "UPDATE workstation_draft_versions SET text = ?, saved_at = ? WHERE id = ?",
            (text, now.isoformat(), latest["id"]),
        )
        return
    db.execute(
        "INSERT INTO workstation_draft_versions (run_id, text, saved_at) VALUES (?, ?, ?)",
        (run_id, text, now.isoformat()),
    )
    db.execute(
        """DELETE FROM workstation_draft_versions WHERE run_id = ? AND id NOT IN (
               SELECT id FROM workstation_draft_versions WHERE run_id = ? ORDER BY id DESC LIMIT ?)""",
        (run_id, run_id, VERSIONS_KEPT),
    )


def versions(database_file: Path, run_id: int) -> list[Version]:
    """The kept states of the attorney's text of ``run_id``, newest first."""
    with session(database_file, drafts_schema.SCHEMA) as db:
        rows = db.execute(
            "SELECT id, run_id, text, saved_at FROM workstation_draft_versions WHERE run_id = ? ORDER BY id DESC",
            (run_id,),
        ).fetchall()
    return [Version(r["id"], r["run_id"], r["text"], r["saved_at"]) for r in rows]


def _remember_run(db: sqlite3.Connection, run_id: int) -> None:
    db.execute(
        "INSERT INTO workstation_state (key, value) VALUES ('last_run', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (str(run_id),),
    )


def set_last_run(database_file: Path, run_id: int) -> None:
    """Mark ``run_id`` as the run open, so the next start reopens it."""
    with session(database_file, drafts_schema.SCHEMA) as db:
        _remember_run(db, run_id)


def last_run(database_file: Path) -> int | None:
    """The run open when the workstation last closed, or None (no database, or nothing opened yet)."""
    if not database_file.exists():
        return None
    with session(database_file, drafts_schema.SCHEMA) as db:
        row = db.execute("SELECT value FROM workstation_state WHERE key = 'last_run'").fetchone()
    return int(row[0]) if row else None


def load(database_file: Path, run_id: int) -> SavedDraft | None:
    """The attorney's saved text of ``run_id``, or None when he has not edited it."""
    with session(database_file, drafts_schema.SCHEMA) as db:
        return _load(db, run_id)


def _load(db: sqlite3.Connection, run_id: int) -> SavedDraft | None:
    row = db.execute(
        "SELECT run_id, text, cursor_row, cursor_col, saved_at FROM workstation_drafts WHERE run_id = ?",
        (run_id,),
    ).fetchone()
    if row is None:
        return None
    return SavedDraft(row["run_id"], row["text"], (row["cursor_row"], row["cursor_col"]), row["saved_at"])
