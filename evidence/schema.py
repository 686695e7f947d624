"""The evidence room's tables: matters and their documents and pages, the full-text index, the
registry of what chambers wrote, and the contexts built for a model (its SQL is in ``evidence/store.py``).

Page text lives only in the FTS5 table ``pages_fts`` (rowid = ``pages.id``), so it is stored once.
"""

from __future__ import annotations

from workspace import schema as workspace_schema
from workspace.database import Connection, Migration, Schema


def matters(db: Connection) -> None:
    """Matters, their source folders, documents and pages, and the per-file notices of an ingest.

    Page text lives only in the FTS5 table (rowid = pages.id), so it is stored once.
    """
    db.execute(
        "CREATE TABLE matters (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL)"
    )
    db.execute(
        """
        CREATE TABLE matter_sources (
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            PRIMARY KEY (matter_id, path)
        )
        """
    )
    db.execute(
        """
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            part TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL,
            title TEXT NOT NULL,
            doc_date TEXT,
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            page_count INTEGER NOT NULL,
            ingested_at TEXT NOT NULL,
            UNIQUE (matter_id, path, part)
        )
        """
    )
    db.execute(
        """
        CREATE TABLE pages (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            page_no INTEGER NOT NULL,
            bates TEXT,
            bates_prefix TEXT,
            bates_number INTEGER,
            ocr INTEGER NOT NULL DEFAULT 0,
            chars INTEGER NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX pages_document ON pages(document_id, page_no)")
    db.execute("CREATE INDEX pages_bates ON pages(bates_prefix, bates_number)")
    db.execute("CREATE VIRTUAL TABLE pages_fts USING fts5(text, tokenize = 'porter unicode61')")
    db.execute(
        """
        CREATE TABLE ingest_notices (
            id INTEGER PRIMARY KEY,
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            sha256 TEXT,
            size INTEGER,
            mtime_ns INTEGER,
            kind TEXT NOT NULL,
            message TEXT NOT NULL,
            at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX ingest_notices_matter ON ingest_notices(matter_id, path)")


def outputs(db: Connection) -> None:
    """The registry of everything chambers writes: file hashes and sampled text-shingle hashes."""
    db.execute(
        """
        CREATE TABLE outputs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            path TEXT,
            sha256 TEXT,
            text_sha256 TEXT NOT NULL,
            shingles INTEGER NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX outputs_sha ON outputs(sha256)")
    db.execute(
        """
        CREATE TABLE output_shingles (
            hash INTEGER NOT NULL,
            output_id INTEGER NOT NULL REFERENCES outputs(id) ON DELETE CASCADE,
            PRIMARY KEY (hash, output_id)
        ) WITHOUT ROWID
        """
    )


def contexts(db: Connection) -> None:
    """What a model was given: the exact messages and each chunk's provenance, per built context."""
    db.execute(
        """
        CREATE TABLE evidence_contexts (
            id INTEGER PRIMARY KEY,
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            task TEXT NOT NULL,
            created_at TEXT NOT NULL,
            n_ctx INTEGER NOT NULL,
            budget INTEGER NOT NULL,
            tokens INTEGER NOT NULL,
            counted_by TEXT NOT NULL,
            messages_json TEXT NOT NULL,
            chunks_json TEXT NOT NULL
        )
        """
    )


def quoted_shingles(db: Connection) -> None:
    """Mark the runs of an output that quote indexed primary text, so quoting a source is not copying ours."""
    db.execute("ALTER TABLE output_shingles ADD COLUMN quoted INTEGER NOT NULL DEFAULT 0")


def read_files(db: Connection) -> None:
    """What each file an ingest read was on disk when it was read: its path with every link resolved
    and its device and inode, so the guard knows the file itself even after the link is re-pointed."""
    db.execute(
        """
        CREATE TABLE read_files (
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            real_path TEXT NOT NULL,
            device INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            PRIMARY KEY (matter_id, path)
        )
        """
    )


def matter_kind(db: Connection) -> None:
    """Whether a matter is a record or a library of opinions, kept as a column rather than read from its
    name. A matter made before it is a library when its name ends in 'authorities', the rule the column
    replaces, so nothing an attorney set up changes kind."""
    db.execute(
        "ALTER TABLE matters ADD COLUMN kind TEXT NOT NULL DEFAULT 'record' CHECK (kind IN ('record', 'library'))"
    )
    db.execute(
        "UPDATE matters SET kind = 'library' WHERE substr(name, -length('authorities')) = 'authorities'"
    )


SCHEMA = Schema(
    "evidence",
    (
        Migration("evidence.001_matters", matters, replaces=("m101_evidence_matters",)),
        Migration("evidence.002_outputs", outputs, replaces=("m102_evidence_outputs",)),
        Migration("evidence.003_contexts", contexts, replaces=("m103_evidence_contexts",)),
        Migration(
            "evidence.004_quoted_shingles", quoted_shingles, replaces=("m104_evidence_quoted_shingles",)
        ),
        Migration("evidence.005_read_files", read_files),
        Migration("evidence.006_matter_kind", matter_kind),
    ),
    requires=(workspace_schema.SCHEMA,),
)
