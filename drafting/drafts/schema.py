"""The workstation's drafts: the attorney's edited text of a run's draft with the cursor, its earlier
versions, and which run was open last. The rows belong to drafting runs, so this schema requires
drafting's."""

from __future__ import annotations

from drafting import schema as drafting_schema
from workspace.database import Connection, Migration, Schema


def drafts(db: Connection) -> None:
    """The workstation's autosave: the attorney's edited text of a run's draft, with the cursor, and the last run open."""
    db.execute(
        """
        CREATE TABLE workstation_drafts (
            run_id INTEGER PRIMARY KEY REFERENCES drafting_runs(id),
            text TEXT NOT NULL,
            cursor_row INTEGER NOT NULL DEFAULT 0,
            cursor_col INTEGER NOT NULL DEFAULT 0,
            saved_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE TABLE workstation_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def draft_versions(db: Connection) -> None:
    """Earlier states of the attorney's edited text of a run, so a deletion or a bad edit can be taken back."""
    db.execute(
        """
        CREATE TABLE workstation_draft_versions (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES drafting_runs(id),
            text TEXT NOT NULL,
            saved_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX workstation_draft_versions_run ON workstation_draft_versions (run_id, id)")


SCHEMA = Schema(
    "drafts",
    (
        Migration("drafts.001_drafts", drafts, replaces=("m701_workstation_drafts",)),
        Migration("drafts.002_draft_versions", draft_versions, replaces=("m710_workstation_draft_versions",)),
    ),
    requires=(drafting_schema.SCHEMA,),
)
