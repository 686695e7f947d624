"""The matter's exhibit log for the attorney: every production's ranges and every redaction run."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

from exhibits.numbering import BatesFormat


def redaction_runs(db: sqlite3.Connection, matter_id: int) -> list[sqlite3.Row]:
    return db.execute(
        "SELECT r.id, r.source_path, r.output_path, r.verified_with, r.scrubbed, r.created_at, "
        "count(x.id) AS boxes FROM exhibits_redaction_runs r LEFT JOIN exhibits_redactions x ON x.run_id = r.id "
        "WHERE r.matter_id = ? GROUP BY r.id ORDER BY r.id",
        (matter_id,),
    ).fetchall()


def _label(row: sqlite3.Row, number: int) -> str:
    return BatesFormat(row["prefix"], row["width"]).label(number)


def format_log(matter: str, rows: list[sqlite3.Row], runs: list[sqlite3.Row]) -> str:
    lines = [f"Exhibit log for matter '{matter}'"]
    if not rows and not runs:
        lines.append("  Nothing produced, bound or redacted yet.")
    current = None
    for row in rows:
        if row["production"] != current:
            current = row["production"]
            lines.append(f"{row['kind'].capitalize()} #{row['production']} of {row['created_at'][:16]}")
        shrunk = json.loads(row["shrunk_pages"])
        note = f"  (shrunk p.{','.join(map(str, shrunk))})" if shrunk else ""
        lines.append(
            f"  {_label(row, row['first_number'])}..{_label(row, row['last_number'])}  {row['page_count']:>5} p.  "
            f"{row['source_path']}{note}"
        )
    for run in runs:
        lines.append(
            f"Redaction #{run['id']} of {run['created_at'][:16]}: {run['boxes']} box(es) in {run['source_path']}, "
            f"verified with {run['verified_with']}"
        )
    return "\n".join(lines)


def log_csv(rows: list[sqlite3.Row]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["production", "kind", "created_at", "source", "source_sha256", "output", "output_sha256",
                     "pages", "bates_first", "bates_last", "shrunk_pages"])  # fmt: skip
    for row in rows:
        writer.writerow([row["production"], row["kind"], row["created_at"], row["source_path"], row["source_sha256"],
                         row["output_path"], row["output_sha256"], row["page_count"],
                         _label(row, row["first_number"]), _label(row, row["last_number"]),
                         " ".join(map(str, json.loads(row["shrunk_pages"])))])  # fmt: skip
    return out.getvalue().encode("utf-8")
