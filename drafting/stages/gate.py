"""The gate: before anyone drafts, does the client's evidence give any basis for the task at all?

Its verdict is "yes", "partial" or "no"; "no" stops the run until the attorney goes on with a
written reason. An answer outside the gate's schema is refused, never read as a verdict: the gate
never lets a task through by accident.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, create_model

from drafting.answers import bounded_text, list_of
from drafting.runs import Run, StageRecord
from drafting.stages.base import Limits, ModelStage
from drafting.stages.sources import with_sources
from drafting.tasks import GATE, fill, load_template

SYSTEM = (
    "You check whether the client's documents give any basis for a legal task before anyone drafts it. "
    "Judge only from the numbered sources. Answer only with the JSON asked for."
)
Basis = Literal["yes", "partial", "no"]
BASIS: tuple[Basis, ...] = get_args(Basis)
MAX_REASONS = 4
MAX_EVIDENCE = 8
LABEL_CHARS = 12  # a source label, "S12"


class GateAnswer(BaseModel):
    """What the gate model answers; ``gate_answer`` adds the bounds of the schema sent."""

    basis: Basis
    reasons: list[str]  # the model's own words
    evidence: list[str]  # the labels of the sources it cites


@cache
def gate_answer(limits: Limits) -> type[GateAnswer]:
    return create_model(
        "GateAnswer",
        __base__=GateAnswer,
        reasons=list_of(bounded_text(limits.text_chars), MAX_REASONS),
        evidence=list_of(bounded_text(LABEL_CHARS), MAX_EVIDENCE),
    )


@dataclass(frozen=True)
class GateResult:
    basis: Basis
    reasons: tuple[str, ...]  # the model's own words
    evidence: tuple[str, ...]  # the labels of the sources it cites ("S1")

    @property
    def stops(self) -> bool:
        """No basis: the run stops here unless the attorney goes on with a reason."""
        return self.basis == "no"

    def as_dict(self) -> dict[str, Any]:
        return {"basis": self.basis, "reasons": list(self.reasons), "evidence": list(self.evidence)}


class GateStage(ModelStage[GateResult]):
    name = GATE
    uses_evidence = True
    answer_shape = GateAnswer

    def messages(self, run: Run, prompts: Path | None) -> list[dict[str, Any]]:
        task = fill(load_template(prompts, GATE), instructions=run.instructions, task_type=run.task_type)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": with_sources(task, run)}]

    def answer(self, limits: Limits) -> type[GateAnswer]:
        return gate_answer(limits)

    def worst_tokens(self, limits: Limits) -> int:
        return MAX_REASONS * limits.text_chars + MAX_EVIDENCE * (LABEL_CHARS + 4) + 120

    def parse(self, run: Run, answer: Any, text: str, finish_reason: str | None) -> GateResult:
        said = GateAnswer.model_validate(answer)
        return GateResult(
            said.basis,
            tuple(r for r in said.reasons if r.strip()),
            tuple(e for e in said.evidence if e.strip()),
        )

    def result_from(self, stored: dict[str, Any]) -> GateResult:
        basis = str(stored.get("basis", "")).lower()
        return GateResult(
            next((b for b in BASIS if b == basis), "no"),
            tuple(str(r) for r in stored.get("reasons", []) if str(r).strip()),
            tuple(str(e) for e in stored.get("evidence", []) if str(e).strip()),
        )

    def summary(self, result: GateResult, record: StageRecord) -> str:
        # The reasons are the model's words, which may themselves be "no" or "partial": quoted after
        # the verdict so the line reads as one verdict.
        reasons = "; ".join(f'"{reason}"' for reason in result.reasons)
        return f"verdict {result.basis.upper()}" + (
            f", because {reasons}" if reasons else ", no reasons given"
        )


STAGE = GateStage()


def completed(run: Run) -> GateResult | None:
    return STAGE.completed(run)
