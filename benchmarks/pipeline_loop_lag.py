"""How long the event loop waits while a run streams its draft and verifies it, on a 2,000-page matter.

A screen showing a run lives on the same event loop as the pipeline, so every blocking call the
pipeline makes on the loop freezes the screen for as long. A generated 2,000-page matter (the
verifier benchmark's generator, ingested through evidence's own ingest) is drafted on by a scripted
drafter (``tests/support/scripted_server.py``, the tests' own double: it streams a brief with dates,
amounts, Bates cites and case citations over real HTTP and SSE), and then verified. A ticker on
the loop wakes every 5 ms and records how late it woke: that lateness is the loop's lag.

Baseline, measured in the same run: the same verification called on the loop itself (loading the
matter's indexes and checking the draft without a worker thread), which is what a screen waited
through when the verifier ran in the pipeline's coroutine. Target: p99 lag during the run's
verify stage under 50 ms. The lag while the draft streams (no verifier running) is printed beside
it: on a busy machine the loop also waits for a core, whatever the pipeline does. So is the lag over
the whole run, with its longest waits and the stage each fell in: a call that blocks the loop at a
stage's edge (a write, a name lookup, a client being made) shows there. Benchmarks report; they do
not fail: the target prints PASS or MISS.

    python -m benchmarks.pipeline_loop_lag [--pages 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.verify import brief, build_matter
from drafting.events import PipelineEvent, StageFinished, StageStarted
from drafting.pipeline import Pipeline, PipelineOptions
from drafting.stages import verify
from drafting.wiring import wire
from tests.support.scripted_server import scripted_server
from workspace.config import Backend, Config, Policy

TARGET_S = 0.050
TICK_S = 0.005


class LagMeter:
    """Wakes every ``TICK_S`` and keeps (when it woke, how late)."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self.running = True

    async def run(self) -> None:
        while self.running:
            before = time.perf_counter()
            await asyncio.sleep(TICK_S)
            woke = time.perf_counter()
            self.samples.append((woke, woke - before - TICK_S))

    def between(self, start: float, end: float) -> list[float]:
        """The lags of the ticks whose wait overlapped ``start``..``end``."""
        return [lag for woke, lag in self.samples if woke >= start and woke - lag - TICK_S <= end]


def p99(lags: list[float]) -> float:
    if len(lags) < 2:
        return max(lags, default=0.0)
    return statistics.quantiles(lags, n=100, method="inclusive")[98]


async def measured_run(pipe: Pipeline, run_id: int, marks: dict[str, float]) -> LagMeter:
    """The loop's lags over the whole run (``marks`` says when each stage started and ended)."""
    meter = LagMeter()
    ticker = asyncio.ensure_future(meter.run())
    await pipe.execute(run_id)
    meter.running = False
    await ticker
    return meter


def longest(meter: LagMeter, marks: dict[str, float], n: int = 3) -> str:
    """The ``n`` longest waits of the run and the stage each fell in: a wait the pipeline causes on
    the loop (a write, a lookup, a client being made) shows where it happens."""
    stages = [key[: -len("-start")] for key in marks if key.endswith("-start")]

    def where(woke: float, lag: float) -> str:
        began = woke - lag - TICK_S
        for stage in stages:
            if began <= marks.get(f"{stage}-end", woke) and woke >= marks[f"{stage}-start"]:
                return stage
        return "between stages"

    worst = sorted(meter.samples, key=lambda s: s[1], reverse=True)[:n]
    return ", ".join(f"{lag * 1000:.0f} ms ({where(woke, lag)})" for woke, lag in worst)


async def on_the_loop(pipe: Pipeline, run_id: int) -> tuple[list[float], float]:
    """The baseline: the verify stage's own computation, called on the loop as a coroutine would."""
    run = pipe.store.load(run_id)
    meter = LagMeter()
    ticker = asyncio.ensure_future(meter.run())
    await asyncio.sleep(0.05)
    start = time.perf_counter()
    verify.STAGE.compute(pipe.database_file, run, None)
    end = time.perf_counter()
    await asyncio.sleep(0.05)
    meter.running = False
    await ticker
    return meter.between(start, end), end - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=2000)
    args = parser.parse_args()
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        database_file, matter = build_matter(Path(tmp), args.pages)
        print(f"matter: {args.pages} pages built and ingested in {time.perf_counter() - started:.1f}s")
        draft = brief(random.Random(5), 20, 20, args.pages)
        marks: dict[str, float] = {}

        def mark(event: PipelineEvent) -> None:
            if isinstance(event, StageStarted | StageFinished):
                marks[f"{event.stage}-{'start' if isinstance(event, StageStarted) else 'end'}"] = (
                    time.perf_counter()
                )

        with scripted_server(draft) as (url, _):
            backend = Backend(name="scripted", kind="llamacpp", url=url, roles=("drafter", "extractor"))
            config = Config(file="benchmark", policy=Policy(), boards=(), backends=(backend,))
            pipe = Pipeline(wire(config, database_file, options=PipelineOptions()), on_event=mark)
            run = pipe.start(matter, "summary", "Summarise what the record shows about the invoices.")
            meter = asyncio.run(measured_run(pipe, run.id, marks))
            streaming = meter.between(marks["draft-start"], marks["draft-end"])
            lags = meter.between(marks["verify-start"], marks["verify-end"])
            baseline, took = asyncio.run(on_the_loop(pipe, run.id))
        done = pipe.store.load(run.id)
        assert done.status == "completed", [(s.stage, s.status, s.error) for s in done.stages]
        ours, theirs = p99(lags), p99(baseline)
        print(
            f"draft: {len(draft.split())} words streamed, verified in {marks['verify-end'] - marks['verify-start']:.2f}s"
        )
        print(
            f"baseline (verify on the loop, {took:.2f}s): p99 lag {theirs * 1000:.0f} ms, max {max(baseline, default=0) * 1000:.0f} ms"
        )
        print(
            f"run (verify in a worker thread): p99 lag {ours * 1000:.1f} ms over {len(lags)} ticks, max {max(lags, default=0) * 1000:.1f} ms"
        )
        ratio = ours / theirs if theirs else float("nan")
        verdict = "PASS" if ours < TARGET_S else "MISS"
        print(
            f"while the draft streamed (no verifier running): p99 lag {p99(streaming) * 1000:.1f} ms over {len(streaming)} ticks"
        )
        whole = [lag for _, lag in meter.samples]
        print(
            f"whole run: p99 lag {p99(whole) * 1000:.1f} ms, max {max(whole, default=0) * 1000:.1f} ms over "
            f"{len(whole)} ticks; the longest waits: {longest(meter, marks)}"
        )
        print(f"ratio {ratio:.3f} of the baseline; target p99 < {TARGET_S * 1000:.0f} ms: {verdict}")
        print(
            f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: the loop waits for a core too)"
        )


if __name__ == "__main__":
    main()
