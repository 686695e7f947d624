"""The run's numbered sources as the evidence room renders them, for every stage that is sent them.

The evidence part of every message comes from the evidence room's ``render_messages``, so the gate,
the drafter and the reviewer see the same numbered sources with their provenance, and a non-primary
chunk is refused there.
"""

from __future__ import annotations

from pathlib import Path

from drafting.runs import ContextSource, Run
from drafting.tasks import fill, load_template
from evidence.context import ContextChunk, Provenance, render_messages


def chunks_of(sources: list[ContextSource]) -> list[ContextChunk]:
    """The run's stored sources as the evidence room's chunks (all were primary when chosen)."""
    return [
        ContextChunk(s.label, s.text, Provenance(s.path, s.part, s.page_no, s.bates, s.sha256, True, 0))
        for s in sources
    ]


def task_text(task_type: str, instructions: str, prompts: Path | None) -> str:
    """The drafter's task: the task type's template with the attorney's instructions in it."""
    return fill(load_template(prompts, task_type), instructions=instructions)


def draft_task_text(run: Run, prompts: Path | None) -> str:
    return task_text(run.task_type, run.instructions, prompts)


def with_sources(task: str, run: Run) -> str:
    """A user message holding the run's sources, then ``task``."""
    return render_messages(task, chunks_of(run.sources))[1]["content"]
