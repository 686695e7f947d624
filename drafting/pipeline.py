"""The drafting pipeline: route, gate, draft, review, verify, each on the backend its role names.

There is no fallback path in this module: each stage asks the config for the
one backend of its role (or the backend the attorney chose for that stage of
that run, recorded as a ``Choice``), and any failure becomes a ``StageRefused``
that stops the run where it is. Everything is written to the run as it
happens, so ``execute`` called again on a run that was cancelled, killed or
refused continues from the first stage not completed.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from backends.chat import ChatClient, ChatRequest
from backends.errors import BackendError, MalformedStream, PolicyRefusal
from backends.events import ContentDelta, Finished, PromptProgress
from backends.native import NativeClient
from drafting import schema as drafting_schema
from drafting import stages
from drafting.events import (
    DraftDelta,
    EventSink,
    RunEnded,
    StageFinished,
    StageProgress,
    StageStarted,
    StageTokens,
    ignore,
)
from drafting.refusal import StageRefused, refuse
from drafting.review import Finding, anchor_findings, merge_marks, parse_findings, review_schema
from drafting.runs import (
    CANCELLED,
    COMPLETED,
    FAILED,
    REFUSED,
    STOPPED,
    Choice,
    ContextSource,
    Run,
    StageRecord,
    now,
)  # fmt: skip
from drafting.store import RunStore
from drafting.tasks import (
    DRAFT,
    GATE,
    REVIEW,
    ROUTE,
    STAGE_LABELS,
    STAGE_ROLES,
    STAGES,
    VERIFY,
    DraftingInputError,
    drafter_role,
    task_type,
)  # fmt: skip
from drafting.timings import timings_phrase
from evidence.context import build_context
from evidence.matters import get_matter
from evidence.provenance import register_output
from workspace.audit import AuditLog
from workspace.config import Backend, Config, NoBackendForRole, Sampling
from workspace.database import connect
from workspace.errors import ChambersError
from workspace.paths import write_atomically


@dataclass
class PipelineOptions:
    """Knobs the tests and the benchmark turn; the defaults suit the attorney's servers."""

    max_context_tokens: int | None = None  # cap on the window the evidence is fitted to
    default_n_ctx: int = 4096  # when the drafter's server cannot say (Ollama, or /props unavailable)
    reserve_tokens: int = 1024  # room kept in the window for the answer
    max_findings: int = 6
    json_text_chars: int = 240  # longest string in a JSON answer
    partial_every_s: float = 0.5  # how often the streamed draft is saved


@dataclass
class StageTiming:
    """Where a run's time went; the benchmark reads it."""

    stage: str
    seconds: float
    client_seconds: float  # inside the backend client's call (connection, server, audit write)
    server_ms: float  # the server's own prompt + generation time


@dataclass
class Outcome:
    run: Run
    timings: list[StageTiming] = field(default_factory=list)


