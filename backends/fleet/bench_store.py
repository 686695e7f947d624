"""Benchmark results in the database (table ``bench_results``, migration m201)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from backends.fleet import schema as fleet_schema
from backends.fleet.bench import LengthResult
from workspace.database import connect


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
    db = connect(database_file, fleet_schema.SCHEMA)
    try:
        with db:
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
                        session, r.started_at, r.backend, r.url, r.model, r.build, r.target_tokens,
                        r.prompt_tokens, r.warmup, r.runs_wanted, len(r.runs), int(r.interrupted),
                        pp.min, pp.max, pp.mean, pp.median, tg.min, tg.max, tg.mean, tg.median,
                        r.total_s, json.dumps([run.as_dict() for run in r.runs]),
                    ),
                )  # fmt: skip
    finally:
        db.close()
    return len(rows)


def _stored(row: sqlite3.Row) -> StoredResult:
    return StoredResult(
        backend=row["backend"], started_at=row["started_at"], model=row["model"],
        target_tokens=row["target_tokens"], prompt_tokens=row["prompt_tokens"], runs_done=row["runs_done"],
        runs_wanted=row["runs_wanted"], interrupted=bool(row["interrupted"]), pp_median=row["pp_median"],
        tg_median=row["tg_median"], tg_min=row["tg_min"], total_s=row["total_s"],
    )  # fmt: skip


def latest_results(database_file: Path) -> dict[str, list[StoredResult]]:
    """Each backend's most recent bench session, one entry per prompt length (shortest first)."""
    if not database_file.exists():
        return {}
    db = connect(database_file, fleet_schema.SCHEMA)
    try:
        rows = db.execute(
            """
            SELECT r.* FROM bench_results r
            JOIN (SELECT backend, max(id) AS last FROM bench_results GROUP BY backend) l
              ON l.backend = r.backend
            WHERE r.session = (SELECT session FROM bench_results WHERE id = l.last)
            ORDER BY r.backend, r.prompt_tokens
            """
        ).fetchall()
    finally:
        db.close()
    out: dict[str, list[StoredResult]] = {}
    for row in rows:
        out.setdefault(row["backend"], []).append(_stored(row))
    return out
