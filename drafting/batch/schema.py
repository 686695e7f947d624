"""The batch queue's tables: batches, their jobs (one per row), and the rows that could not be read.

A job's run is a drafting run, so this schema requires drafting's."""

from __future__ import annotations

from drafting import schema as drafting_schema
from workspace.database import Connection, Migration, Schema


def batches(db: Connection) -> None:
    """A batch, its jobs, and the rows of its table that could not become jobs (by line number)."""
    db.execute(
        """
        CREATE TABLE batch_batches (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            matter TEXT NOT NULL,
            task TEXT NOT NULL,
            template TEXT NOT NULL,
            source_file TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE batch_jobs (
            id INTEGER PRIMARY KEY,
            batch_id INTEGER NOT NULL REFERENCES batch_batches(id) ON DELETE CASCADE,
            line_no INTEGER NOT NULL,
            row_name TEXT NOT NULL,
            fields_json TEXT NOT NULL,
            matter TEXT NOT NULL,
            task TEXT NOT NULL,
            instructions TEXT NOT NULL,
            state TEXT NOT NULL,
            run_id INTEGER REFERENCES drafting_runs(id),
            attempts INTEGER NOT NULL DEFAULT 0,
            error TEXT,
            started_at TEXT,
            finished_at TEXT,
            seconds REAL,
            tokens INTEGER,
            decode_tok_s REAL,
            concurrency INTEGER,
            server_busy INTEGER,
            seed_json TEXT,
            server_build TEXT,
            request_json TEXT,
            counts_json TEXT,
            reviewed_at TEXT,
            UNIQUE (batch_id, line_no)
        )
        """
    )
    db.execute("CREATE INDEX batch_jobs_state ON batch_jobs(batch_id, state, id)")
    db.execute(
        """
        CREATE TABLE batch_problems (
            batch_id INTEGER NOT NULL REFERENCES batch_batches(id) ON DELETE CASCADE,
            line_no INTEGER NOT NULL,
            message TEXT NOT NULL,
            PRIMARY KEY (batch_id, line_no)
        )
        """
    )


SCHEMA = Schema(
    "batch",
    (Migration("batch.001_batches", batches),),
    requires=(drafting_schema.SCHEMA,),
)
