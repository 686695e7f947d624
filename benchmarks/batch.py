"""What batching on a server's parallel slots gains, and what chambers costs around it.

The same jobs run twice through one llama-server started with ``-np 4``, in the same run: one at a
time (``--one-at-a-time``), then batched (as many at once as the server has slots). Each job is a
normal pipeline run on the demo matter. It reports:

- the server's own limit first: the same number of plain completions of the same length sent one at
  a time and then four at once, with no chambers in between (what batching can gain at best here);
- the ratio of total time, batched over one at a time (target <= 0.67x);
- the ratio of decode throughput (tokens decoded over wall time), batched over one at a time;
- chambers' own time outside model calls: the wall time in which no model call of the batch was in
  flight, as a share of the batch's wall time (target < 2%);
- the queue's bookkeeping for ``--queue-jobs`` queued jobs (10,000 by default): every job claimed and
  finished through the store, with the traced memory peak over the first and the last thousand
  (flat: the last within 1.5x of the first).

Benchmarks report; they do not fail: each target prints PASS or MISS and the exit status is 0.
``--task summary`` (the default) makes one model call per job (the drafter; routing by the rules, the
verifier is code), so the figures are the slots' and not the tiny model's gate verdicts;
``--task demand-letter`` runs every stage.

    python -m benchmarks.batch [--jobs 12] [--draft-tokens 64] [--task summary] [--queue-jobs 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import tracemalloc
from datetime import datetime
from pathlib import Path

import httpx

from backends.local_server import LlamaServerProcess, ensure_demo_model, ensure_llama_server
from drafting.batch.runner import BatchRunner
from drafting.batch.store import BatchStore, Finish
from drafting.batch.table import Row
from drafting.options import PipelineOptions
from drafting.store import RunStore
from drafting.wiring import wire
from evidence.ingest import ingest_matter
from evidence.sample_matter import SAMPLE_MATTER, prepare_sample_matter
from workspace.config import Backend, Config, Policy, Sampling

TIME_TARGET, OVERHEAD_TARGET, FLAT = 0.67, 0.02, 1.5
TEMPLATE = (
    "Summarise what {debtor} owes under invoice {invoice} and why, from the supply agreement and the record."
)


def config(url: str, draft_tokens: int) -> Config:
    def backend(name: str, roles: tuple[str, ...], max_tokens: int) -> Backend:
        return Backend(
            name=name,
            kind="llamacpp",
            url=url,
            roles=roles,
            sampling=Sampling(temperature=0.0, seed=1, max_tokens=max_tokens),
        )

    return Config(
        file="benchmark",
        policy=Policy(),
        boards=(),
        backends=(
            backend("router", ("router",), 200),
            backend("gate", ("gate",), 300),
            backend("workhorse", ("drafter", "heavy", "extractor"), draft_tokens),
            backend("reviewer", ("reviewer",), 400),
        ),
    )


def rows(n: int, task: str) -> list[Row]:
    out = []
    for i in range(n):
        fields = {"debtor": f"Debtor {i}", "invoice": f"INV-{1000 + i}"}
        out.append(Row(i + 2, f"debtor-{i}", fields, SAMPLE_MATTER, task, TEMPLATE.format_map(fields)))
    return out


async def server_limit(url: str, n: int, tokens: int) -> tuple[float, float]:
    """Seconds for ``n`` plain completions one at a time, then four at once."""
    body = {
        "prompt": "The supplier's letter to the buyer about the freezer reads:",
        "n_predict": tokens,
        "temperature": 0,
        "ignore_eos": True,
    }
    async with httpx.AsyncClient(timeout=600) as client:

        async def one() -> None:
            (await client.post(url + "/completion", json=body)).raise_for_status()

        t0 = time.perf_counter()
        for _ in range(n):
            await one()
        alone = time.perf_counter() - t0
        t0 = time.perf_counter()
        for start in range(0, n, 4):
            await asyncio.gather(*(one() for _ in range(min(4, n - start))))
        return alone, time.perf_counter() - t0


def batch_figures(db: Path, name: str, wall: float) -> tuple[int, float, int]:
    """(tokens decoded, seconds no model call was in flight, highest concurrency) of batch ``name``."""
    store = BatchStore(db)
    jobs = store.jobs(store.batch(name).id)
    spans: list[tuple[float, float]] = []
    for job in jobs:
        for stage in RunStore(db).load(job.run_id or 0).stages:
            if stage.model_seconds and stage.finished_at:
                end = datetime.fromisoformat(stage.finished_at).timestamp()
                spans.append((end - stage.model_seconds, end))
    covered, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    tokens = sum(j.tokens or 0 for j in jobs)
    return tokens, max(0.0, wall - covered), max(j.concurrency or 0 for j in jobs)


def run_batch(db: Path, url: str, name: str, args: argparse.Namespace, one_at_a_time: bool) -> float:
    store = BatchStore(db)
    store.create(name, SAMPLE_MATTER, args.task, TEMPLATE, "benchmark", rows(args.jobs, args.task), [])
    options = PipelineOptions(max_context_tokens=1024, reserve_tokens=256)
    runner = BatchRunner(
        wire(config(url, args.draft_tokens), db, options=options),
        one_at_a_time=one_at_a_time,
        workstation=lambda: False,
    )
    t0 = time.perf_counter()
    final = asyncio.run(runner.run(name))
    wall = time.perf_counter() - t0
    print(f"  {name}: {final.line()} in {wall:.1f} s", flush=True)
    return wall


def queue_memory(root: Path, n: int) -> tuple[int, int, float]:
    """Traced peak (bytes) over the first and the last thousand jobs claimed and finished, and seconds in all."""
    db = root / "queue.sqlite3"
    store = BatchStore(db)
    batch = store.create("queue", SAMPLE_MATTER, "summary", TEMPLATE, "benchmark", rows(n, "summary"), []).id
    done = Finish("done", None, 1.0, 10, 10.0, 4, None, {"drafter": 1}, "b0", {"calls": []}, {"block": 0})
    peaks: list[int] = []
    t0 = time.perf_counter()
    tracemalloc.start()
    for i in range(n):
        if i % 1000 == 0:
            tracemalloc.reset_peak()
        job = store.claim(batch)
        assert job is not None
        store.finish(job.id, done)
        store.counts(batch)  # as the runner's progress line asks after each job
        if i % 1000 == 999 or i == n - 1:
            peaks.append(tracemalloc.get_traced_memory()[1])
    tracemalloc.stop()
    return peaks[0], peaks[-1], time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=12)
    parser.add_argument("--draft-tokens", type=int, default=64)
    parser.add_argument("--task", default="summary")
    parser.add_argument("--queue-jobs", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chambers-bench-") as tmp:
        root = Path(tmp)
        db = root / "chambers.sqlite3"
        print("Preparing the demo matter (generate, OCR, ingest)...", flush=True)
        prepare_sample_matter(db, root / "matter")
        ingest_matter(db, SAMPLE_MATTER)
        server = LlamaServerProcess(
            ensure_llama_server(print),
            ensure_demo_model(print),
            extra_args=("--jinja", "--slots", "-np", "4"),
            log_file=root / "server.log",
        )
        with server:
            alone, together = asyncio.run(server_limit(server.url, args.jobs, args.draft_tokens))
            print(
                f"\nThe server's own limit ({args.jobs} completions of {args.draft_tokens} tokens, no chambers): "
                f"one at a time {alone:.1f} s, four at once {together:.1f} s: {together / alone:.2f}x"
            )
            print(f"\n{args.jobs} jobs ({args.task}), one at a time, then batched on 4 slots:", flush=True)
            seq_wall = run_batch(db, server.url, "one-at-a-time", args, True)
            par_wall = run_batch(db, server.url, "batched", args, False)
        seq_tokens, seq_idle, _ = batch_figures(db, "one-at-a-time", seq_wall)
        par_tokens, par_idle, peak = batch_figures(db, "batched", par_wall)
    ratio = par_wall / seq_wall
    decode = (par_tokens / par_wall) / (seq_tokens / seq_wall) if seq_tokens and par_tokens else float("nan")
    print(
        f"\n  total time, batched over one at a time: {ratio:.2f}x (target <= {TIME_TARGET}x: "
        f"{'PASS' if ratio <= TIME_TARGET else 'MISS'}; the server's own limit here {together / alone:.2f}x)"
    )
    print(
        f"  decode throughput, batched over one at a time: {decode:.2f}x "
        f"({par_tokens / par_wall:.1f} vs {seq_tokens / seq_wall:.1f} tok/s; {peak} jobs at once at most)"
    )
    for name, idle, wall in (("one at a time", seq_idle, seq_wall), ("batched", par_idle, par_wall)):
        share = idle / wall
        print(
            f"  chambers outside model calls, {name}: {idle:.2f} s of {wall:.1f} s = {share:.2%} "
            f"(target < {OVERHEAD_TARGET:.0%}: {'PASS' if share < OVERHEAD_TARGET else 'MISS'})"
        )
    with tempfile.TemporaryDirectory(prefix="chambers-queue-") as tmp:
        first, last, secs = queue_memory(Path(tmp), args.queue_jobs)
    flat = last <= first * FLAT
    print(
        f"\n  queue bookkeeping, {args.queue_jobs} jobs claimed and finished in {secs:.1f} s: traced peak "
        f"{first / 1024:.0f} KiB over the first thousand, {last / 1024:.0f} KiB over the last "
        f"(flat within {FLAT}x: {'PASS' if flat else 'MISS'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
