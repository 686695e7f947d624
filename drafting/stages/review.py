"""The adversarial review: a reviewer model attacks the draft against the numbered sources.

Each finding quotes the draft; the quotes are anchored to the draft (``drafting.review``), and a
finding whose quote cannot be found is kept apart, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drafting.review import SEVERITIES, Finding, anchor_findings
from drafting.runs import Run, StageRecord
from drafting.stages.base import Limits, ModelStage, text_schema
from drafting.stages.sources import with_sources
from drafting.tasks import REVIEW, fill, load_template

SYSTEM = (
    "You are opposing counsel reviewing a draft against the numbered sources. Attack it: every unsupported "
    "statement, wrong figure, misquotation and weak argument. Answer only with the JSON asked for."
)


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


def parse_findings(answer: Any) -> list[Finding]:
    """Findings from the reviewer's JSON; entries without a problem are not findings."""
    items = answer.get("findings", []) if isinstance(answer, dict) else []
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not str(item.get("problem", "")).strip():
            continue
        severity = str(item.get("severity", "medium")).lower()
        out.append(
            Finding(
                quote=str(item.get("quote", "")),
                problem=str(item["problem"]).strip(),
                severity=severity if severity in SEVERITIES else "medium",
                fix=str(item.get("fix", "")).strip(),
            )
        )
    return out


class ReviewStage(ModelStage[ReviewResult]):
    name = REVIEW
    uses_evidence = True

    def messages(self, run: Run, prompts: Path | None) -> list[dict[str, Any]]:
        task = fill(load_template(prompts, REVIEW), draft=run.draft, task_type=run.task_type)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": with_sources(task, run)}]

    def schema(self, limits: Limits) -> dict[str, Any]:
        """Lengths are bounded so an answer always ends."""
        text = text_schema(limits.text_chars)
        return {
            "type": "object",
            "properties": {
                "findings": {
                    "type": "array",
                    "maxItems": limits.max_findings,
                    "items": {
                        "type": "object",
                        "properties": {
                            "quote": text,
                            "problem": text,
                            "severity": {"type": "string", "enum": list(SEVERITIES)},
                            "fix": text,
                        },
                        "required": ["quote", "problem", "severity", "fix"],
                    },
                }
            },
            "required": ["findings"],
        }

    def worst_tokens(self, limits: Limits) -> int:
        return limits.max_findings * (3 * limits.text_chars + 100) + 40

    def parse(self, run: Run, answer: Any, text: str, finish_reason: str | None) -> ReviewResult:
        return ReviewResult(tuple(anchor_findings(run.draft, parse_findings(answer))))

    def result_from(self, stored: dict[str, Any]) -> ReviewResult:
        return ReviewResult(tuple(Finding(**f) for f in stored.get("findings", [])))

    def summary(self, result: ReviewResult, record: StageRecord) -> str:
        return f"{result.anchored} findings anchored, {result.unanchored} could not be anchored"


STAGE = ReviewStage()


def completed(run: Run) -> ReviewResult | None:
    return STAGE.completed(run)
