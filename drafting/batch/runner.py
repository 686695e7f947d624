"""``chambers batch run``: the batch's jobs through the pipeline, as many at once as each server has slots.

Each job is a normal pipeline run (router, gate, drafter, reviewer, verifier), made and linked to its
row when the job first starts; every role still goes to its one backend, nothing falls back. A job
starts only when every server it may send to has a slot free, counting the batch's own jobs there;
while the workstation is open one slot of each server stays free for the attorney. The queue is the
store's: a job is claimed before it starts and finished when its run ends, so Ctrl+C (the in-flight
runs are cancelled and keep their partial drafts) or kill -9 (their stages read as interrupted) leaves
nothing that ``run`` again does not resume, and nothing it runs twice.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drafting.batch.plan import plan_for
from drafting.batch.presence import batch_lock, workstation_open
from drafting.batch.servers import Server, backends_of, busy_slots, look_up
from drafting.batch.store import DONE, FAILED, PARTIAL, BatchStore, Finish, Job
from drafting.pipeline import Pipeline
from drafting.runs import Run
from drafting.stages import verify
from drafting.wiring import Wiring
from workspace.audit import messages_sha256
from workspace.config import Backend
from workspace.errors import ChambersError

POLL_S = 0.5  # how often a full batch looks again at the workstation and its servers


@dataclass
class Progress:
    """Where a batch stands: jobs by state, this session's total decode speed and the time left."""

    total: int
    done: int
    running: int
    failed: int
    waiting: int
    tok_s: float
    eta_s: float | None
    note: str = ""  # why nothing more starts (the workstation holds the last slot)

    def line(self) -> str:
        eta = "" if self.eta_s is None else f", about {duration(self.eta_s)} left"
        note = f" ({self.note})" if self.note else ""
        return (
            f"{self.done}/{self.total} done, {self.running} running, {self.failed} failed, "
            f"{self.waiting} waiting; {self.tok_s:.1f} tok/s{eta}{note}"
        )


@dataclass
class _InFlight:
    job: Job
    urls: tuple[str, ...]
    started: float
    peak: int = 0  # the most batch jobs its server(s) held while it ran, itself included
    began: bool = False  # its task ran its first step (a task cancelled before that never runs at all)


@dataclass
class _Session:
    started: float = field(default_factory=time.perf_counter)
    finished: int = 0
    tokens: int = 0


