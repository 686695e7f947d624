"""The SQLite database: WAL mode and ordered, named migrations.

Migrations are plain functions applied in list order and recorded by name in
``_migrations`` (the shape simonw/llm uses), so an older database is brought
forward step by step and a newer chambers never re-runs a step. Append new
migrations at the end; never edit or reorder one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from workspace.errors import ChambersError

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_audit(db: sqlite3.Connection) -> None:
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


@migration
def m010_audit_checked_ip(db: sqlite3.Connection) -> None:
    """The address the policy checked and the call went to: the URL's name alone can hide it."""
    db.execute("ALTER TABLE audit ADD COLUMN checked_ip TEXT")


class DatabaseError(ChambersError):
    title = "The chambers database cannot be opened"


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` and bring its schema up to date."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=10)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        migrate(db)
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(
            f"{path} could not be opened as a chambers database ({exc}). If it is damaged, "
            "move it aside and chambers will start a new one; keep the old file for the audit trail."
        ) from exc
    return db


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded; returns the names applied."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    applied = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        with db:  # one transaction per migration: all of it or none of it
            fn(db)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                (fn.__name__, datetime.now(UTC).isoformat()),
            )
        applied.append(fn.__name__)
    return applied


# --- evidence (the evidence room's tables; the code that fills them lives in evidence/) ---


@migration
def m101_evidence_matters(db: sqlite3.Connection) -> None:
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


@migration
def m102_evidence_outputs(db: sqlite3.Connection) -> None:
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


@migration
def m103_evidence_contexts(db: sqlite3.Connection) -> None:
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


# --- fleet (benchmark results; written by backends/fleet/bench_store.py) ---


@migration
def m201_bench_results(db: sqlite3.Connection) -> None:
    """One row per backend and prompt length of a ``chambers bench`` session, with every run kept."""
    db.execute(
        """
        CREATE TABLE bench_results (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            started_at TEXT NOT NULL,
            backend TEXT NOT NULL,
            url TEXT NOT NULL,
            model TEXT,
            build TEXT,
            target_tokens INTEGER NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            warmup INTEGER NOT NULL,
            runs_wanted INTEGER NOT NULL,
            runs_done INTEGER NOT NULL,
            interrupted INTEGER NOT NULL,
            pp_min REAL, pp_max REAL, pp_mean REAL, pp_median REAL,
            tg_min REAL, tg_max REAL, tg_mean REAL, tg_median REAL,
            total_s REAL NOT NULL,
            runs_json TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX bench_results_backend ON bench_results(backend, id)")


# --- exhibits (Bates registry, production log, redaction log; written by exhibits/) ---


@migration
def m301_exhibits_bates_registry(db: sqlite3.Connection) -> None:
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


@migration
def m310_exhibits_pending_productions(db: sqlite3.Connection) -> None:
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


@migration
def m302_exhibits_redaction_log(db: sqlite3.Connection) -> None:
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


# --- verify (overrides of the verifier's blocking flags; written by drafting/verify/overrides.py) ---


@migration
def m401_verify_overrides(db: sqlite3.Connection) -> None:
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


@migration
def m410_verify_authority_citations(db: sqlite3.Connection) -> None:
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


# --- drafting runs (written by drafting/runs.py) ---


@migration
def m501_runs(db: sqlite3.Connection) -> None:
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


# --- corrections (the attorney's edits as training pairs; written by corrections/) ---


@migration
def m601_corrections_pairs(db: sqlite3.Connection) -> None:
    """Correction pairs (what the model was given, its draft, his final text), their paragraph
    sub-pairs, and per matter the party names the export scrub replaces with stable placeholders."""
    db.execute(
        """
        CREATE TABLE corrections_pairs (
            id INTEGER PRIMARY KEY,
            pair_sha256 TEXT NOT NULL UNIQUE,
            matter TEXT,
            task_type TEXT NOT NULL,
            instructions TEXT NOT NULL,
            messages_json TEXT NOT NULL,
            sources_json TEXT NOT NULL,
            draft TEXT NOT NULL,
            final TEXT NOT NULL,
            backend TEXT,
            model TEXT,
            server_build TEXT,
            run_id INTEGER,
            trigger TEXT NOT NULL,
            drafted_at TEXT,
            accepted_at TEXT NOT NULL,
            captured_at TEXT NOT NULL,
            draft_words INTEGER NOT NULL,
            final_words INTEGER NOT NULL,
            words_added INTEGER NOT NULL,
            words_removed INTEGER NOT NULL,
            edit_ratio REAL NOT NULL,
            excluded INTEGER NOT NULL DEFAULT 0
        )
        """
    )
    db.execute("CREATE INDEX corrections_pairs_model ON corrections_pairs(model, task_type, accepted_at)")
    db.execute(
        """
        CREATE TABLE corrections_paragraphs (
            id INTEGER PRIMARY KEY,
            pair_id INTEGER NOT NULL REFERENCES corrections_pairs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            draft TEXT NOT NULL,
            final TEXT NOT NULL,
            edit_ratio REAL NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX corrections_paragraphs_pair ON corrections_paragraphs(pair_id, seq)")
    db.execute(
        """
        CREATE TABLE corrections_parties (
            matter TEXT NOT NULL,
            name TEXT NOT NULL,
            placeholder TEXT NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY (matter, name)
        )
        """
    )


@migration
def m104_evidence_quoted_shingles(db: sqlite3.Connection) -> None:
    """Mark the runs of an output that quote indexed primary text, so quoting a source is not copying ours."""
    db.execute("ALTER TABLE output_shingles ADD COLUMN quoted INTEGER NOT NULL DEFAULT 0")


@migration
def m701_workstation_drafts(db: sqlite3.Connection) -> None:
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


# --- LoRA adapters trained from the corrections (written by corrections/adapters.py) ---


@migration
def m610_corrections_adapters(db: sqlite3.Connection) -> None:
    """Trained adapters: base model (file and sha256), hyper-parameters, loss curve, eval scores, the GGUF
    file, and which pairs each was trained on or held out from. Excluding or deleting a pair it was trained
    on marks the adapter stale (triggers, so no writer of pairs can forget to)."""
    db.execute(
        """
        CREATE TABLE corrections_adapters (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL,
            backend TEXT NOT NULL,
            base_model TEXT NOT NULL,
            base_path TEXT NOT NULL,
            base_sha256 TEXT NOT NULL,
            architecture TEXT NOT NULL,
            file TEXT NOT NULL,
            file_sha256 TEXT NOT NULL,
            settings_json TEXT NOT NULL,
            loss_curve_json TEXT NOT NULL,
            trained_tokens INTEGER NOT NULL,
            train_seconds REAL NOT NULL,
            eval_json TEXT,
            created_at TEXT NOT NULL,
            stale_reason TEXT
        )
        """
    )
    db.execute(
        """
        CREATE TABLE corrections_adapter_pairs (
            adapter_id INTEGER NOT NULL REFERENCES corrections_adapters(id) ON DELETE CASCADE,
            pair_id INTEGER NOT NULL,
            split TEXT NOT NULL CHECK (split IN ('train', 'held_out')),
            PRIMARY KEY (adapter_id, pair_id)
        )
        """
    )
    db.execute("CREATE INDEX corrections_adapter_pairs_pair ON corrections_adapter_pairs(pair_id)")
    for event, when, what in (
        ("UPDATE OF excluded", "WHEN NEW.excluded = 1 AND OLD.excluded = 0", "excluded"),
        ("DELETE", "", "deleted"),
    ):
        pair = "OLD.id"
        db.execute(
            f"""
            CREATE TRIGGER corrections_adapters_stale_{what} AFTER {event} ON corrections_pairs {when}
            BEGIN
                UPDATE corrections_adapters
                SET stale_reason = COALESCE(stale_reason || '; ', '') || 'pair ' || {pair} || ' {what}'
                WHERE id IN (SELECT adapter_id FROM corrections_adapter_pairs
                             WHERE pair_id = {pair} AND split = 'train');
            END
            """
        )


@migration
def m611_adapter_on_drafts(db: sqlite3.Connection) -> None:
    """The adapter (name and sha256) a stage was drafted with, carried onto the pair made from it."""
    for table in ("drafting_stages", "corrections_pairs"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN adapter TEXT")
        db.execute(f"ALTER TABLE {table} ADD COLUMN adapter_sha256 TEXT")


@migration
def m210_fleet_sweep_results(db: sqlite3.Connection) -> None:
    """One row per variant and prompt length of a ``bench --sweep`` (a variant that did not load: one row, its error)."""
    db.execute(
        """
        CREATE TABLE sweep_results (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            started_at TEXT NOT NULL,
            profile TEXT NOT NULL,
            board TEXT,
            variant TEXT NOT NULL,
            model_file TEXT NOT NULL,
            command TEXT NOT NULL,
            environment_json TEXT NOT NULL,
            error TEXT,
            target_tokens INTEGER,
            prompt_tokens INTEGER,
            runs_done INTEGER NOT NULL DEFAULT 0,
            pp_min REAL, pp_median REAL, pp_max REAL,
            tg_min REAL, tg_median REAL, tg_max REAL,
            runs_json TEXT NOT NULL DEFAULT '[]'
        )
        """
    )
    db.execute("CREATE INDEX sweep_results_profile ON sweep_results(profile, id)")


@migration
def m211_fleet_agreement(db: sqlite3.Connection) -> None:
    """``chambers agree``: how far a candidate model file drifts from its reference, per corpus."""
    db.execute(
        """
        CREATE TABLE agreement_results (
            id INTEGER PRIMARY KEY,
            measured_at TEXT NOT NULL,
            reference_file TEXT NOT NULL,
            candidate_file TEXT NOT NULL,
            corpus TEXT NOT NULL,
            corpus_sha256 TEXT NOT NULL,
            tokens INTEGER,
            mean_kld REAL NOT NULL,
            p99_kld REAL,
            same_top1_pct REAL NOT NULL,
            answers_changed INTEGER,
            answers_total INTEGER,
            commands_json TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX agreement_candidate ON agreement_results(candidate_file, id)")


@migration
def m710_workstation_draft_versions(db: sqlite3.Connection) -> None:
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


@migration
def m620_corrections_labels(db: sqlite3.Connection) -> None:
    """The attorney's optional labels at accept: a 1-5 rating of the model's draft (4 or more makes it a
    desirable KTO example), a one-line rationale and tags (a JSON list)."""
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN rating INTEGER CHECK (rating BETWEEN 1 AND 5)")
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN rationale TEXT")
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN tags_json TEXT")
