"""Runs of the drafting pipeline: the stable types other rooms read (drafting.store keeps them).

A run is the legal audit trail of one draft. Servers batch requests, so nothing
can be re-created by calling again; every stage therefore keeps the exact
messages it sent, what came back, which backend, model and server build
answered, and how long it took. The corrections room and the workstation
screen read these types; keep them stable.

Each attempt at a stage is its own ``StageRecord`` row: a draft cut short by a
crash or a cancel stays on the record with its partial text, and the resumed
attempt is a new row after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from workspace.errors import ChambersError

# Stage status: what became of one attempt at a stage.
RUNNING, COMPLETED, FAILED, REFUSED, CANCELLED, INTERRUPTED, STOPPED = (
    "running",
    "completed",
    "failed",
    "refused",
    "cancelled",
    "interrupted",
    "stopped",
)
# Run status: the same words, plus "created" and "stopped" (the gate found no basis).
RUN_DONE = COMPLETED


class RunNotFound(ChambersError):
    title = "No such run"


@dataclass(frozen=True)
class Choice:
    """A decision the attorney made for this run, recorded with its reason.

    kind: ``reroute`` (``stage`` runs on backend ``value``), ``gate_override``
    (go on although the gate said no), ``drafter`` (the drafter role chosen),
    ``task`` (the task type chosen over the router's suggestion).
    """

    kind: str
    stage: str | None
    value: str
    reason: str
    at: str


@dataclass(frozen=True)
class ContextSource:
    """One evidence chunk as a model saw it, with where it came from and which message carried it.

    ``message`` is the index of the message that carried the chunk in the stages sent the sources,
    and ``start``/``end`` the span of its rendered text there; None in runs stored without them.
    """

    label: str
    path: str
    part: str
    page_no: int
    bates: str | None
    sha256: str
    text: str
    message: int | None = None
    start: int | None = None
    end: int | None = None


@dataclass
class StageRecord:
    """One attempt at one stage: exactly what was sent, to whom, and what came back."""

    id: int
    run_id: int
    seq: int
    stage: str  # route | gate | draft | review | verify
    role: str | None  # the config role whose backend answered (None for verify: it is code)
    backend: str | None
    url: str | None
    model: str | None
    server_build: str | None
    messages: list[dict[str, Any]]  # exact, as sent
    output: str  # the model's text (partial while streaming or when cut short)
    result: dict[str, Any]  # the stage's parsed answer (route choice, gate verdict, findings, flags)
    status: str
    started_at: str
    finished_at: str | None = None
    seconds: float | None = None  # wall time of the stage
    model_seconds: float | None = None  # of which spent waiting on the model server
    timings: dict[str, Any] | None = None  # the server's own figures (prompt_n, predicted_per_second...)
    error: str | None = None
    adapter: str | None = None  # the LoRA adapter(s) the request carried, by name ("a,b" for two)
    adapter_sha256: str | None = None  # of each adapter's file, where the server's file is on this machine


@dataclass
class Run:
    id: int
    created_at: str
    matter: str
    task_type: str
    instructions: str
    drafter_role: str  # "drafter" (workhorse) or "heavy", or "extractor" for extraction tasks
    plan: list[str]  # the stages, in order
    status: str
    choices: list[Choice] = field(default_factory=list)
    sources: list[ContextSource] = field(default_factory=list)
    context_note: str = ""  # how the evidence was counted and what was left out
    stages: list[StageRecord] = field(default_factory=list)

    def completed(self, stage: str) -> StageRecord | None:
        """The completed attempt at ``stage``, if any (the last one)."""
        done = [s for s in self.stages if s.stage == stage and s.status == COMPLETED]
        return done[-1] if done else None

    def next_stage(self) -> str | None:
        """The first stage of the plan not yet completed: where a resume starts."""
        return next((s for s in self.plan if self.completed(s) is None), None)

    @property
    def draft(self) -> str:
        """The draft: the completed draft stage's text, else the latest partial text."""
        done = self.completed("draft")
        if done is not None:
            return done.output
        tries = [s for s in self.stages if s.stage == "draft"]
        return tries[-1].output if tries else ""

    def reroute_for(self, stage: str) -> str | None:
        chosen = [c.value for c in self.choices if c.kind == "reroute" and c.stage == stage]
        return chosen[-1] if chosen else None

    def choice(self, kind: str) -> Choice | None:
        found = [c for c in self.choices if c.kind == kind]
        return found[-1] if found else None


def now() -> str:
    return datetime.now(UTC).isoformat()
