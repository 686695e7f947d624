"""The draft: the drafter writes the document from the numbered sources, streamed as prose.

The drafter is the run's drafter role (the workhorse or the heavy model, or the extractor), not a
fixed one. Its text is registered as chambers' own output, so ingest never takes it for evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drafting.runs import Run, StageRecord
from drafting.stages.base import ModelStage
from drafting.stages.sources import chunks_of, draft_task_text
from drafting.tasks import DRAFT
from drafting.timings import timings_phrase
from evidence.context import render_messages
from evidence.provenance import register_output


@dataclass(frozen=True)
class DraftResult:
    chars: int
    finish_reason: str | None  # "stop", or "length" where the token budget cut it short

    def as_dict(self) -> dict[str, Any]:
        return {"chars": self.chars, "finish_reason": self.finish_reason}


class DraftStage(ModelStage[DraftResult]):
    name = DRAFT
    uses_evidence = True

    def role(self, run: Run) -> str:
        return run.drafter_role

    def messages(self, run: Run, prompts: Path | None) -> list[dict[str, Any]]:
        return list(render_messages(draft_task_text(run, prompts), chunks_of(run.sources)))

    def parse(self, run: Run, answer: Any, text: str, finish_reason: str | None) -> DraftResult:
        return DraftResult(len(text), finish_reason)

    def keep(self, database_file: Path, text: str) -> None:
        """Register the draft as chambers' own output, so ingest never takes it for evidence."""
        if text.strip():
            register_output(database_file, text, "draft")

    def result_from(self, stored: dict[str, Any]) -> DraftResult:
        return DraftResult(int(stored.get("chars", 0)), stored.get("finish_reason"))

    def summary(self, result: DraftResult, record: StageRecord) -> str:
        said = f"; {timings_phrase(record.timings)}" if record.timings else ""
        return f"{result.chars} characters{said}"


STAGE = DraftStage()


def completed(run: Run) -> DraftResult | None:
    return STAGE.completed(run)
