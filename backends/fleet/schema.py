"""The fleet's tables: benchmark sessions, launch-setting sweeps, model agreement (KLD) results, expert
routing and requantization plans (their SQL is in ``backends/fleet/store.py``)."""

from __future__ import annotations

from workspace import schema as workspace_schema
from workspace.database import Connection, Migration, Schema


def bench_results(db: Connection) -> None:
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


def sweep_results(db: Connection) -> None:
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


def agreement(db: Connection) -> None:
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


def experts(db: Connection) -> None:
    """``chambers experts`` and ``chambers requant``: routed calls per expert on his text, per model
    file and corpus, and the tensor-type plans written from them."""
    db.execute(
        """
        CREATE TABLE expert_results (
            id INTEGER PRIMARY KEY,
            measured_at TEXT NOT NULL,
            model_file TEXT NOT NULL,
            corpus TEXT NOT NULL,
            corpus_sha256 TEXT NOT NULL,
            imatrix_file TEXT NOT NULL,
            curve_json TEXT NOT NULL,
            counts_json TEXT NOT NULL,
            never_woken INTEGER NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX expert_results_model ON expert_results(model_file, id)")
    db.execute(
        """
        CREATE TABLE requant_plans (
            id INTEGER PRIMARY KEY,
            made_at TEXT NOT NULL,
            source_file TEXT NOT NULL,
            output_file TEXT NOT NULL,
            budget_bytes INTEGER NOT NULL,
            planned_bytes INTEGER NOT NULL,
            hot_type TEXT NOT NULL,
            cold_type TEXT NOT NULL,
            plan_json TEXT NOT NULL,
            line_json TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX requant_plans_output ON requant_plans(output_file, id)")


SCHEMA = Schema(
    "fleet",
    (
        Migration("fleet.001_bench_results", bench_results, replaces=("m201_bench_results",)),
        Migration("fleet.002_sweep_results", sweep_results, replaces=("m210_fleet_sweep_results",)),
        Migration("fleet.003_agreement", agreement, replaces=("m211_fleet_agreement",)),
        Migration("fleet.004_experts", experts),
    ),
    requires=(workspace_schema.SCHEMA,),
)