class BatchRunner:
    """Runs one batch (``run``); ``one_at_a_time`` for results that repeat, as eval's do."""

    def __init__(
        self,
        wiring: Wiring,
        *,
        one_at_a_time: bool = False,
        retry_failed: bool = False,
        workstation: Callable[[], bool] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.wiring = wiring
        self.config = wiring.config
        self.database_file = database_file = wiring.database_file
        self.one_at_a_time = one_at_a_time
        self.retry_failed = retry_failed
        self.workstation = workstation or (lambda: workstation_open(database_file))
        self.on_progress = on_progress or (lambda p: None)
        self.store = BatchStore(database_file)
        self.servers: dict[str, Server] = {}

    async def run(self, name: str) -> Progress:
        """Run batch ``name`` until no job waits. Cancelled, the jobs in flight are kept as partial."""
        batch = self.store.batch(name)
        with batch_lock(self.database_file, name):
            await asyncio.to_thread(self.store.recover, batch.id, self.retry_failed)
            return await self._drive(batch.id)

    async def plan(self, name: str) -> list[str]:
        """What ``run`` would do: each server's slots, how many jobs it would hold, and the measured gain."""
        batch = self.store.batch(name)
        jobs = await asyncio.to_thread(self.store.jobs, batch.id)
        tasks = sorted({j.task for j in jobs if j.state not in (DONE, FAILED)} or {batch.task})
        backends = [b for t in tasks for b in backends_of(t, self.config).values()]
        await self._know(backends)
        open_now = self.workstation()
        counts = await asyncio.to_thread(self.store.counts, batch.id)
        lines = [f"Batch '{name}': " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))]
        if open_now:
            lines.append("The workstation is open: one slot of each server is left to it.")
        for url in dict.fromkeys(b.url for b in backends):
            at_once = 1 if self.one_at_a_time else self.capacity(url, open_now)
            lines += plan_for(self.store, self.servers[url], at_once).lines()
        return lines

    def capacity(self, url: str, open_now: bool) -> int:
        """How many batch jobs server ``url`` may hold now."""
        if not url:
            return 1  # no server: the job is refused at once, naming the role it lacks
        slots = self.servers[url].slots if url in self.servers else 1
        return max(0, slots - (1 if open_now else 0))

    async def _drive(self, batch_id: int) -> Progress:
        flying: dict[asyncio.Task[int], _InFlight] = {}
        per_url: dict[str, int] = {}
        session = _Session()
        note = ""
        claiming: asyncio.Future[Job | None] | None = None
        try:
            while True:
                head = await asyncio.to_thread(self.store.peek, batch_id)
                while head is not None:
                    backends = backends_of(head.task, self.config)
                    await self._know(list(backends.values()))
                    # A job whose roles have no backend fails at once, one at a time, not all together.
                    urls = tuple(dict.fromkeys(b.url for b in backends.values())) or ("",)
                    open_now = self.workstation()
                    full = [u for u in urls if per_url.get(u, 0) >= self.capacity(u, open_now)]
                    if full or (self.one_at_a_time and flying):
                        note = _why_full(full, open_now, self.servers) if full and not flying else ""
                        break
                    # Shielded: a stop that comes while the claim's thread works must still see its job.
                    claiming = asyncio.ensure_future(asyncio.to_thread(self.store.claim, batch_id))
                    job = await asyncio.shield(claiming)
                    claiming = None
                    if job is None:
                        head = None
                        break
                    note = ""
                    for u in urls:
                        per_url[u] = per_url.get(u, 0) + 1
                    entry = _InFlight(job, urls, time.perf_counter())
                    flying[asyncio.create_task(self._job(entry, backends))] = entry
                    for other in flying.values():
                        other.peak = max([other.peak, *(per_url[u] for u in other.urls if u in urls)])
                    head = await asyncio.to_thread(self.store.peek, batch_id)
                self.on_progress(await self._progress(batch_id, session, len(flying), note))
                if not flying and head is None:
                    return await self._progress(batch_id, session, 0, "")
                if not flying:
                    await asyncio.sleep(POLL_S)  # the workstation holds the last slot: look again soon
                    continue
                ended, _ = await asyncio.wait(flying, timeout=POLL_S, return_when=asyncio.FIRST_COMPLETED)
                for task in ended:
                    entry = flying.pop(task)
                    for u in entry.urls:
                        per_url[u] -= 1
                    session.finished += 1
                    session.tokens += task.result()
        except asyncio.CancelledError:
            for task in flying:
                task.cancel()
            if flying:
                await asyncio.wait(flying)  # each records its run as cancelled, its job as partial
            await asyncio.shield(self._let_go(claiming, list(flying.values())))
            raise

    async def _let_go(self, claiming: asyncio.Future[Job | None] | None, flying: list[_InFlight]) -> None:
        """The jobs a stop took before they began wait again, untried: a task cancelled before its first
        step never reaches its own ``finally``, and a claim the stop interrupted still ends in its thread."""
        untried = [entry.job for entry in flying if not entry.began]
        if claiming is not None:
            await asyncio.wait([claiming])
            claimed = None if claiming.cancelled() or claiming.exception() else claiming.result()
            if claimed is not None:
                untried.append(claimed)
        for job in untried:
            await asyncio.to_thread(self.store.unclaim, job.id)

    async def _know(self, backends: list[Backend]) -> None:
        unknown = [b for b in backends if b.url not in self.servers]
        if unknown:
            self.servers.update(await look_up(unknown, self.config))

    async def _job(self, entry: _InFlight, backends: dict[str, Backend]) -> int:
        """One job's run, to its end; returns the tokens it decoded. Its outcome is on the job whatever it is."""
        entry.began = True
        job = entry.job
        first = next(iter(backends.values()), None)
        busy: int | None = None
        pipe = Pipeline(self.wiring)
        state, error = DONE, None
        run: Run | None = None
        try:
            busy = await busy_slots(first, self.config) if first is not None else None
            run_id = (
                job.run_id if job.run_id is not None else await asyncio.to_thread(self._new_run, pipe, job)
            )
            run = (await pipe.execute(run_id)).run
        except asyncio.CancelledError:
            state, error = PARTIAL, "stopped with the batch; `chambers batch run` resumes it"
            raise
        except ChambersError as exc:
            state, error = FAILED, str(exc)
        except Exception as exc:  # a fault of chambers itself: the job must not stay "running"
            state, error = FAILED, f"{type(exc).__name__}: {exc}"
        finally:
            run = await asyncio.shield(asyncio.to_thread(self._load, pipe, job.id)) if run is None else run
            finish = _finish(state, error, entry, busy, backends, run)
            await asyncio.shield(asyncio.to_thread(self.store.finish, job.id, finish))
        return finish.tokens

    def _new_run(self, pipe: Pipeline, job: Job) -> int:
        """The job's run, made once: a run a killed process made but did not link is adopted."""
        run_id = self.store.orphan_run(job)
        if run_id is None:
            run_id = pipe.start(job.matter, job.task, job.instructions).id
        self.store.link(job.id, run_id)
        return run_id

    def _load(self, pipe: Pipeline, job_id: int) -> Run | None:
        run_id = self.store.job(job_id).run_id
        return pipe.store.load(run_id) if run_id is not None else None

    async def _progress(self, batch_id: int, session: _Session, running: int, note: str) -> Progress:
        counts = await asyncio.to_thread(self.store.counts, batch_id)
        total = sum(counts.values())
        done, failed = counts.get(DONE, 0), counts.get(FAILED, 0)
        waiting = total - done - failed - running
        elapsed = time.perf_counter() - session.started
        eta = elapsed / session.finished * (waiting + running) if session.finished else None
        tok_s = session.tokens / elapsed if elapsed > 0 else 0.0
        return Progress(total, done, running, failed, waiting, tok_s, eta, note)