class Pipeline:
    """Runs drafting tasks against the configured backends.

    Args:
        config: the attorney's config; each stage uses ``backend_for_role`` (no fallback).
        database_file: where runs, contexts and the audit trail live.
        prompts: the workspace folder of editable prompt templates (None: shipped defaults).
        on_event: receives ``drafting.events`` as the run goes.
        issued_ranges: a matter's issued Bates production ranges (prefix, first, last), for the verifier.
    """

    def __init__(
        self,
        config: Config,
        database_file: Path,
        *,
        prompts: Path | None = None,
        options: PipelineOptions | None = None,
        on_event: EventSink = ignore,
        audit: AuditLog | None = None,
        issued_ranges: Callable[[str], Sequence[tuple[str, int, int]]] | None = None,
    ) -> None:
        self.issued_ranges = issued_ranges
        self.config = config
        self.database_file = database_file
        self.prompts = prompts
        self.options = options or PipelineOptions()
        self.on_event = on_event
        self.audit = audit or AuditLog(database_file)
        self.store = RunStore(database_file)

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
        db = connect(self.database_file, drafting_schema.SCHEMA)
        try:
            get_matter(db, matter)
        finally:
            db.close()
        run = self.store.create(matter, kind.name, instructions.strip(), role, list(kind.plan))
        if drafter is not None:
            self.store.add_choice(run.id, Choice("drafter", DRAFT, role, "chosen by the attorney", now()))
        return self.store.load(run.id)

    def choose(
        self, run_id: int, *, reroutes: Sequence[tuple[str, str]] = (), reason: str = "",
        go_on_anyway: str | None = None,
    ) -> Run:  # fmt: skip
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

    # --- running ---

    async def execute(self, run_id: int) -> Outcome:
        """Run (or resume) the run from its first stage not completed.

        Returns the outcome when the run completes or the gate stops it.

        Raises:
            StageRefused: a stage could not run on its backend; the run keeps what it has.
            asyncio.CancelledError: cancelled; the partial draft is kept.
        """
        self.store.mark_interrupted(run_id)
        self.store.set_status(run_id, "running")
        outcome = Outcome(self.store.load(run_id))
        while True:
            run = self.store.load(run_id)
            outcome.run = run
            stage = run.next_stage()
            if stage is None:
                return self._end(outcome, COMPLETED, "The run is complete.")
            gate = run.completed(GATE)
            if gate is not None and gate.result.get("basis") == "no" and run.choice("gate_override") is None:
                reasons = "; ".join(gate.result.get("reasons", [])) or "(the gate gave no reasons)"
                return self._end(
                    outcome, STOPPED,
                    f"The gate found no basis for this task: {reasons}. To go on anyway, run "
                    f"`chambers runs resume {run.id} --go-on-anyway REASON`; the reason is recorded.",
                )  # fmt: skip
            try:
                timing = await self._stage(run, stage)
            except StageRefused as exc:
                self._end(outcome, REFUSED, str(exc))
                raise
            except asyncio.CancelledError:
                self._end(outcome, CANCELLED, "Cancelled; the partial draft is kept.")
                raise
            except ChambersError as exc:
                self._end(outcome, FAILED, str(exc))
                raise
            except Exception as exc:  # a fault of chambers itself: neither run nor stage may stay "running"
                self.store.mark_interrupted(run_id)
                self._end(outcome, FAILED, f"{type(exc).__name__}: {exc}")
                raise
            outcome.timings.append(timing)

    def _end(self, outcome: Outcome, status: str, message: str) -> Outcome:
        self.store.set_status(outcome.run.id, status)
        outcome.run = self.store.load(outcome.run.id)
        self.on_event(RunEnded(outcome.run.id, status, message))
        return outcome

    async def _stage(self, run: Run, stage: str) -> StageTiming:
        started = time.perf_counter()
        if stage == VERIFY:
            record = self._verify(run)
            return StageTiming(stage, time.perf_counter() - started, 0.0, 0.0)
        role = run.drafter_role if stage == DRAFT else STAGE_ROLES[stage]
        if stage == ROUTE and run.reroute_for(ROUTE) is None and not self._has_role("router"):
            record = self._route_by_rules(run)
            return StageTiming(stage, time.perf_counter() - started, 0.0, 0.0)
        label = STAGE_LABELS[stage]
        try:
            chosen = run.reroute_for(stage)
            backend = self.config.backend_named(chosen) if chosen else self.config.backend_for_role(role)
        except NoBackendForRole as exc:
            record = self.store.start_stage(run.id, stage, role, None, None, None, [])
            refusal = refuse(label, stage, run.id, exc, None, role)
            self._close(record, REFUSED, started, error=str(refusal))
            raise refusal from exc
        if stage in (GATE, DRAFT, REVIEW) and not run.context_note:
            run = await self._build_context(run)
        messages = self._messages(run, stage)
        record = self.store.start_stage(
            run.id, stage, role, backend.name, backend.url, backend.model, messages
        )
        self.on_event(StageStarted(run.id, stage, label, role, backend.name, backend.url))
        client = ChatClient(backend, self.config.policy, self.audit)
        pieces: list[str] = []
        call_started = time.perf_counter()
        persist = 0.0
        try:
            if stage == DRAFT:
                request = ChatRequest(messages, return_progress=True)
                finished, persist = await self._stream(client, request, role, record, pieces)
                answer: Any = None
            else:
                request = ChatRequest(
                    messages, sampling=self.json_sampling(backend, stage), return_progress=True
                )
                answer, finished = await self._json(client, request, record, role)
        except (BackendError, PolicyRefusal) as exc:
            record.output = "".join(pieces) or getattr(exc, "partial", "")
            refusal = refuse(label, stage, run.id, exc, backend, role)
            self._close(record, REFUSED, started, error=str(refusal))
            raise refusal from exc
        except asyncio.CancelledError:
            record.output = "".join(pieces)
            self._close(record, CANCELLED, started, error="cancelled by the attorney")
            raise
        except Exception as exc:  # anything else ends the stage too, so no stage is left "running"
            record.output = "".join(pieces)
            self._close(record, FAILED, started, error=f"{type(exc).__name__}: {exc}")
            raise
        client_seconds = time.perf_counter() - call_started - persist
        record.server_build = client.server_build
        record.adapter, record.adapter_sha256 = client.adapter_record()
        record.model = finished.model or backend.model
        record.timings = finished.timings.as_dict() if finished.timings else None
        record.model_seconds = client_seconds
        record.output = finished.text
        record.result = self._result(run, stage, answer, finished)
        self._close(record, COMPLETED, started)
        server_ms = (finished.timings.prompt_ms + finished.timings.predicted_ms) if finished.timings else 0.0
        return StageTiming(stage, time.perf_counter() - started, client_seconds, server_ms)

    def _has_role(self, role: str) -> bool:
        return any(role in b.roles for b in self.config.backends)

    def json_sampling(self, backend: Backend, stage: str) -> Sampling:
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
        chars = self.options.json_text_chars
        worst = {
            ROUTE: chars + 120,
            GATE: 4 * chars + 8 * 16 + 120,
            REVIEW: self.options.max_findings * (3 * chars + 100) + 40,
        }[stage]
        return Sampling(max_tokens=max(backend.sampling.max_tokens or 0, worst + 32), repeat_penalty=1.0)

    def _messages(self, run: Run, stage: str) -> list[dict[str, Any]]:
        if stage == ROUTE:
            return stages.route_messages(run, self.prompts)
        if stage == GATE:
            return stages.gate_messages(run, self.prompts)
        if stage == DRAFT:
            return stages.draft_messages(run, self.prompts)
        return stages.review_messages(run, run.draft, self.prompts)

    def json_schema(self, stage: str) -> dict[str, Any]:
        """The bounded JSON a stage must answer with; ``json_sampling`` sizes its budget from the same bounds."""
        chars = self.options.json_text_chars
        return {
            ROUTE: stages.router_schema(chars),
            GATE: stages.gate_schema(chars),
            REVIEW: review_schema(self.options.max_findings, chars),
        }[stage]

    async def _json(
        self, client: ChatClient, request: ChatRequest, record: StageRecord, role: str
    ) -> tuple[Any, Finished]:
        request.json_schema = self.json_schema(record.stage)
        written = [0]

        def count(_: ContentDelta) -> None:
            written[0] += 1
            self.on_event(StageTokens(record.run_id, record.stage, written[0]))

        finished = await client.complete(
            request, role=role, on_progress=partial(self._progress, record), on_delta=count
        )
        try:
            return json.loads(finished.text), finished
        except json.JSONDecodeError as exc:
            raise MalformedStream(
                f"Backend '{client.backend.name}' sent text that is not the JSON asked for ({exc.msg}).",
                backend=client.backend.name,
                url=client.backend.url,
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
                    self.store.save_partial(record.id, "".join(pieces))
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

    def _close(self, record: StageRecord, status: str, started: float, *, error: str | None = None) -> None:
        record.status = status
        record.error = error
        record.seconds = time.perf_counter() - started
        self.store.finish_stage(record)
        label = STAGE_LABELS[record.stage]
        self.on_event(
            StageFinished(record.run_id, record.stage, label, status, _summary(record), record.seconds)
        )

    # --- stages that are code, and the stages' results ---

    def _route_by_rules(self, run: Run) -> StageRecord:
        started = time.perf_counter()
        record = self.store.start_stage(run.id, ROUTE, None, None, None, None, [])
        self.on_event(StageStarted(run.id, ROUTE, STAGE_LABELS[ROUTE], None, None, None))
        record.result = self._route_result(
            run, {"suggested_task": None, "suggested_drafter": None, "reason": ""}
        )
        record.result["by"] = "rules (no router backend is configured)"
        self._close(record, COMPLETED, started)
        return record

    def _route_result(self, run: Run, suggestion: dict[str, Any]) -> dict[str, Any]:
        rule = task_type(run.task_type).drafter_role
        by_attorney = run.choice("drafter") is not None
        return {
            **suggestion,
            "by": "router",
            "rule_drafter": rule,
            "task": run.task_type,
            "drafter": run.drafter_role,
            "drafter_chosen_by": "the attorney" if by_attorney else "the rules for this task",
        }

    def _result(self, run: Run, stage: str, answer: Any, finished: Finished) -> dict[str, Any]:
        if stage == ROUTE:
            return self._route_result(run, stages.parse_route(answer))
        if stage == GATE:
            return stages.parse_gate(answer)
        if stage == REVIEW:
            findings = anchor_findings(run.draft, parse_findings(answer))
            return {
                "findings": [f.as_dict() for f in findings],
                "anchored": sum(f.start is not None for f in findings),
                "unanchored": sum(f.start is None for f in findings),
            }
        # the draft: registered as chambers' own output, so ingest never takes it for evidence
        if finished.text.strip():
            register_output(self.database_file, finished.text, "draft")
        return {"chars": len(finished.text), "finish_reason": finished.finish_reason}

    def _verify(self, run: Run) -> StageRecord:
        from drafting.verify import may_export_final, verify_draft

        started = time.perf_counter()
        record = self.store.start_stage(run.id, VERIFY, None, None, None, None, [])
        self.on_event(StageStarted(run.id, VERIFY, STAGE_LABELS[VERIFY], None, None, None))
        draft = run.draft
        review = run.completed(REVIEW)
        findings = [Finding(**f) for f in (review.result["findings"] if review is not None else [])]
        if draft.strip():
            file = self.database_file.parent / "runs" / f"run-{run.id}-draft.md"
            write_atomically(file, draft.encode("utf-8"))
            try:
                issued = self.issued_ranges(run.matter) if self.issued_ranges is not None else ()
                report = verify_draft(self.database_file, file, run.matter, productions=issued)
            except ChambersError as exc:
                self._close(record, FAILED, started, error=str(exc))
                raise
            flags = report.to_dict()["flags"]
            allowed, why = may_export_final(report)
            record.result = {"report": report.to_dict(), "may_export_final": allowed, "why": why}
        else:
            flags, allowed = [], False
            record.result = {"report": None, "may_export_final": False, "why": "The drafter wrote nothing."}
        record.result["marks"] = [m.as_dict() for m in merge_marks(draft, flags, findings)]
        record.result["unanchored"] = [f.as_dict() for f in findings if f.start is None]
        self._close(record, COMPLETED, started)
        return record

    async def _build_context(self, run: Run) -> Run:
        """Choose the evidence once per run; every later stage (and a resume) sees the same sources."""
        window, note = await self._window(run)
        bundle = await asyncio.to_thread(
            build_context,
            self.database_file,
            run.matter,
            stages.draft_task_text(run, self.prompts),
            n_ctx=window,
            query=run.instructions,
            reserve_for_answer=min(self.options.reserve_tokens, window // 2),
        )
        sources = [
            ContextSource(c.label, c.provenance.path, c.provenance.part, c.provenance.page_no,
                          c.provenance.bates, c.provenance.sha256, c.text)
            for c in bundle.chunks
        ]  # fmt: skip
        note += (
            f"; {len(sources)} pages chosen, {bundle.tokens} of {bundle.budget} tokens ({bundle.counted_by}); "
            f"{bundle.left_out} relevant pages did not fit; {len(bundle.refused)} refused as not primary"
        )
        self.store.set_sources(run.id, sources, note)
        return self.store.load(run.id)

    async def _window(self, run: Run) -> tuple[int, str]:
        cap = self.options.max_context_tokens
        window, note = self.options.default_n_ctx, f"window {self.options.default_n_ctx} tokens assumed"
        try:
            chosen = run.reroute_for(DRAFT)
            backend = (
                self.config.backend_named(chosen)
                if chosen
                else self.config.backend_for_role(run.drafter_role)
            )
        except ChambersError:
            backend = None  # the draft stage itself refuses, naming the missing role
        if backend is not None and backend.kind == "llamacpp":
            try:
                props = await NativeClient(backend, self.config.policy).props()
                if props.n_ctx:
                    window, note = props.n_ctx, f"window {props.n_ctx} tokens (the drafter's /props)"
            except (BackendError, PolicyRefusal) as exc:
                note = f"window {window} tokens assumed: the drafter's /props was unavailable ({exc.title})"
        if cap is not None and cap < window:
            window, note = cap, f"{note}, capped at {cap}"
        return window, note


def _summary(record: StageRecord) -> str:
    if record.status != COMPLETED:
        return record.error or record.status
    r = record.result
    if record.stage == ROUTE:
        suggestion = (
            f"; router suggests {r['suggested_task']} on {r['suggested_drafter']}"
            if r.get("suggested_task")
            else ""
        )
        return f"task {r['task']}, drafter '{r['drafter']}' ({r['drafter_chosen_by']}){suggestion}"
    if record.stage == GATE:
        # The reasons are the model's words, which may themselves be "no" or "partial": quoted after
        # the verdict so the line reads as one verdict.
        reasons = "; ".join(f'"{reason}"' for reason in r["reasons"])
        return f"verdict {r['basis'].upper()}" + (f", because {reasons}" if reasons else ", no reasons given")
    if record.stage == DRAFT:
        t = record.timings or {}
        said = f"; {timings_phrase(t)}" if t else ""
        return f"{r['chars']} characters{said}"
    if record.stage == REVIEW:
        return f"{r['anchored']} findings anchored, {r['unanchored']} could not be anchored"
    counts = (r.get("report") or {}).get("counts", {})
    return (
        f"{counts.get('block', 0)} blocking, {counts.get('warn', 0)} to review, {counts.get('ok', 0)} grounded; "
        f"{len(r['marks'])} marks in all"
    )
