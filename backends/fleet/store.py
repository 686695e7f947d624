"""The fleet's store: its only SQL, over the tables of ``backends/fleet/schema.py``.

Benchmark sessions (``bench_results``), launch-setting sweeps (``sweep_results``, and the best variant
per board), model agreement (``agreement_results``, per model file), expert routing (``expert_results``)
and requantization plans (``requant_plans``). Each function opens its own
short session, so the dashboard can call it from a worker thread.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from backends.fleet import schema as fleet_schema
from backends.fleet.agree import Agreement
from backends.fleet.bench import LengthResult
from backends.fleet.sweep import SweepRow
from workspace import database

# --- bench_results ---


@dataclass(frozen=True)
class StoredResult:
    backend: str
    started_at: str
    model: str | None
    target_tokens: int
    prompt_tokens: int
    runs_done: int
    runs_wanted: int
    interrupted: bool
    pp_median: float | None
    tg_median: float | None
    tg_min: float | None
    total_s: float


def save_results(database_file: Path, session: str, results: list[LengthResult]) -> int:
    """Store every length that finished at least one counted run; returns the rows written."""
    rows = [r for r in results if r.runs]
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        for r in rows:
            pp, tg = r.pp_stats(), r.tg_stats()
            db.execute(
                """
                INSERT INTO bench_results (session, started_at, backend, url, model, build,
                    target_tokens, prompt_tokens, warmup, runs_wanted, runs_done, interrupted,
                    pp_min, pp_max, pp_mean, pp_median, tg_min, tg_max, tg_mean, tg_median,
                    total_s, runs_json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    session,
                    r.started_at,
                    r.backend,
                    r.url,
                    r.model,
                    r.build,
                    r.target_tokens,
                    r.prompt_tokens,
                    r.warmup,
                    r.runs_wanted,
                    len(r.runs),
                    int(r.interrupted),
                    pp.min,
                    pp.max,
                    pp.mean,
                    pp.median,
                    tg.min,
                    tg.max,
                    tg.mean,
                    tg.median,
                    r.total_s,
                    json.dumps([run.as_dict() for run in r.runs]),
                ),
            )
    return len(rows)


def _stored(row: sqlite3.Row) -> StoredResult:
    return StoredResult(
        backend=row["backend"],
        started_at=row["started_at"],
        model=row["model"],
        target_tokens=row["target_tokens"],
        prompt_tokens=row["prompt_tokens"],
        runs_done=row["runs_done"],
        runs_wanted=row["runs_wanted"],
        interrupted=bool(row["interrupted"]),
        pp_median=row["pp_median"],
        tg_median=row["tg_median"],
        tg_min=row["tg_min"],
        total_s=row["total_s"],
    )


def latest_results(database_file: Path) -> dict[str, list[StoredResult]]:
    """Each backend's most recent bench session, one entry per prompt length (shortest first)."""
    if not database_file.exists():
        return {}
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        rows = db.execute(
            """
            SELECT r.* FROM bench_results r
            JOIN (SELECT backend, max(id) AS last FROM bench_results GROUP BY backend) l
              ON l.backend = r.backend
            WHERE r.session = (SELECT session FROM bench_results WHERE id = l.last)
            ORDER BY r.backend, r.prompt_tokens
            """
        ).fetchall()
    out: dict[str, list[StoredResult]] = {}
    for row in rows:
        out.setdefault(row["backend"], []).append(_stored(row))
    return out


# --- sweep_results ---


