"""The drafting pipeline: a run walks its plan, route, gate, draft, review, verify, one stage at a time.

There is no fallback path: each stage runs on the one backend its role names (or the backend the
attorney chose for that stage of that run, recorded as a ``Choice``), and any failure becomes a
``StageRefused`` that stops the run where it is. Everything is written to the run as it happens, so
``execute`` called again on a run that was cancelled, killed or refused continues from the first
stage not completed. What each stage sends and how its answer is read live in ``drafting.stages``;
one attempt at one stage is ``drafting.attempt``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drafting.attempt import StageRunner, StageTiming, json_sampling
from drafting.events import EventSink, RunEnded, ignore
from drafting.options import PipelineOptions
from drafting.refusal import StageRefused
from drafting.runs import CANCELLED, COMPLETED, FAILED, REFUSED, STOPPED, Choice, Run, now
from drafting.stages import STAGES, ModelStage, gate
from drafting.store import RunStore
from drafting.tasks import DRAFT, GATE, VERIFY, DraftingInputError, drafter_role, task_type
from drafting.wiring import Wiring
from evidence.matters import get_matter
from workspace.config import Backend, Config, Sampling
from workspace.errors import ChambersError

__all__ = ["Outcome", "Pipeline", "PipelineOptions", "StageTiming"]


@dataclass
class Outcome:
    run: Run
    timings: list[StageTiming] = field(default_factory=list)
    ended: bool = False  # its end (completed, stopped, refused, failed, cancelled) is being or was written


class Pipeline:
    """Runs drafting tasks against the configured backends.

    Args:
        wiring: what every run works from: the config (each stage uses ``backend_for_role``, no
            fallback), the database file (runs, contexts, the audit trail), the prompt folder, the
            options, and the matters' issued Bates ranges for the verifier.
        on_event: receives ``drafting.events`` as the run goes.
    """

    def __init__(self, wiring: Wiring, *, on_event: EventSink = ignore) -> None:
        self.wiring = wiring
        self.on_event = on_event
        self.store = RunStore(wiring.database_file)
        self.runner = StageRunner(wiring, self.store, on_event=self._event)

    @property
    def config(self) -> Config:
        return self.wiring.config

    @property
    def database_file(self) -> Path:
        return self.wiring.database_file

    @property
    def options(self) -> PipelineOptions:
        return self.wiring.options

    def _event(self, event: Any) -> None:
        self.on_event(event)  # read at each event: a caller may set on_event after construction

    # --- starting and choosing ---

    def start(self, matter: str, task: str, instructions: str, drafter: str | None = None) -> Run:
        """Check the request and record a new run (nothing is sent to any server yet)."""
        kind = task_type(task)
        role = drafter_role(drafter, kind)
        if not instructions.strip():
            raise DraftingInputError("The instructions are empty. Say what you want drafted.")
        if not self.database_file.exists():
            raise DraftingInputError(
                f"There is no matter named '{matter}' (no chambers database yet). Create one with "
                f"`chambers matter new {matter} --sources DIR`.",
                title="Unknown matter",
            )
        get_matter(self.database_file, matter)
        run = self.store.create(matter, kind.name, instructions.strip(), role, list(kind.plan))
        if drafter is not None:
            self.store.add_choice(run.id, Choice("drafter", DRAFT, role, "chosen by the attorney", now()))
        return self.store.load(run.id)

    def choose(
        self,
        run_id: int,
        *,
        reroutes: Sequence[tuple[str, str]] = (),
        reason: str = "",
        go_on_anyway: str | None = None,
    ) -> Run:
        """Record the attorney's choices for a run: another backend for a stage, or going on past the gate."""
        run = self.store.load(run_id)
        for stage, backend in reroutes:
            if stage not in STAGES or stage == VERIFY:
                raise DraftingInputError(
                    f"'{stage}' is not a model stage. Reroute one of: route, gate, draft, review.",
                    title="Unknown stage",
                )
            self.config.backend_named(backend)
            self.store.add_choice(
                run.id, Choice("reroute", stage, backend, reason or "chosen by the attorney", now())
            )
        if go_on_anyway is not None:
            if not go_on_anyway.strip():
                raise DraftingInputError("Going on past the gate needs a written reason; it is recorded.")
            self.store.add_choice(run.id, Choice("gate_override", GATE, "go on", go_on_anyway.strip(), now()))
        return self.store.load(run.id)

    # --- the JSON stages' bounds ---

    def json_schema(self, stage: str) -> dict[str, Any]:
        """The bounded JSON a stage must answer with; ``json_sampling`` sizes its budget from the same bounds."""
        schema = self._model_stage(stage).schema(self.options.limits)
        assert schema is not None, f"the {stage} stage answers in prose, not JSON"
        return schema

    def json_sampling(self, backend: Backend, stage: str) -> Sampling:
        """The sampling a JSON stage is sent with: room for its longest answer, no repetition penalty."""
        return json_sampling(backend, self._model_stage(stage), self.options.limits)

    @staticmethod
    def _model_stage(name: str) -> ModelStage[Any]:
        stage = STAGES[name]
        assert isinstance(stage, ModelStage), f"the {name} stage is code, not a model"
        return stage

    # --- running ---

    async def execute(self, run_id: int) -> Outcome:
        """Run (or resume) the run from its first stage not completed.

        Returns the outcome when the run completes or the gate stops it.

        Raises:
            StageRefused: a stage could not run on its backend; the run keeps what it has.
            asyncio.CancelledError: cancelled; the partial draft is kept.
        """
        await asyncio.to_thread(self.store.mark_interrupted, run_id)
        outcome: Outcome | None = None
        try:
            await asyncio.to_thread(self.store.set_status, run_id, "running")
            outcome = Outcome(await asyncio.to_thread(self.store.load, run_id))
            return await self._stages(outcome)
        except asyncio.CancelledError:
            # Wherever the cancel lands (in a stage, between two, or before the first), the run must
            # not stay "running".
            if outcome is None:
                outcome = Outcome(await asyncio.shield(asyncio.to_thread(self.store.load, run_id)))
            if not outcome.ended:
                await self._end(outcome, CANCELLED, "Cancelled; the partial draft is kept.")
            raise

    async def _stages(self, outcome: Outcome) -> Outcome:
        run_id = outcome.run.id
        while True:
            run = await asyncio.to_thread(self.store.load, run_id)
            outcome.run = run
            stage = run.next_stage()
            if stage is None:
                return await self._end(outcome, COMPLETED, "The run is complete.")
            verdict = gate.completed(run)
            if verdict is not None and verdict.stops and run.choice("gate_override") is None:
                reasons = "; ".join(verdict.reasons) or "(the gate gave no reasons)"
                return await self._end(
                    outcome,
                    STOPPED,
                    f"The gate found no basis for this task: {reasons}. To go on anyway, run "
                    f"`chambers runs resume {run.id} --go-on-anyway REASON`; the reason is recorded.",
                )
            try:
                timing = await self.runner.attempt(run, STAGES[stage])
            except StageRefused as exc:
                await self._end(outcome, REFUSED, str(exc))
                raise
            except ChambersError as exc:
                await self._end(outcome, FAILED, str(exc))
                raise
            except Exception as exc:  # a fault of chambers itself: neither run nor stage may stay "running"
                await asyncio.to_thread(self.store.mark_interrupted, run_id)
                await self._end(outcome, FAILED, f"{type(exc).__name__}: {exc}")
                raise
            outcome.timings.append(timing)

    async def _end(self, outcome: Outcome, status: str, message: str) -> Outcome:
        outcome.ended = True
        # Shielded: a second cancel while the run's end is being written must not lose the write.
        outcome.run = await asyncio.shield(asyncio.to_thread(self._set_status, outcome.run.id, status))
        self.on_event(RunEnded(outcome.run.id, status, message))
        return outcome

    def _set_status(self, run_id: int, status: str) -> Run:
        self.store.set_status(run_id, status)
        return self.store.load(run_id)
