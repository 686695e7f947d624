"""The workstation's autosave: the edited draft and its cursor, written to the database.

The screen calls ``save`` from a thread worker at most ``DEBOUNCE_S`` after the last keystroke
and at every stage boundary, so a SIGKILL loses at most those seconds; ``load`` gives back what
reopening restores (the last run open, its edited text and the cursor). Plain functions over
SQLite, no Textual: the SIGKILL test drives them from a subprocess as the screen does.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from workspace.database import connect

DEBOUNCE_S = 2.0


@dataclass(frozen=True)
class Saved:
    run_id: int
    text: str
    cursor: tuple[int, int]
    saved_at: str


def save(database_file: Path, run_id: int, text: str, cursor: tuple[int, int]) -> None:
    """Store the edited text of ``run_id`` and mark it as the run last open (one transaction)."""
    db = connect(database_file)
    try:
        with db:
            db.execute(
                """INSERT INTO workstation_drafts (run_id, text, cursor_row, cursor_col, saved_at)
                   VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (run_id) DO UPDATE SET text = excluded.text, cursor_row = excluded.cursor_row,
                       cursor_col = excluded.cursor_col, saved_at = excluded.saved_at""",
                (run_id, text, cursor[0], cursor[1], datetime.now(UTC).isoformat()),
            )
            remember_run(db, run_id)
    finally:
        db.close()


def remember_run(db: sqlite3.Connection, run_id: int) -> None:
    db.execute(
        "INSERT INTO workstation_state (key, value) VALUES ('last_run', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (str(run_id),),
    )


def set_last_run(database_file: Path, run_id: int) -> None:
    db = connect(database_file)
    try:
        with db:
            remember_run(db, run_id)
    finally:
        db.close()


def last_run(database_file: Path) -> int | None:
    if not database_file.exists():
        return None
    db = connect(database_file)
    try:
        row = db.execute("SELECT value FROM workstation_state WHERE key = 'last_run'").fetchone()
    finally:
        db.close()
    return int(row[0]) if row else None


def load(database_file: Path, run_id: int) -> Saved | None:
    """The attorney's saved text of ``run_id``, or None when he has not edited it."""
    db = connect(database_file)
    try:
        row = db.execute(
            "SELECT run_id, text, cursor_row, cursor_col, saved_at FROM workstation_drafts WHERE run_id = ?",
            (run_id,),
        ).fetchone()
    finally:
        db.close()
    if row is None:
        return None
    return Saved(row["run_id"], row["text"], (row["cursor_row"], row["cursor_col"]), row["saved_at"])