def _finish(
    state: str,
    error: str | None,
    entry: _InFlight,
    busy: int | None,
    backends: dict[str, Backend],
    run: Run | None,
) -> Finish:
    """What the job records: outcome, tokens, decode speed, and how it ran (concurrency, seed, build, request)."""
    stages = [s for s in (run.stages if run else []) if s.timings]
    tokens = sum(int(s.timings.get("predicted_n", 0)) for s in stages if s.timings)
    decode_ms = sum(float(s.timings.get("predicted_ms", 0.0)) for s in stages if s.timings)
    builds = sorted({s.server_build for s in (run.stages if run else []) if s.server_build})
    verified = verify.completed(run) if run is not None else None
    if run is not None and run.status in ("failed", "refused") and state == DONE:
        state, error = FAILED, f"the run ended {run.status}"
    roles: dict[str, Any] = {
        role: {"backend": b.name, "url": b.url, "model": b.model, "sampling": b.sampling.as_dict()}
        for role, b in backends.items()
    }
    calls = [
        {
            "stage": s.stage,
            "seq": s.seq,
            "backend": s.backend,
            "url": s.url,
            "model": s.model,
            "messages_sha256": messages_sha256(s.messages),
            "status": s.status,
        }
        for s in (run.stages if run else [])
        if s.backend
    ]
    return Finish(
        state=state,
        error=error,
        seconds=time.perf_counter() - entry.started,
        tokens=tokens,
        decode_tok_s=tokens / (decode_ms / 1000) if decode_ms > 0 else None,
        concurrency=max(entry.peak, 1),
        server_busy=busy,
        seed={role: b.sampling.seed for role, b in backends.items()},
        server_build=", ".join(builds) or None,
        request={"run": run.id if run else None, "roles": roles, "calls": calls},
        counts=verified.counts if verified is not None else None,
    )


def _why_full(full: list[str], open_now: bool, servers: dict[str, Server]) -> str:
    url = full[0]
    slots = servers[url].slots if url in servers else 1
    if open_now and slots <= 1:
        return f"{url} has one slot and the workstation is open; jobs start when it closes"
    return f"{url} is full"


def duration(seconds: float) -> str:
    """Seconds as he would say them: 40 s, 12 min, 3.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
