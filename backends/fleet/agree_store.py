"""Agreement results in the database (table ``agreement_results``, migration m211), per model file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from backends.fleet import schema as fleet_schema
from backends.fleet.agree import Agreement
from workspace.database import connect


def save_agreement(
    database_file: Path, a: Agreement, measured_at: str, changed: int | None = None, total: int | None = None
) -> None:
    db = connect(database_file, fleet_schema.SCHEMA)
    try:
        with db:
            db.execute(
                "INSERT INTO agreement_results (measured_at, reference_file, candidate_file, corpus, corpus_sha256, "
                "tokens, mean_kld, p99_kld, same_top1_pct, answers_changed, answers_total, commands_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (measured_at, a.reference, a.candidate, a.corpus, a.corpus_sha256, a.tokens, a.mean_kld, a.p99_kld,
                 a.same_top1_pct, changed, total, json.dumps(list(a.commands))),
            )  # fmt: skip
    finally:
        db.close()


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
    db = connect(database_file, fleet_schema.SCHEMA)
    try:
        rows = db.execute(
            "SELECT * FROM agreement_results WHERE id IN (SELECT max(id) FROM agreement_results GROUP BY candidate_file)"
        ).fetchall()
    finally:
        db.close()
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