def save_sweep(database_file: Path, session: str, board: str | None, rows: list[SweepRow]) -> int:
    """Store every variant: one row per measured prompt length, or one row with the error."""
    written = 0
    now = datetime.now(UTC).isoformat()
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        for row in rows:
            common = (
                session,
                now,
                row.profile,
                board,
                row.variant,
                row.model,
                row.command,
                json.dumps(row.environment),
            )
            measured = [r for r in row.results if r.runs]
            if not measured:
                db.execute(
                    "INSERT INTO sweep_results (session, started_at, profile, board, variant, model_file, "
                    "command, environment_json, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*common, row.error or "no run finished"),
                )
                written += 1
            for r in measured:
                pp, tg = r.pp_stats(), r.tg_stats()
                db.execute(
                    "INSERT INTO sweep_results (session, started_at, profile, board, variant, model_file, "
                    "command, environment_json, error, target_tokens, prompt_tokens, runs_done, pp_min, "
                    "pp_median, pp_max, tg_min, tg_median, tg_max, runs_json) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        *common,
                        row.error,
                        r.target_tokens,
                        r.prompt_tokens,
                        len(r.runs),
                        pp.min,
                        pp.median,
                        pp.max,
                        tg.min,
                        tg.median,
                        tg.max,
                        json.dumps([x.as_dict() for x in r.runs]),
                    ),
                )
                written += 1
    return written


@dataclass(frozen=True)
class BestVariant:
    board: str
    profile: str
    variant: str
    model_file: str
    tg_median: float  # the lowest median over its prompt lengths: what the floor is judged on
    pp_median: float | None


def best_per_board(database_file: Path) -> dict[str, BestVariant]:
    """Per board, the variant of its latest sweeps that generates fastest at its slowest prompt length."""
    if not database_file.exists():
        return {}
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        rows = db.execute(
            """
            SELECT board, profile, variant, model_file, min(tg_median) AS tg, min(pp_median) AS pp
            FROM sweep_results
            WHERE board IS NOT NULL AND error IS NULL AND tg_median IS NOT NULL
              AND session IN (SELECT session FROM sweep_results s
                              WHERE s.id IN (SELECT max(id) FROM sweep_results GROUP BY profile))
            GROUP BY session, board, profile, variant
            """
        ).fetchall()
    best: dict[str, BestVariant] = {}
    for r in rows:
        candidate = BestVariant(r["board"], r["profile"], r["variant"], r["model_file"], r["tg"], r["pp"])
        if r["board"] not in best or candidate.tg_median > best[r["board"]].tg_median:
            best[r["board"]] = candidate
    return best


# --- agreement_results ---


def save_agreement(
    database_file: Path, a: Agreement, measured_at: str, changed: int | None = None, total: int | None = None
) -> None:
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        db.execute(
            "INSERT INTO agreement_results (measured_at, reference_file, candidate_file, corpus, corpus_sha256, "
            "tokens, mean_kld, p99_kld, same_top1_pct, answers_changed, answers_total, commands_json) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                measured_at,
                a.reference,
                a.candidate,
                a.corpus,
                a.corpus_sha256,
                a.tokens,
                a.mean_kld,
                a.p99_kld,
                a.same_top1_pct,
                changed,
                total,
                json.dumps(list(a.commands)),
            ),
        )


@dataclass(frozen=True)
class StoredAgreement:
    candidate_file: str
    reference_file: str
    corpus: str
    mean_kld: float
    same_top1_pct: float
    answers_changed: int | None
    answers_total: int | None

    def short(self) -> str:
        """What fits beside a speed: ``KLD 0.012 top1 96%`` (and the answer changes where measured)."""
        text = f"KLD {self.mean_kld:.3g} top1 {self.same_top1_pct:.0f}%"
        if self.answers_total:
            text += f" MC {self.answers_changed}/{self.answers_total} changed"
        return text


def latest_by_model_file(database_file: Path) -> dict[str, StoredAgreement]:
    """The latest agreement of each candidate, keyed by its file name (what a server's /props reports)."""
    if not database_file.exists():
        return {}
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        rows = db.execute(
            "SELECT * FROM agreement_results WHERE id IN (SELECT max(id) FROM agreement_results GROUP BY candidate_file)"
        ).fetchall()
    return {
        Path(r["candidate_file"]).name: StoredAgreement(
            r["candidate_file"],
            r["reference_file"],
            r["corpus"],
            r["mean_kld"],
            r["same_top1_pct"],
            r["answers_changed"],
            r["answers_total"],
        )
        for r in rows
    }


# --- expert_results, requant_plans ---


