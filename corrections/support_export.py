"""The attorney's marks on support judgements, exported beside the correction pairs.

A mark says the support role's answer to a (claim, passage) pair was wrong; it does not say what
the right answer is. So a mark is an undesirable example and nothing more: ``kto`` writes it as
TRL's conversational unpaired preference with ``"label": false``, and ``pairs`` writes the full
record (with his note, the cite, its pages and the source's sha256). SFT and DPO need the right
answer, which no mark holds, and are refused before anything is read. The rows go to a file of
their own: they train the support role, not the drafter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corrections.errors import CorrectionsError
from corrections.export_target import checked_target, export_file
from corrections.filters import PairFilters
from corrections.scrub import Scrubber
from corrections.store import party_list
from drafting.support.training import MarkedAnswer, marked_answers
from evidence.guard import check_output
from evidence.identifiers import PERSONAL_DATA

SUPPORT_FORMATS = ("kto", "pairs")


@dataclass
class SupportSummary:
    format: str
    path: Path
    marks_seen: int = 0
    rows_written: int = 0
    left_out: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [
            f"Exported {self.rows_written} of {self.marks_seen} support judgements you marked wrong as "
            f"{self.format} rows for the support role to {self.path}."
        ]
        out += [f"  {n:>6}  {why}" for why, n in self.left_out.items()]
        return out


def check_support_format(fmt: str) -> None:
    if fmt not in SUPPORT_FORMATS:
        raise CorrectionsError(
            f"A support judgement you marked wrong says only that it is wrong, not what the right answer "
            f"is, so it cannot be written as {fmt} (which needs the right answer). Export the marks with "
            "--format kto (each mark an undesirable example) or --format pairs (the full record). Nothing "
            "was written.",
            title="No right answer to train on",
        )


def marks_left_out(db_path: Path, filters: PairFilters | None = None) -> int:
    """How many marks an export with ``filters`` would carry: to tell him when he did not ask for them."""
    filters = filters or PairFilters()
    return sum(_reason(m, filters) is None for m in marked_answers(db_path))


def export_support(
    db_path: Path, out: Path, fmt: str, filters: PairFilters | None = None, *, scrub: bool = False
) -> SupportSummary:
    """Write the marks that pass ``filters`` (its matter and date; a mark has no task or model) to ``out``."""
    check_support_format(fmt)
    check_output(db_path, out, what="support export file (--support-out)")
    checked_target(out, fmt)
    filters = filters or PairFilters()
    summary = SupportSummary(fmt, out)
    scrubbers: dict[str, Scrubber] = {}
    with export_file(out) as fh:
        for mark in marked_answers(db_path):
            summary.marks_seen += 1
            why = _reason(mark, filters)
            if why is not None:
                summary.left_out[why] = summary.left_out.get(why, 0) + 1
                continue
            row = _row(mark, fmt)
            if scrub:
                if mark.matter not in scrubbers:
                    scrubbers[mark.matter] = Scrubber(_parties(db_path, mark.matter), PERSONAL_DATA)
                row = scrubbers[mark.matter].deep(row)
                if fmt == "pairs":
                    row["matter"] = "[MATTER]"
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            summary.rows_written += 1
    return summary


def _reason(mark: MarkedAnswer, filters: PairFilters) -> str | None:
    if filters.matter is not None and mark.matter != filters.matter:
        return f"matter is not {filters.matter}"
    if filters.since is not None and mark.at < filters.since:
        return f"marked before {filters.since}"
    return None


def _row(mark: MarkedAnswer, fmt: str) -> dict[str, Any]:
    answer = [{"role": "assistant", "content": mark.answer_json()}]
    if fmt == "kto":
        return {"prompt": mark.messages, "completion": answer, "label": False}
    return {
        "role": "support",
        "matter": mark.matter,
        "marked_at": mark.at,
        "note": mark.note,
        "cite": mark.cite,
        "pages": mark.pages,
        "source": mark.source,
        "sha256": mark.sha256,
        "messages": mark.messages,
        "rejected": answer,
    }


def _parties(db_path: Path, matter: str) -> dict[str, str]:
    names = party_list(db_path, matter)
    if not names:
        raise CorrectionsError(
            f"A support judgement you marked wrong belongs to matter '{matter}', which has no confirmed "
            f"parties, so --scrub would leave every name in it. `chambers corrections parties {matter} "
            "--propose` lists the names its documents give and `--confirm all` records them. Or export "
            "without --scrub. Nothing was written.",
            title="Nothing to scrub with",
        )
    return names
