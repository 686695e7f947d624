"""The adversarial review: a reviewer model attacks the draft against the numbered sources.

Each finding quotes the draft; the quotes are anchored to the draft (``drafting.review``), and a
finding whose quote cannot be found is kept apart, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, create_model

from drafting.answers import bounded_text, list_of
from drafting.review import Finding, ReviewSeverity, anchor_findings
from drafting.runs import Run, StageRecord
from drafting.stages.base import Limits, ModelStage
from drafting.stages.sources import with_sources
from drafting.tasks import REVIEW, fill, load_template

SYSTEM = (
    "You are opposing counsel reviewing a draft against the numbered sources. Attack it: every unsupported "
    "statement, wrong figure, misquotation and weak argument. Answer only with the JSON asked for."
)


class FindingAnswer(BaseModel):
    """One finding as the reviewer model answers it: it quotes the draft, names the problem and the fix."""

    quote: str
    problem: str
    severity: ReviewSeverity
    fix: str


class ReviewAnswer(BaseModel):
    """What the reviewer model answers; ``review_answer`` adds the bounds of the schema sent."""

    findings: list[FindingAnswer]


@cache
def review_answer(limits: Limits) -> type[ReviewAnswer]:
    text = bounded_text(limits.text_chars)
    finding = create_model(
        "FindingAnswer", __base__=FindingAnswer, quote=(text, ...), problem=(text, ...), fix=(text, ...)
    )
    return create_model("ReviewAnswer", __base__=ReviewAnswer, findings=list_of(finding, limits.max_findings))


@dataclass(frozen=True)
class ReviewResult:
    findings: tuple[Finding, ...]  # each anchored to the draft where its quote could be found

    @property
    def anchored(self) -> int:
        return sum(f.start is not None for f in self.findings)

    @property
    def unanchored(self) -> int:
        return sum(f.start is None for f in self.findings)

    def as_dict(self) -> dict[str, Any]:
        return {
            "findings": [f.as_dict() for f in self.findings],
            "anchored": self.anchored,
            "unanchored": self.unanchored,
        }


def parse_findings(answer: ReviewAnswer) -> list[Finding]:
    """Findings from the reviewer's answer; entries without a problem are not findings."""
    return [
        Finding(quote=f.quote, problem=f.problem.strip(), severity=f.severity, fix=f.fix.strip())
        for f in answer.findings
        if f.problem.strip()
    ]


class ReviewStage(ModelStage[ReviewResult]):
    name = REVIEW
    uses_evidence = True
    answer_shape = ReviewAnswer

    def messages(self, run: Run, prompts: Path | None) -> list[dict[str, Any]]:
        task = fill(load_template(prompts, REVIEW), draft=run.draft, task_type=run.task_type)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": with_sources(task, run)}]

    def answer(self, limits: Limits) -> type[ReviewAnswer]:
        """Lengths are bounded so an answer always ends."""
        return review_answer(limits)

    def worst_tokens(self, limits: Limits) -> int:
        return limits.max_findings * (3 * limits.text_chars + 100) + 40

    def parse(self, run: Run, answer: Any, text: str, finish_reason: str | None) -> ReviewResult:
        findings = parse_findings(ReviewAnswer.model_validate(answer))
        return ReviewResult(tuple(anchor_findings(run.draft, findings)))

    def result_from(self, stored: dict[str, Any]) -> ReviewResult:
        return ReviewResult(tuple(Finding(**f) for f in stored.get("findings", [])))

    def summary(self, result: ReviewResult, record: StageRecord) -> str:
        return f"{result.anchored} findings anchored, {result.unanchored} could not be anchored"


STAGE = ReviewStage()


def completed(run: Run) -> ReviewResult | None:
    return STAGE.completed(run)
