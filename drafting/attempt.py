"""One attempt at one stage: what was sent, to which backend, what came back, kept in the run as it happens.

A model stage asks the config for the one backend of its role (or the backend the attorney chose
for it in this run); any failure becomes a ``StageRefused`` naming the stage and the backend. A
code stage (the verifier, or routing settled by the rules) computes its result in a worker thread.
Every write to the run, every file and every verifier call runs off the event loop
(``asyncio.to_thread``), so a screen showing the run never waits on the disk.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from backends.chat import ChatClient, ChatRequest
from backends.errors import BackendError, MalformedStream, PolicyRefusal
from backends.events import ContentDelta, Finished, PromptProgress
from drafting.answers import OffSchema, checked, json_schema
from drafting.context import choose_context
from drafting.events import (
    DraftDelta,
    EventSink,
    StageFinished,
    StageProgress,
    StageStarted,
    StageTokens,
)
from drafting.options import PipelineOptions
from drafting.refusal import prompt_overflow, prompt_parts, refuse, too_long
from drafting.runs import CANCELLED, COMPLETED, FAILED, REFUSED, Run, StageRecord
from drafting.stages import CodeStage, Limits, ModelStage, Stage, StageResult
from drafting.stages.sources import draft_task_text
from drafting.store import RunStore
from drafting.tasks import DRAFT
from drafting.wiring import Wiring
from workspace.config import Backend, Config, NoBackendForRole, Sampling
from workspace.errors import ChambersError


@dataclass
class StageTiming:
    """Where a run's time went; the benchmark reads it."""

    stage: str
    seconds: float
    client_seconds: float  # inside the backend client's call (connection, server, audit write)
    server_ms: float  # the server's own prompt + generation time


def json_sampling(backend: Backend, stage: ModelStage[Any], limits: Limits) -> Sampling:
    """Room for the longest answer the stage's schema allows, and no repetition penalty.

    A JSON answer cut off by max_tokens cannot be read at all, so a JSON stage gets at least
    what its bounded schema can need, even where the backend's own max_tokens is smaller; the
    request records the figure sent. The bound counts one token per character, since a model
    that loops inside a string can spend a token on each character.

    JSON repeats its quotes, commas and keys by design. A drafting backend's repeat_penalty
    pushes those tokens down, so the sampler picks one the schema's grammar refuses, and each
    refusal makes llama-server run the grammar over the whole vocabulary before sampling again
    (``benchmarks/structured_output.py`` measures what a refusal costs); so it is turned off here.
    """
    worst = stage.worst_tokens(limits)
    return Sampling(max_tokens=max(backend.sampling.max_tokens or 0, worst + 32), repeat_penalty=1.0)


