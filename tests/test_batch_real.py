"""Batches on a real llama-server with four slots (-np 4): the whole pipeline, kill -9, the workstation's slot."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from backends.local_server import LlamaServerProcess
from drafting.batch.presence import workstation_present
from drafting.batch.runner import BatchRunner, Progress
from drafting.batch.store import BatchStore
from drafting.store import RunStore
from drafting.wiring import wire
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.batch_setup import TEMPLATE, debtors_csv, drafter_only, queue
from tests.support.pipeline_setup import OPTIONS, demo_database, role_config
from tui.cli.main import main
from workspace.paths import Paths


@pytest.fixture
def db(isolated_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), Paths.from_environment().database_file)


def _runs(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT COUNT(*) FROM drafting_runs").fetchone()[0])
    finally:
        con.close()


def _calls_in_flight(db: Path, store: BatchStore, batch: int) -> list[tuple[int, int]]:
    """(run, stage seq) of every stage still running in a job in flight: what a kill now cuts short."""
    runs = [RunStore(db).load(j.run_id) for j in store.jobs(batch) if j.state == "running" and j.run_id]
    return [(run.id, s.seq) for run in runs for s in run.stages if s.status == "running"]


def _answers_streaming(db: Path, store: BatchStore, batch: int) -> list[tuple[int, int]]:
    """(run, stage seq) of every model call whose answer has begun to come and not yet ended."""
    runs = [RunStore(db).load(j.run_id) for j in store.jobs(batch) if j.state == "running" and j.run_id]
    return [(r.id, s.seq) for r in runs for s in r.stages if s.status == "running" and s.role and s.output]


async def test_twelve_jobs_from_a_csv_run_through_the_whole_pipeline_on_four_slots(
    db: Path, tmp_path: Path, llama_server_np4: LlamaServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    template = tmp_path / "template.md"
    template.write_text(TEMPLATE, encoding="utf-8")
    source = debtors_csv(tmp_path, 12, broken=True)
    args = [
        "batch",
        "new",
        "debtors",
        "--matter",
        SAMPLE_MATTER,
        "--task",
        "demand-letter",
        "--jobs",
        str(source),
        "--instructions",
        str(template),
    ]
    assert main(args) == 0
    said = capsys.readouterr().out
    # The dry run: the first rows rendered, the broken rows by line; the others still queued.
    assert "Demand that Debtor 0 pay invoice INV-100 of $250" in said
    assert "line 3: has no value for {invoice}" in said
    assert "line 5: names matter 'no-such-matter', which does not exist" in said
    assert "12 job(s) can run, 2 row(s) cannot." in said

    seen: list[Progress] = []
    # Every stage runs, on short answers and a small window: 12 jobs x 4 model calls on 2 shared cores.
    config = role_config({}, llama_server_np4.url)
    short = tuple(
        replace(b, sampling=replace(b.sampling, max_tokens=min(b.sampling.max_tokens or 48, 48)))
        for b in config.backends
    )
    runner = BatchRunner(
        wire(replace(config, backends=short), db, options=replace(OPTIONS, max_context_tokens=600)),
        workstation=lambda: False,
        on_progress=seen.append,
    )
    final = await runner.run("debtors")

    store = BatchStore(db)
    jobs = store.jobs(store.batch("debtors").id)
    assert len(jobs) == 12 and final.done == 12 and final.failed == 0
    assert [p.line_no for p in store.problems(jobs[0].batch_id)] == [3, 5]
    assert runner.servers[llama_server_np4.url].slots == 4
    assert max(j.concurrency or 0 for j in jobs) == 4  # four at once, never more
    assert any(p.running == 4 for p in seen) and all(p.running <= 4 for p in seen)
    assert len({j.run_id for j in jobs}) == 12 and _runs(db) == 12
    for job in jobs:
        assert job.state == "done" and job.run_id is not None and job.attempts == 1
        run = RunStore(db).load(job.run_id)
        assert run.instructions == job.instructions and job.fields["debtor"] in run.instructions
        # Verified or flagged: the verifier's counts, or the gate's stop with its reasons.
        assert run.status in ("completed", "stopped"), [(s.stage, s.status, s.error) for s in run.stages]
        if run.status == "completed":
            assert [s.stage for s in run.stages] == ["route", "gate", "draft", "review", "verify"]
            assert job.counts is not None and set(job.counts) <= {"block", "warn", "ok"}
        else:
            assert run.stages[-1].stage == "gate" and run.stages[-1].result["basis"] == "no"
        # How it ran, for whoever repeats it: concurrency, seed, build and the exact request.
        assert job.seed == {"router": 1, "gate": 1, "drafter": 1, "heavy": 1, "reviewer": 1}
        assert job.server_build and job.server_build in {s.server_build for s in run.stages}
        calls = job.request["calls"] if job.request else []
        assert [c["stage"] for c in calls] == [s.stage for s in run.stages if s.backend]
        assert all(c["url"] == llama_server_np4.url for c in calls)
        assert job.tokens and job.tokens > 0


async def test_kill_9_mid_batch_then_run_again_does_every_job_exactly_once(
    db: Path, tmp_path: Path, llama_server_np4: LlamaServerProcess
) -> None:
    batch = queue(db, tmp_path, 8)
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.support.batch_child", str(db), llama_server_np4.url, "b", "48"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    store = BatchStore(db)
    try:
        assert child.stdout is not None
        for _line in child.stdout:  # until some are done and others in flight
            counts = store.counts(batch)
            if counts.get("done", 0) >= 2 and counts.get("running", 0) >= 1:
                break
        else:
            pytest.fail(f"the child batch ended before it could be killed: {store.counts(batch)}")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    at_kill = store.counts(batch)
    in_flight = {j.id for j in store.jobs(batch) if j.state == "running"}
    assert in_flight and at_kill.get("done", 0) >= 2
    cut_short = _calls_in_flight(db, store, batch)  # a job may be between two stages when it dies

    final = await BatchRunner(
        wire(drafter_only(llama_server_np4.url), db, options=replace(OPTIONS)), workstation=lambda: False
    ).run("b")
    jobs = store.jobs(batch)
    assert final.done == 8 and all(j.state == "done" for j in jobs)
    assert len({j.run_id for j in jobs}) == 8 and _runs(db) == 8  # one run per job, none made twice
    for job in jobs:
        run = RunStore(db).load(job.run_id or 0)
        assert [s.stage for s in run.stages if s.status == "completed"] == ["route", "draft", "verify"]
        assert job.attempts == (2 if job.id in in_flight else 1)
    # Resumed where they stopped: each attempt the kill cut short is on the record, not redone silently.
    for run_id, seq in cut_short:
        assert next(s for s in RunStore(db).load(run_id).stages if s.seq == seq).status == "interrupted"


async def test_with_the_workstation_open_one_slot_of_four_stays_free(
    db: Path, tmp_path: Path, llama_server_np4: LlamaServerProcess
) -> None:
    batch = queue(db, tmp_path, 6)
    busiest = [0]
    done = asyncio.Event()

    async def count_at_the_server() -> None:
        async with httpx.AsyncClient() as client:
            while not done.is_set():
                slots = (await client.get(llama_server_np4.url + "/slots")).json()
                busiest[0] = max(busiest[0], sum(1 for s in slots if s["is_processing"]))
                await asyncio.sleep(0.02)

    counting = asyncio.create_task(count_at_the_server())
    with workstation_present(db) as held:
        assert held
        runner = BatchRunner(
            wire(drafter_only(llama_server_np4.url, max_tokens=24), db, options=replace(OPTIONS))
        )
        final = await runner.run("b")
    done.set()
    await counting
    jobs = BatchStore(db).jobs(batch)
    assert final.done == 6
    assert max(j.concurrency or 0 for j in jobs) == 3
    assert 1 <= busiest[0] <= 3, busiest[0]


async def test_stopping_keeps_the_jobs_in_flight_as_partial_runs_and_run_again_finishes_them(
    db: Path, tmp_path: Path, llama_server_np4: LlamaServerProcess
) -> None:
    """What Ctrl-C does: ``asyncio.run`` cancels the batch's task, as here."""
    batch = queue(db, tmp_path, 5)
    store = BatchStore(db)
    config = drafter_only(llama_server_np4.url, max_tokens=160)
    # Each token saved as it comes, so the look below sees an answer mid-stream, not a stage that only
    # runs code (a stop lets that finish) or a call whose first token has not come yet.
    streaming = replace(OPTIONS, partial_every_s=0.0)
    running = asyncio.create_task(
        BatchRunner(wire(config, db, options=streaming), workstation=lambda: False).run("b")
    )
    while not (mid_call := _answers_streaming(db, store, batch)):
        await asyncio.sleep(0.02)
    running.cancel()  # at once: nothing else runs on the loop between the look and the cancel
    with pytest.raises(asyncio.CancelledError):
        await running
    stopped = [j for j in store.jobs(batch) if j.state == "partial"]
    assert stopped and not any(j.state == "running" for j in store.jobs(batch))
    runs = [RunStore(db).load(j.run_id) for j in stopped if j.run_id]
    # No stopped run is left running, nor any of its stages, wherever the stop found it (one stopped
    # before its first stage still reads "created").
    assert all(run.status in ("cancelled", "created") for run in runs), [(r.id, r.status) for r in runs]
    assert not any(s.status == "running" for run in runs for s in run.stages)
    # The answers the stop cut short are kept as cancelled drafts, with what had come of them.
    ended = {(run.id, s.seq): s for run in runs for s in run.stages}
    cut = [ended[key] for key in mid_call if key in ended]
    # (A call whose answer was being written when the stop came is kept completed.)
    assert any(s.status == "cancelled" for s in cut) and all(
        s.status in ("cancelled", "completed") for s in cut
    )

    final = await BatchRunner(wire(config, db, options=replace(OPTIONS)), workstation=lambda: False).run("b")
    assert final.done == 5 and _runs(db) == 5
    for job in store.jobs(batch):
        assert job.attempts == (2 if job.id in {j.id for j in stopped} else 1)


async def test_a_stop_that_comes_while_a_job_is_being_claimed_leaves_that_job_waiting_untried(
    db: Path, tmp_path: Path, llama_server_np4: LlamaServerProcess
) -> None:
    """The claim's own thread asks for the stop, so it lands while the claim is still in flight."""
    batch = queue(db, tmp_path, 2)
    runner = BatchRunner(
        wire(drafter_only(llama_server_np4.url, max_tokens=16), db, options=replace(OPTIONS)),
        workstation=lambda: False,
    )
    loop = asyncio.get_running_loop()
    claim = runner.store.claim

    def claim_then_stop(batch_id: int, skip: tuple[int, ...] = ()) -> object:
        job = claim(batch_id, skip)
        loop.call_soon_threadsafe(running.cancel)
        return job

    runner.store.claim = claim_then_stop  # type: ignore[method-assign]
    running = asyncio.create_task(runner.run("b"))
    with pytest.raises(asyncio.CancelledError):
        await running
    jobs = BatchStore(db).jobs(batch)
    assert [(j.state, j.attempts, j.run_id) for j in jobs] == [("queued", 0, None)] * 2
