"""Routing: the router model suggests a task type and a drafter; the rules and the attorney decide.

Where no router backend is configured (and the attorney chose none for this run), the stage is
settled by the rules of the task type, without a model.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import BaseModel, create_model

from drafting.answers import bounded_text
from drafting.runs import Run, StageRecord
from drafting.stages.base import Limits, ModelStage
from drafting.tasks import ROUTE, TASKS, fill, load_template, task_type
from workspace.config import Config

SYSTEM = "You classify an attorney's drafting requests. Answer only with the JSON asked for."
Drafter = Literal["drafter", "heavy"]
DRAFTERS: tuple[Drafter, ...] = get_args(Drafter)
if TYPE_CHECKING:
    TaskName = str
else:
    TaskName = Literal[tuple(TASKS)]  # one of the task types, by name: the schema's enum


class RouteAnswer(BaseModel):
    """What the router model answers; ``route_answer`` adds the bound of the schema sent."""

    task_type: TaskName
    drafter: Drafter
    reason: str


@cache
def route_answer(limits: Limits) -> type[RouteAnswer]:
    return create_model("RouteAnswer", __base__=RouteAnswer, reason=(bounded_text(limits.text_chars), ...))


BY_ROUTER = "router"
BY_RULES = "rules (no router backend is configured)"


@dataclass(frozen=True)
class RouteResult:
    """The router's suggestion beside what the run does: its task type and drafter, and who chose it."""

    suggested_task: str | None
    suggested_drafter: str | None
    reason: str
    by: str  # the router, or the rules
    rule_drafter: str  # the drafter the task type's rules pick
    task: str
    drafter: str
    drafter_chosen_by: str  # "the attorney" or "the rules for this task"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class RouteStage(ModelStage[RouteResult]):
    name = ROUTE
    answer_shape = RouteAnswer
    off_shape_is_no_answer = True  # the router only suggests: an unreadable suggestion is none

    def messages(self, run: Run, prompts: Path | None) -> list[dict[str, Any]]:
        task_types = ", ".join(f'"{name}"' for name in TASKS)
        user = fill(load_template(prompts, "router"), instructions=run.instructions, task_types=task_types)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    def answer(self, limits: Limits) -> type[RouteAnswer]:
        return route_answer(limits)

    def worst_tokens(self, limits: Limits) -> int:
        return limits.text_chars + 120

    def parse(self, run: Run, answer: Any, text: str, finish_reason: str | None) -> RouteResult:
        if answer is None:
            return self._decided(run, None, None, "", BY_ROUTER)
        said = RouteAnswer.model_validate(answer)
        return self._decided(run, said.task_type, said.drafter, said.reason, BY_ROUTER)

    def without_model(self, run: Run, config: Config) -> RouteResult | None:
        if run.reroute_for(ROUTE) is not None or any("router" in b.roles for b in config.backends):
            return None
        return self._decided(run, None, None, "", BY_RULES)

    def _decided(self, run: Run, task: str | None, drafter: str | None, reason: str, by: str) -> RouteResult:
        by_attorney = run.choice("drafter") is not None
        return RouteResult(
            task,
            drafter,
            reason,
            by,
            task_type(run.task_type).drafter_role,
            run.task_type,
            run.drafter_role,
            "the attorney" if by_attorney else "the rules for this task",
        )

    def result_from(self, stored: dict[str, Any]) -> RouteResult:
        return RouteResult(
            stored.get("suggested_task"),
            stored.get("suggested_drafter"),
            str(stored.get("reason", "")),
            str(stored.get("by", BY_ROUTER)),
            str(stored.get("rule_drafter", "")),
            str(stored.get("task", "")),
            str(stored.get("drafter", "")),
            str(stored.get("drafter_chosen_by", "")),
        )

    def summary(self, result: RouteResult, record: StageRecord) -> str:
        suggestion = (
            f"; router suggests {result.suggested_task} on {result.suggested_drafter}"
            if result.suggested_task
            else ""
        )
        return f"task {result.task}, drafter '{result.drafter}' ({result.drafter_chosen_by}){suggestion}"


STAGE = RouteStage()


def completed(run: Run) -> RouteResult | None:
    return STAGE.completed(run)
