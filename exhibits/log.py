"""The matter's exhibit log for the attorney: every production's ranges and every redaction run."""

from __future__ import annotations

import csv
import io

from exhibits.numbering import BatesFormat
from exhibits.store import LogEntry, RedactionRun, redaction_runs

__all__ = ["format_log", "log_csv", "redaction_runs"]


def _label(row: LogEntry, number: int) -> str:
    return BatesFormat(row.prefix, row.width).label(number)


def format_log(matter: str, rows: list[LogEntry], runs: list[RedactionRun]) -> str:
    lines = [f"Exhibit log for matter '{matter}'"]
    if not rows and not runs:
        lines.append("  Nothing produced, bound or redacted yet.")
    current = None
    for row in rows:
        if row.production != current:
            current = row.production
            lines.append(f"{row.kind.capitalize()} #{row.production} of {row.created_at[:16]}")
        shrunk = row.shrunk_pages
        note = f"  (shrunk p.{','.join(map(str, shrunk))})" if shrunk else ""
        lines.append(
            f"  {_label(row, row.first_number)}..{_label(row, row.last_number)}  {row.page_count:>5} p.  "
            f"{row.source_path}{note}"
        )
    for run in runs:
        lines.append(
            f"Redaction #{run.id} of {run.created_at[:16]}: {run.boxes} box(es) in {run.source_path}, "
            f"verified with {run.verified_with}"
        )
    return "\n".join(lines)


def log_csv(rows: list[LogEntry]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "production",
            "kind",
            "created_at",
            "source",
            "source_sha256",
            "output",
            "output_sha256",
            "pages",
            "bates_first",
            "bates_last",
            "shrunk_pages",
        ]
    )
    for row in rows:
        writer.writerow(
            [
                row.production,
                row.kind,
                row.created_at,
                row.source_path,
                row.source_sha256,
                row.output_path,
                row.output_sha256,
                row.page_count,
                _label(row, row.first_number),
                _label(row, row.last_number),
                " ".join(map(str, row.shrunk_pages)),
            ]
        )
    return out.getvalue().encode("utf-8")