class StageRunner:
    """Runs single attempts at stages of runs, against the config's backends."""

    def __init__(self, wiring: Wiring, store: RunStore, *, on_event: EventSink) -> None:
        self.wiring = wiring
        self.store = store
        self.on_event = on_event

    @property
    def config(self) -> Config:
        return self.wiring.config

    @property
    def database_file(self) -> Path:
        return self.wiring.database_file

    @property
    def options(self) -> PipelineOptions:
        return self.wiring.options

    @property
    def prompts(self) -> Path | None:
        return self.wiring.prompts

    async def attempt(self, run: Run, stage: Stage[Any]) -> StageTiming:
        """One attempt at ``stage`` of ``run``, written to the run whatever its outcome.

        Raises:
            StageRefused: the stage's backend is missing, down, refused, or answered nonsense.
            ChambersError: a code stage failed (the verifier could not read the matter).
            asyncio.CancelledError: the attempt is kept as cancelled, with its partial text.
        """
        started = time.perf_counter()
        if isinstance(stage, CodeStage):
            compute = partial(stage.compute, self.database_file, run, self.wiring.issued_ranges)
            await self._by_code(run, stage, compute, started)
            return StageTiming(stage.name, time.perf_counter() - started, 0.0, 0.0)
        assert isinstance(stage, ModelStage)
        ruled = stage.without_model(run, self.config)
        if ruled is not None:
            await self._by_code(run, stage, lambda: ruled, started)
            return StageTiming(stage.name, time.perf_counter() - started, 0.0, 0.0)
        return await self._by_model(run, stage, started)

    async def _by_code(
        self, run: Run, stage: Stage[Any], compute: Callable[[], StageResult], started: float
    ) -> None:
        record = await self._open(stage, started, run.id, stage.name, None, None, None, None, [])
        self.on_event(StageStarted(run.id, stage.name, stage.label, None, None, None))
        try:
            result = await asyncio.to_thread(compute)
        except ChambersError as exc:
            await self._close(record, stage, FAILED, started, error=str(exc))
            raise
        except asyncio.CancelledError:
            await self._close(record, stage, CANCELLED, started, error="cancelled by the attorney")
            raise
        record.result = result.as_dict()
        await self._close(record, stage, COMPLETED, started)

    async def _by_model(self, run: Run, stage: ModelStage[Any], started: float) -> StageTiming:
        role = stage.role(run)
        try:
            chosen = run.reroute_for(stage.name)
            backend = self.config.backend_named(chosen) if chosen else self.config.backend_for_role(role)
        except NoBackendForRole as exc:
            record = await asyncio.to_thread(
                self.store.start_stage, run.id, stage.name, role, None, None, None, []
            )
            refusal = refuse(stage.label, stage.name, run.id, exc, None, role)
            await self._close(record, stage, REFUSED, started, error=str(refusal))
            raise refusal from exc
        if stage.uses_evidence and not run.context_note:
            run = await self._choose_evidence(run)
        messages = await asyncio.to_thread(stage.messages, run, self.prompts)  # reads the prompt templates
        record = await self._open(
            stage, started, run.id, stage.name, role, backend.name, backend.url, backend.model, messages
        )
        self.on_event(StageStarted(run.id, stage.name, stage.label, role, backend.name, backend.url))
        client = ChatClient(backend, self.config.policy, self.wiring.audit)
        pieces: list[str] = []
        call_started = time.perf_counter()
        persist = 0.0
        try:
            model = stage.answer(self.options.limits)
            if model is None:
                request = ChatRequest(messages, return_progress=True)
                finished, persist = await self._stream(client, request, role, record, pieces)
                answer: Any = None
            else:
                answer, finished = await self._json(client, stage, backend, messages, model, role, record)
        except (BackendError, PolicyRefusal) as exc:
            record.output = "".join(pieces) or getattr(exc, "partial", "")
            sizes = prompt_overflow(exc)
            refusal = (
                refuse(stage.label, stage.name, run.id, exc, backend, role)
                if sizes is None
                else too_long(stage.label, stage.name, run.id, backend, sizes, prompt_parts(run, messages))
            )
            await self._close(record, stage, REFUSED, started, error=str(refusal))
            raise refusal from exc
        except asyncio.CancelledError:
            record.output = "".join(pieces)
            await self._close(record, stage, CANCELLED, started, error="cancelled by the attorney")
            raise
        except Exception as exc:  # anything else ends the stage too, so no stage is left "running"
            record.output = "".join(pieces)
            await self._close(record, stage, FAILED, started, error=f"{type(exc).__name__}: {exc}")
            raise
        finally:
            await client.aclose()
        client_seconds = time.perf_counter() - call_started - persist
        record.server_build = client.server_build
        record.adapter, record.adapter_sha256 = client.adapter_record()
        record.model = finished.model or backend.model
        record.timings = finished.timings.as_dict() if finished.timings else None
        record.model_seconds = client_seconds
        record.output = finished.text
        try:
            # In a worker thread: anchoring a reviewer's quotes fuzzily in a long draft takes a while.
            result = await asyncio.to_thread(stage.parse, run, answer, finished.text, finished.finish_reason)
            await asyncio.to_thread(stage.keep, self.database_file, finished.text)
        except asyncio.CancelledError:  # the answer came whole, but the stage did not end: it is cancelled
            await self._close(record, stage, CANCELLED, started, error="cancelled by the attorney")
            raise
        record.result = result.as_dict()
        await self._close(record, stage, COMPLETED, started)
        server_ms = (finished.timings.prompt_ms + finished.timings.predicted_ms) if finished.timings else 0.0
        return StageTiming(stage.name, time.perf_counter() - started, client_seconds, server_ms)

    async def _json(
        self,
        client: ChatClient,
        stage: ModelStage[Any],
        backend: Backend,
        messages: list[dict[str, Any]],
        model: type[BaseModel],
        role: str,
        record: StageRecord,
    ) -> tuple[BaseModel | None, Finished]:
        """The answer, sent the schema of ``model`` and checked against the stage's ``answer_shape``
        (an answer of another shape is refused)."""
        request = ChatRequest(
            messages, sampling=json_sampling(backend, stage, self.options.limits), return_progress=True
        )
        written = [0]

        def count(_: ContentDelta) -> None:
            written[0] += 1
            self.on_event(StageTokens(record.run_id, record.stage, written[0]))

        raw, finished = await client.complete_structured(
            request,
            json_schema(model),
            role=role,
            on_progress=lambda e: self._progress(record, e),
            on_delta=count,
        )
        try:
            return checked(stage.answer_shape or model, raw), finished
        except OffSchema as exc:
            if stage.off_shape_is_no_answer:
                return None, finished
            raise MalformedStream(
                f"Backend '{backend.name}' was asked for JSON matching a schema but sent JSON of another "
                f"shape ({exc}).",
                backend=backend.name,
                url=backend.url,
                partial=finished.text,
            ) from exc

    async def _stream(
        self, client: ChatClient, request: ChatRequest, role: str, record: StageRecord, pieces: list[str]
    ) -> tuple[Finished, float]:
        """Stream the draft, saving the text so far every ``partial_every_s``; returns (Finished, seconds saving)."""
        every = self.options.partial_every_s
        last_save = time.perf_counter()
        persist = 0.0
        finished: Finished | None = None
        chars = 0  # counted as it grows: summing the pieces per token would cost O(n²) over a long draft
        async for event in client.stream(request, role=role):
            if isinstance(event, ContentDelta):
                pieces.append(event.text)
                chars += len(event.text)
                t0 = time.perf_counter()
                self.on_event(DraftDelta(record.run_id, event.text, chars))
                if t0 - last_save >= every:
                    await asyncio.to_thread(self.store.save_partial, record.id, "".join(pieces))
                    last_save = time.perf_counter()
                persist += time.perf_counter() - t0
            elif isinstance(event, PromptProgress):
                self._progress(record, event)
            elif isinstance(event, Finished):
                finished = event
        assert finished is not None  # stream() raises rather than end without Finished
        return finished, persist

    def _progress(self, record: StageRecord, event: PromptProgress) -> None:
        self.on_event(StageProgress(record.run_id, record.stage, event.fraction, event.total))

    async def _open(self, stage: Stage[Any], started: float, *row: Any) -> StageRecord:
        """The stage's row, written in a worker thread. A cancel meanwhile still waits for the row and
        closes it as cancelled: the thread writes it whatever the coroutine does, and no stage may be
        left "running"."""
        opening = asyncio.ensure_future(asyncio.to_thread(self.store.start_stage, *row))
        try:
            return await asyncio.shield(opening)
        except asyncio.CancelledError:
            record = await opening
            await self._close(record, stage, CANCELLED, started, error="cancelled by the attorney")
            raise

    async def _close(
        self, record: StageRecord, stage: Stage[Any], status: str, started: float, *, error: str | None = None
    ) -> None:
        record.status = status
        record.error = error
        record.seconds = time.perf_counter() - started
        # Shielded: a second cancel while the outcome is being written must not lose the write.
        await asyncio.shield(asyncio.to_thread(self.store.finish_stage, record))
        self.on_event(
            StageFinished(
                record.run_id, record.stage, stage.label, status, stage.summary_of(record), record.seconds
            )
        )

    async def _choose_evidence(self, run: Run) -> Run:
        """Choose the evidence once per run; every later stage (and a resume) sees the same sources."""
        try:
            chosen = run.reroute_for(DRAFT)
            drafter = (
                self.config.backend_named(chosen)
                if chosen
                else self.config.backend_for_role(run.drafter_role)
            )
        except ChambersError:
            drafter = None  # the draft stage itself refuses, naming the missing role
        task = await asyncio.to_thread(draft_task_text, run, self.prompts)  # reads the prompt template
        context = await choose_context(
            self.database_file,
            run.matter,
            task,
            drafter=drafter,
            policy=self.config.policy,
            rule=self.options.window,
            query=run.instructions,
        )
        await asyncio.to_thread(self.store.set_sources, run.id, context.sources, context.note)
        return await asyncio.to_thread(self.store.load, run.id)
