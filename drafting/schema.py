"""The drafting room's tables: pipeline runs and every attempt at each stage, the overrides of the
verifier's blocking flags, and the citations given for the opinions of an authorities library. An
authorities library is a matter, so this schema requires evidence's."""

from __future__ import annotations

from evidence import schema as evidence_schema
from workspace.database import Connection, Migration, Schema


def verify_overrides(db: Connection) -> None:
    """Each override of a blocking flag: which draft and flag, the attorney's written reason, when. Append-only."""
    db.execute(
        """
        CREATE TABLE verify_overrides (
            id INTEGER PRIMARY KEY,
            matter TEXT NOT NULL,
            draft_sha256 TEXT NOT NULL,
            flag_key TEXT NOT NULL,
            flag_json TEXT NOT NULL,
            reason TEXT NOT NULL,
            by TEXT NOT NULL,
            at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX verify_overrides_flag ON verify_overrides(matter, flag_key)")


def verify_authority_citations(db: Connection) -> None:
    """The citations an attorney gave for an opinion in an authorities library (by file content)."""
    db.execute(
        """
        CREATE TABLE verify_authority_citations (
            matter_id INTEGER NOT NULL REFERENCES matters(id) ON DELETE CASCADE,
            sha256 TEXT NOT NULL,
            cite TEXT NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY (matter_id, sha256, cite)
        )
        """
    )


def runs(db: Connection) -> None:
    """Pipeline runs and every attempt at each stage: exact messages, outputs, backend, model, build, timings."""
    db.execute(
        """
        CREATE TABLE drafting_runs (
            id INTEGER PRIMARY KEY,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            matter TEXT NOT NULL,
            task_type TEXT NOT NULL,
            instructions TEXT NOT NULL,
            drafter_role TEXT NOT NULL,
            plan_json TEXT NOT NULL,
            status TEXT NOT NULL,
            choices_json TEXT NOT NULL,
            sources_json TEXT NOT NULL,
            context_note TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE drafting_stages (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES drafting_runs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            stage TEXT NOT NULL,
            role TEXT,
            backend TEXT,
            url TEXT,
            model TEXT,
            server_build TEXT,
            messages_json TEXT NOT NULL,
            output_text TEXT NOT NULL,
            result_json TEXT NOT NULL,
            status TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            seconds REAL,
            model_seconds REAL,
            timings_json TEXT,
            error TEXT,
            UNIQUE (run_id, seq)
        )
        """
    )


def stage_adapter(db: Connection) -> None:
    """The LoRA adapter (name and sha256) a stage was drafted with."""
    db.execute("ALTER TABLE drafting_stages ADD COLUMN adapter TEXT")
    db.execute("ALTER TABLE drafting_stages ADD COLUMN adapter_sha256 TEXT")


def support_tables(db: Connection) -> None:
    """The support check's claim-and-passage pairs of each verified draft, and the attorney's marks on
    the support role's judgements (each one a training pair for that role). Append-only."""
    db.execute(
        """
        CREATE TABLE support_pairs (
            id INTEGER PRIMARY KEY,
            matter TEXT NOT NULL,
            draft_sha256 TEXT NOT NULL,
            run_id TEXT,
            position INTEGER NOT NULL,
            pair_json TEXT NOT NULL,
            at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX support_pairs_draft ON support_pairs(matter, draft_sha256)")
    db.execute(
        """
        CREATE TABLE support_marks (
            id INTEGER PRIMARY KEY,
            matter TEXT NOT NULL,
            draft_sha256 TEXT NOT NULL,
            pair_key TEXT NOT NULL,
            pair_json TEXT NOT NULL,
            judgement_json TEXT NOT NULL,
            note TEXT NOT NULL,
            at TEXT NOT NULL
        )
        """
    )


SCHEMA = Schema(
    "drafting",
    (
        Migration("drafting.001_verify_overrides", verify_overrides, replaces=("m401_verify_overrides",)),
        Migration(
            "drafting.002_verify_authority_citations",
            verify_authority_citations,
            replaces=("m410_verify_authority_citations",),
        ),
        Migration("drafting.003_runs", runs, replaces=("m501_runs",)),
        Migration("drafting.004_stage_adapter", stage_adapter, replaces=("m611_adapter_on_drafts",)),
        Migration("drafting.005_support_tables", support_tables),
    ),
    requires=(evidence_schema.SCHEMA,),
)
