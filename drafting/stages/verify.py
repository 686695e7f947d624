"""Verification: the deterministic verifier checks the draft against the matter, in memory.

Its flags and the reviewer's anchored findings become one list of marks on the draft; the
reviewer's findings whose quote is not in the draft are kept beside them. Whether the draft may be
exported as final is the verifier's verdict alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drafting.review import Finding, Mark, merge_marks
from drafting.runs import Run, StageRecord
from drafting.stages import review
from drafting.stages.base import CodeStage, IssuedRanges
from drafting.tasks import VERIFY
from drafting.verify import Report, load_matter_index, may_export_final, verify_with

NOTHING_WRITTEN = "The drafter wrote nothing."


@dataclass(frozen=True)
class VerifyResult:
    report: Report | None  # None when there was no draft
    may_export_final: bool
    why: str
    marks: tuple[Mark, ...]  # verifier flags and anchored findings, by position in the draft
    unanchored: tuple[Finding, ...]  # reviewer findings whose quote is not in the draft
    support: tuple[dict[str, Any], ...] = ()  # each citation's claim, passage and locator (drafting.support)

    @property
    def counts(self) -> dict[str, int]:
        return self.report.counts() if self.report is not None else {}

    def as_dict(self) -> dict[str, Any]:
        return {
            "report": self.report.to_dict() if self.report is not None else None,
            "may_export_final": self.may_export_final,
            "why": self.why,
            "marks": [m.as_dict() for m in self.marks],
            "unanchored": [f.as_dict() for f in self.unanchored],
        } | ({"support": list(self.support)} if self.support else {})


def draft_name(run: Run) -> str:
    """What the report calls the run's draft."""
    return f"run-{run.id}-draft.md"


class VerifyStage(CodeStage[VerifyResult]):
    name = VERIFY

    def compute(self, database_file: Path, run: Run, issued_ranges: IssuedRanges | None) -> VerifyResult:
        draft = run.draft
        found = review.completed(run)
        findings = list(found.findings) if found is not None else []
        unanchored = tuple(f for f in findings if f.start is None)
        if not draft.strip():
            return VerifyResult(
                None, False, NOTHING_WRITTEN, tuple(merge_marks(draft, [], findings)), unanchored
            )
        issued = issued_ranges(run.matter) if issued_ranges is not None else ()
        index = load_matter_index(database_file, run.matter, productions=issued)
        report = verify_with(database_file, draft, draft_name(run), index)
        allowed, why = may_export_final(report)
        marks = tuple(merge_marks(draft, report.flags, findings))
        from drafting.support.check import support_check

        pairs, _ = support_check(database_file, draft, report, index)  # the locator only: no model here
        return VerifyResult(report, allowed, why, marks, unanchored, tuple(p.to_json() for p in pairs))

    def result_from(self, stored: dict[str, Any]) -> VerifyResult:
        report = stored.get("report")
        return VerifyResult(
            Report.from_dict(report) if report else None,
            bool(stored.get("may_export_final", True)),
            str(stored.get("why", "")),
            tuple(Mark(**m) for m in stored.get("marks", [])),
            tuple(Finding(**f) for f in stored.get("unanchored", [])),
            tuple(stored.get("support", [])),
        )

    def summary(self, result: VerifyResult, record: StageRecord) -> str:
        counts = result.counts
        return (
            f"{counts.get('block', 0)} blocking, {counts.get('warn', 0)} to review, {counts.get('ok', 0)} grounded; "
            f"{len(result.marks)} marks in all"
        )


STAGE = VerifyStage()


def completed(run: Run) -> VerifyResult | None:
    return STAGE.completed(run)
