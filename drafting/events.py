"""What the pipeline reports while it runs: plain dataclasses passed to a callback.

The core is headless, so progress is not a Textual message: the command line
prints these, the workstation's drafting screen turns them into messages, and
tests collect them in a list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class StageStarted:
    run_id: int
    stage: str
    label: str  # "Adversarial review"
    role: str | None
    backend: str | None
    url: str | None


@dataclass(frozen=True)
class DraftDelta:
    """New draft text as it streams (batched by the model's chunks, not per character)."""

    run_id: int
    text: str
    chars_so_far: int


@dataclass(frozen=True)
class StageProgress:
    """The server reading a stage's prompt (llama.cpp's ``prompt_progress``): a long prefill is not a hang."""

    run_id: int
    stage: str
    fraction: float  # of the prompt's uncached tokens read so far
    total: int  # the prompt's tokens


@dataclass(frozen=True)
class StageTokens:
    """A stage that answers in JSON (router, gate, reviewer) writing it: its tokens so far, so it never looks frozen."""

    run_id: int
    stage: str
    tokens: int


@dataclass(frozen=True)
class StageFinished:
    run_id: int
    stage: str
    label: str
    status: str  # completed | failed | refused | cancelled
    summary: str  # one line for the attorney: "basis: partial (2 reasons)", "612 tokens at 88 tok/s"
    seconds: float


@dataclass(frozen=True)
class RunEnded:
    run_id: int
    status: str  # completed | stopped | refused | failed | cancelled
    message: str


PipelineEvent = StageStarted | StageProgress | StageTokens | DraftDelta | StageFinished | RunEnded
EventSink = Callable[[PipelineEvent], None]


def ignore(event: PipelineEvent) -> None:
    """The sink used when nobody listens."""
