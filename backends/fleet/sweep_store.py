"""Sweep results in the database (table ``sweep_results``, migration m210), and the best variant per board."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from backends.fleet import schema as fleet_schema
from backends.fleet.sweep import SweepRow
from workspace.database import connect


def save_sweep(database_file: Path, session: str, board: str | None, rows: list[SweepRow]) -> int:
    """Store every variant: one row per measured prompt length, or one row with the error."""
    db = connect(database_file, fleet_schema.SCHEMA)
    written = 0
    now = datetime.now(UTC).isoformat()
    try:
        with db:
            for row in rows:
                common = (session, now, row.profile, board, row.variant, row.model, row.command,
                          json.dumps(row.environment))  # fmt: skip
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
                        (*common, row.error, r.target_tokens, r.prompt_tokens, len(r.runs), pp.min, pp.median,
                         pp.max, tg.min, tg.median, tg.max, json.dumps([x.as_dict() for x in r.runs])),
                    )  # fmt: skip
                    written += 1
    finally:
        db.close()
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
    db = connect(database_file, fleet_schema.SCHEMA)
    try:
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
    finally:
        db.close()
    best: dict[str, BestVariant] = {}
    for r in rows:
        candidate = BestVariant(r["board"], r["profile"], r["variant"], r["model_file"], r["tg"], r["pp"])
        if r["board"] not in best or candidate.tg_median > best[r["board"]].tg_median:
            best[r["board"]] = candidate
    return best
