"""The SQLite database file: opening it, sessions, and the migrations each room brings.

Every room that keeps data owns two modules: ``schema.py`` (its tables, as ordered, named
migrations) and ``store.py`` (its only SQL). A store opens the database with
``session(path, SCHEMA)``, which brings that room's tables, and those of the rooms it
``requires`` (its foreign keys point there), up to date before anything is read or written.
This module knows no room: the rooms hand it their schemas, so the workspace stays the lowest
layer.

Migrations are plain functions applied in order and recorded by name in ``_migrations``
(the shape simonw/llm uses), so an older database is brought forward step by step and a newer
chambers never re-runs a step. A name is the room and the step's order within it
(``evidence.004_quoted_shingles``). Append new steps at the end of a room's list; never edit
or reorder one that has shipped. A step that chambers once recorded under another name lists
that name in ``replaces``: a database that has it is marked as having the step, without
running it again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from workspace.errors import ChambersError

Connection = sqlite3.Connection  # what stores and schemas name, so only they and this module see sqlite3
Apply = Callable[[Connection], None]


@dataclass(frozen=True)
class Migration:
    """One schema step of a room: ``name`` is ``room.NNN_what``."""

    name: str
    apply: Apply
    replaces: tuple[str, ...] = ()  # its names in databases an older chambers wrote (m101_evidence_matters)


@dataclass(frozen=True)
class Schema:
    """A room's tables: its migrations in order, and the schemas its tables refer to."""

    room: str
    migrations: tuple[Migration, ...]
    requires: tuple[Schema, ...] = ()

    def with_requirements(self) -> list[Schema]:
        """This schema and everything it requires, each once, the required ones first."""
        ordered: list[Schema] = []
        for required in self.requires:
            ordered += [s for s in required.with_requirements() if s not in ordered]
        return [*ordered, self]


class DatabaseError(ChambersError):
    title = "The chambers database cannot be opened"


def _opened(path: Path, exc: sqlite3.DatabaseError) -> DatabaseError:
    return DatabaseError(
        f"{path} could not be opened as a chambers database ({exc}). If it is damaged, "
        "move it aside and chambers will start a new one; keep the old file for the audit trail."
    )


def connect(path: Path, *schemas: Schema) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` with the tables of ``schemas`` up to date.

    Prefer :func:`session`, which also commits and closes; this is for a caller that keeps one
    connection for a long job (an ingest). At least one schema is required: opened with none, a new
    database would have no tables and an old one would miss its newer steps, without a word.
    """
    if not schemas:
        raise TypeError("connect() needs the schema of the room that opens the database")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=10)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        for schema in schemas:
            migrate(db, schema)
    except sqlite3.DatabaseError as exc:
        raise _opened(path, exc) from exc
    return db


def connect_readonly(path: Path) -> sqlite3.Connection:
    """Open the existing database at ``path`` for reading only: nothing is created or migrated.

    The ``file:`` URI comes from ``Path.as_uri``, which escapes ``?``, ``#`` and ``%`` in the path.
    """
    if not path.exists():
        raise DatabaseError(
            f"There is no chambers database at {path} yet: nothing has been stored. Create a matter "
            "first (`chambers matter new NAME --sources DIR`), or check CHAMBERS_HOME.",
            title="No chambers database yet",
        )
    try:
        db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=10)
        db.row_factory = sqlite3.Row
    except sqlite3.DatabaseError as exc:
        raise _opened(path, exc) from exc
    return db


@contextmanager
def session(path: Path, *schemas: Schema, readonly: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection for one piece of work: committed when the block ends, rolled back when it
    raises, closed either way. ``readonly`` opens an existing file without writing to it."""
    db = connect_readonly(path) if readonly else connect(path, *schemas)
    try:
        yield db
        db.commit()
    except BaseException:
        db.rollback()
        raise
    finally:
        db.close()


def migrate(db: sqlite3.Connection, schema: Schema) -> list[str]:
    """Apply the steps of ``schema`` (and of the schemas it requires) not yet recorded; returns
    the names applied. A step recorded under a name it ``replaces`` is recorded, not re-run."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    steps = [m for s in schema.with_requirements() for m in s.migrations]
    if _recorded(db) >= {m.name for m in steps}:
        return []
    applied = []
    for step in steps:
        db.execute("BEGIN IMMEDIATE")  # one writer migrates at a time; each step all or nothing
        try:
            done = _recorded(db)  # read under the lock: another process may have just done it
            if step.name not in done:
                if not (step.replaces and set(step.replaces) <= done):
                    step.apply(db)
                    applied.append(step.name)
                db.execute(
                    "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                    (step.name, _applied_at(db, step) or datetime.now(UTC).isoformat()),
                )
            db.commit()
        except BaseException:
            db.rollback()
            raise
    return applied


def _recorded(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM _migrations")}


def _applied_at(db: sqlite3.Connection, step: Migration) -> str | None:
    """When the step was applied under the name it replaces (so the record keeps its date)."""
    if not step.replaces:
        return None
    marks = ",".join("?" * len(step.replaces))
    row = db.execute(
        f"SELECT max(applied_at) FROM _migrations WHERE name IN ({marks})", step.replaces
    ).fetchone()
    return str(row[0]) if row and row[0] else None