def save_experts(
    database_file: Path,
    measured_at: str,
    model_file: str,
    corpus: str,
    corpus_sha256: str,
    imatrix_file: str,
    curve: list[tuple[float, int, float]],
    counts: dict[int, tuple[float, ...]],
    never_woken: int,
) -> None:
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        db.execute(
            "INSERT INTO expert_results (measured_at, model_file, corpus, corpus_sha256, imatrix_file, curve_json, "
            "counts_json, never_woken) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                measured_at,
                model_file,
                corpus,
                corpus_sha256,
                imatrix_file,
                json.dumps(curve),
                json.dumps({str(k): list(v) for k, v in counts.items()}),
                never_woken,
            ),
        )


@dataclass(frozen=True)
class StoredExperts:
    model_file: str
    corpus: str
    corpus_sha256: str
    measured_at: str
    imatrix_file: str
    curve: tuple[tuple[float, int, float], ...]  # (fraction of experts, experts, share of routed calls)
    counts: dict[int, tuple[float, ...]]  # routed calls per expert, per layer
    never_woken: int


def experts_by_model_file(database_file: Path) -> dict[str, StoredExperts]:
    """The latest expert measurement of each model file (any corpus), keyed by its file name."""
    if not database_file.exists():
        return {}
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        rows = db.execute(
            "SELECT * FROM expert_results WHERE id IN (SELECT max(id) FROM expert_results GROUP BY model_file)"
        ).fetchall()
    out = {}
    for r in rows:
        curve = tuple((float(f), int(k), float(s)) for f, k, s in json.loads(r["curve_json"]))
        counts = {int(k): tuple(v) for k, v in json.loads(r["counts_json"]).items()}
        columns = {k: v for k, v in dict(r).items() if k in StoredExperts.__dataclass_fields__}  # same names
        out[Path(r["model_file"]).name] = StoredExperts(**columns, curve=curve, counts=counts)
    return out


def save_requant_plan(
    database_file: Path,
    made_at: str,
    source_file: str,
    output_file: str,
    budget_bytes: int,
    planned_bytes: int,
    hot_type: str,
    cold_type: str,
    plan: list[dict[str, object]],
    line: dict[str, object],
    proof: dict[str, object] | None = None,
) -> None:
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        db.execute(
            "INSERT INTO requant_plans (made_at, source_file, output_file, budget_bytes, planned_bytes, hot_type, "
            "cold_type, plan_json, line_json, proof_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                made_at,
                source_file,
                output_file,
                budget_bytes,
                planned_bytes,
                hot_type,
                cold_type,
                json.dumps(plan),
                json.dumps(line),
                None if proof is None else json.dumps(proof),
            ),
        )


@dataclass(frozen=True)
class StoredRequant:
    source_file: str
    output_file: str
    made_at: str
    budget_bytes: int
    planned_bytes: int
    hot_type: str
    cold_type: str
    hot_tensors: int
    tensors: int
    proof: dict[str, Any] | None  # {"before": Side, "after": Side} as stored by ``chambers requant``


def requants_by_model_file(database_file: Path) -> dict[str, StoredRequant]:
    """The latest requantization each model file took part in, keyed by the file name of its source
    and of its output alike: the board serving either one shows what was made and what it proved."""
    if not database_file.exists():
        return {}
    with database.session(database_file, fleet_schema.SCHEMA) as db:
        rows = db.execute("SELECT * FROM requant_plans ORDER BY id").fetchall()
    out: dict[str, StoredRequant] = {}
    for r in rows:
        plan = json.loads(r["plan_json"])
        proof = None if r["proof_json"] is None else json.loads(r["proof_json"])
        hot = sum(t["qtype"] == r["hot_type"] for t in plan)
        columns = {k: v for k, v in dict(r).items() if k in StoredRequant.__dataclass_fields__}  # same names
        stored = StoredRequant(**columns, hot_tensors=hot, tensors=len(plan), proof=proof)
        out[Path(r["source_file"]).name] = out[Path(r["output_file"]).name] = stored
    return out
