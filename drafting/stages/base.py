"""What every stage of the pipeline is: a name, a typed result, and how that result reads in one line.

A stage's result is stored in the run as plain JSON (``StageRecord.result``), so runs written by any
version load; each stage's result class turns that JSON into typed attributes (``from_dict``) and back
(``as_dict``), and readers go through ``completed(run)`` rather than reading keys.

A model stage also says which role answers it, what it is sent (``messages``), the pydantic model of
its JSON answer (``answer_shape``: keys, types, enums; None for the draft, which streams prose) and
that model bounded by the run's options (``answer``), whose schema is sent; the token budget that
schema can need; and how its checked answer becomes its result (``parse``). The answer is checked
against its shape, not its bounds: the bounds make the server's grammar end every answer, and a
reason a little over one from a server that ignored them is still the model's reason. A code stage
(the verifier) computes its result.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel

from drafting.answers import json_schema
from drafting.runs import Run, StageRecord
from drafting.tasks import STAGE_LABELS, STAGE_ROLES
from drafting.verify.sources import ProductionRange
from workspace.config import Config

# A matter's issued Bates production ranges, by the matter's name: the caller asks the exhibits room.
IssuedRanges = Callable[[str], Sequence[ProductionRange]]


class StageResult(Protocol):
    def as_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=StageResult)


@dataclass(frozen=True)
class Limits:
    """The bounds every JSON answer is held to: the longest string, the most findings."""

    text_chars: int
    max_findings: int


class Stage(ABC, Generic[R]):
    """One step of a run's plan."""

    name: ClassVar[str]

    @property
    def label(self) -> str:
        return STAGE_LABELS[self.name]

    @abstractmethod
    def result_from(self, stored: dict[str, Any]) -> R:
        """The typed result of a stored ``StageRecord.result`` (keys a run may lack get their defaults)."""

    @abstractmethod
    def summary(self, result: R, record: StageRecord) -> str:
        """One line for the attorney when the stage completes."""

    def completed(self, run: Run) -> R | None:
        """The result of the run's completed attempt at this stage, if there is one."""
        record = run.completed(self.name)
        return self.result_from(record.result) if record is not None else None

    def summary_of(self, record: StageRecord) -> str:
        """The stored attempt's line: its summary when it completed, else what stopped it."""
        if record.status != "completed":
            return record.error or record.status
        return self.summary(self.result_from(record.result), record)


class ModelStage(Stage[R]):
    """A stage a model answers, on the backend of its role."""

    uses_evidence: ClassVar[bool] = False  # sent the run's numbered sources
    answer_shape: ClassVar[type[BaseModel] | None] = None  # what a JSON answer is checked against
    # Whether an answer of another shape is no answer (``parse`` gets None) rather than a refusal:
    # so for a stage that only suggests, as the router does, and the rules decide without it.
    off_shape_is_no_answer: ClassVar[bool] = False

    def role(self, run: Run) -> str:
        return STAGE_ROLES[self.name]

    @abstractmethod
    def messages(self, run: Run, prompts: Path | None) -> list[dict[str, Any]]:
        """Exactly what the stage sends (``prompts``: the attorney's edited templates, None: the shipped ones)."""

    def answer(self, limits: Limits) -> type[BaseModel] | None:
        """``answer_shape`` bounded by ``limits`` (a subclass of it); None for an answer streamed as prose."""
        return None

    def schema(self, limits: Limits) -> dict[str, Any] | None:
        """The bounded JSON the answer must follow, as sent: the schema of ``answer``."""
        model = self.answer(limits)
        return json_schema(model) if model is not None else None

    def worst_tokens(self, limits: Limits) -> int:
        """Tokens the longest answer ``schema`` allows can take, one per character (a looping model may)."""
        return 0

    @abstractmethod
    def parse(self, run: Run, answer: Any, text: str, finish_reason: str | None) -> R:
        """The result of the model's answer (an ``answer_shape``, checked; None for prose) for ``run``."""

    def keep(self, database_file: Path, text: str) -> None:
        """Record what the answer means for the matter (blocking: called in a worker thread)."""

    def without_model(self, run: Run, config: Config) -> R | None:
        """A result reached by rules where no model need answer; None: the model answers."""
        return None


class CodeStage(Stage[R]):
    """A stage that is code, not a model; ``compute`` may read the disk and is run off the event loop."""

    @abstractmethod
    def compute(self, database_file: Path, run: Run, issued_ranges: IssuedRanges | None) -> R:
        """The result for ``run``'s draft (blocking: called in a worker thread)."""
