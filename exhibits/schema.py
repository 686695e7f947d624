"""The exhibits room's tables: the Bates registry and production log (numbers are never reused), the
files of a production being written, and the redaction log. A production belongs to a matter, so this
schema requires evidence's."""

from __future__ import annotations

from evidence import schema as evidence_schema
from workspace.database import Connection, Migration, Schema


def bates_registry(db: Connection) -> None:
    """Every Bates number issued per matter and prefix (never reused), and the production log per document."""
    db.execute(
        """
        CREATE TABLE exhibits_productions (
            id INTEGER PRIMARY KEY,
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            prefix TEXT NOT NULL,
            width INTEGER NOT NULL,
            first_number INTEGER NOT NULL,
            last_number INTEGER NOT NULL,
            out_dir TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        "CREATE INDEX exhibits_productions_range ON exhibits_productions(matter_id, prefix, first_number)"
    )
    db.execute(
        """
        CREATE TABLE exhibits_production_documents (
            id INTEGER PRIMARY KEY,
            production_id INTEGER NOT NULL REFERENCES exhibits_productions(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            source_path TEXT NOT NULL,
            source_sha256 TEXT NOT NULL,
            output_path TEXT NOT NULL,
            output_sha256 TEXT NOT NULL,
            page_count INTEGER NOT NULL,
            first_number INTEGER NOT NULL,
            last_number INTEGER NOT NULL,
            shrunk_pages TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX exhibits_documents_source ON exhibits_production_documents(source_sha256)")


def pending_productions(db: Connection) -> None:
    """A production's numbers are reserved 'pending' while its files are written, 'written' once every
    temporary file is complete, 'done' once renamed into place; a restart finishes or rolls back the rest."""
    db.execute("ALTER TABLE exhibits_productions ADD COLUMN state TEXT NOT NULL DEFAULT 'done'")
    db.execute("ALTER TABLE exhibits_productions ADD COLUMN owner_pid INTEGER")
    db.execute(
        """
        CREATE TABLE exhibits_production_files (
            id INTEGER PRIMARY KEY,
            production_id INTEGER NOT NULL REFERENCES exhibits_productions(id) ON DELETE CASCADE,
            temp_path TEXT NOT NULL,
            final_path TEXT NOT NULL,
            sha256 TEXT
        )
        """
    )


def redaction_log(db: Connection) -> None:
    """What each redaction removed, where and why: keyed hashes of the text, never the text itself."""
    db.execute(
        """
        CREATE TABLE exhibits_redaction_runs (
            id INTEGER PRIMARY KEY,
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            source_path TEXT NOT NULL,
            source_sha256 TEXT NOT NULL,
            output_path TEXT NOT NULL,
            output_sha256 TEXT NOT NULL,
            hash_key TEXT NOT NULL,
            verified_with TEXT NOT NULL,
            scrubbed TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE exhibits_redactions (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES exhibits_redaction_runs(id) ON DELETE CASCADE,
            page_no INTEGER NOT NULL,
            rect TEXT NOT NULL,
            reason TEXT NOT NULL,
            text_hmac TEXT NOT NULL,
            ocr INTEGER NOT NULL
        )
        """
    )


SCHEMA = Schema(
    "exhibits",
    (
        Migration("exhibits.001_bates_registry", bates_registry, replaces=("m301_exhibits_bates_registry",)),
        Migration(
            "exhibits.002_pending_productions",
            pending_productions,
            replaces=("m310_exhibits_pending_productions",),
        ),
        Migration("exhibits.003_redaction_log", redaction_log, replaces=("m302_exhibits_redaction_log",)),
    ),
    requires=(evidence_schema.SCHEMA,),
)
