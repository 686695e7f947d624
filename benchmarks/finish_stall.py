"""How long does the drafting screen stop drawing when a finished run's marked draft is shown?

When a run ends, the drafting screen drops the streamed view, loads the run again (in a thread
worker) and draws the whole draft with the verifier's flags marked in it, the flags listed beside
it. This measures that moment. The demo matter (Harbor Point v. Calder, generated and ingested by
evidence's own ingest, without OCR) gets a long demand letter (headings, paragraphs of prose, each
with real and made-up figures, Bates cites and quotations, so the real verifier flags a few per
paragraph); the run is planted and verified by the real pipeline, no model involved.

In a headless app with the drafting screen open (80x24 unless told), the draft is streamed into
the screen as a fast server would send it, then the stream ends and, in turns:

- marked: the screen's own finish (``DraftStream.end`` and ``show_run``), the draft drawn marked;
- plain (the baseline): the same stream ends the same way, the run is loaded in a thread the same
  way, and the same text is drawn unmarked, in one ``Static``: the least any screen could do.

A 10 ms heartbeat timer on the event loop records how late it fires from the end of the stream
until the marked (or plain) draft has been on screen for half a second. Reported: the longest
stall (the largest lateness: the UI did not draw or take keys for that long) and the p99 of each,
medians over the turns, and their ratio; the garbage collector's pauses inside each window are
printed beside them. The stream's frozen heap is released, and collected in one full pass, a
while after the stream ends (``tui.app.RELEASE_AFTER_S``): that pass is measured apart, after
the window. Last, the stall of each of ten presses of n (jump to the next flag) on the marked draft. Target: the marked finish stalls the loop no longer than 50 ms more than the plain one.

Benchmarks report; they do not fail. Run from the repo root::

    python -m benchmarks.finish_stall [--paragraphs 60] [--turns 5] [--size 80x24] [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.text import Text

from benchmarks.common import DOMAIN_WORDS, FUNCTION_WORDS, mark
from drafting.pipeline import Pipeline
from drafting.runs import COMPLETED
from drafting.store import RunStore
from drafting.wiring import wire
from evidence.ingest import ingest_matter
from evidence.sample_matter import SAMPLE_MATTER, prepare_sample_matter
from tui import app as tui_app
from workspace.config import Config, Policy

TICK_S = 0.01
RELEASE_AFTER_S = tui_app.RELEASE_AFTER_S
SHOWN_S = 0.5  # the window runs on this long after the draft is shown: its layout and first paint
TARGET_EXTRA_MS = 50.0
JUMPS = 10  # n presses on the marked draft, each measured alone
CHUNK = 12  # characters a streamed token carries, about
# Facts of the demo matter, as its records have them and as a careless draft misstates them.
FACTS = [
    "The price was $84,000 (HPP-000001), payable under the agreement of January 10, 2024.",
    "Calder was paid $52,000 (HPP-000004).",
    'The agreement says that for each day of delay "the Seller shall pay the Buyer $300 as liquidated '
    'damages" (HPP-000002).',
    "Installation was due by March 1, 2024 (HPP-000002), and the invoice came to $9,999 (HPP-000003).",
]


def long_draft(rng: random.Random, paragraphs: int) -> str:
    """A demand letter of ``paragraphs`` paragraphs of about 150 words, a heading every six."""
    words = DOMAIN_WORDS + FUNCTION_WORDS * 3
    out = ["# Demand for payment\n"]
    for i in range(paragraphs):
        if i % 6 == 0:
            out.append(f"## Part {i // 6 + 1}\n")
        prose = " ".join(rng.choice(words) for _ in range(140))
        out.append(f"{prose.capitalize()}. {rng.choice(FACTS)} {rng.choice(FACTS)}\n")
    return "\n".join(out)


def plant_verified_run(database_file: Path, draft: str) -> int:
    """A run whose draft is ``draft``, verified by the real verifier (the plan is draft and verify only)."""
    store = RunStore(database_file)
    run = store.create(SAMPLE_MATTER, "demand_letter", "Demand payment.", "drafter", ["draft", "verify"])
    record = store.start_stage(run.id, "draft", "drafter", "drafter", "http://127.0.0.1:9", "planted", [])
    record.output, record.status, record.result = draft, COMPLETED, {"chars": len(draft)}
    store.finish_stage(record)
    config = Config(file="bench.toml", policy=Policy(), boards=(), backends=())
    asyncio.run(Pipeline(wire(config, database_file)).execute(run.id))
    return run.id


class GcPauses:
    """The garbage collector's passes while listening: each one's generation and seconds."""

    def __init__(self) -> None:
        self.passes: list[tuple[int, float]] = []
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.passes.append((info["generation"], time.perf_counter() - self._start))

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


class Heartbeat:
    """A ``TICK_S`` timer on the app's loop while in the block: ``beats`` holds (when each fired, how late)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.beats: list[tuple[float, float]] = []
        self._last = 0.0
        self._timer: Any = None

    def __enter__(self) -> Heartbeat:
        self._last = time.perf_counter()
        self._timer = self.app.set_interval(TICK_S, self.beat)
        return self

    def beat(self) -> None:
        now = time.perf_counter()
        self.beats.append((now, max(0.0, now - self._last - TICK_S)))
        self._last = now

    def __exit__(self, *exc: object) -> None:
        self._timer.stop()
        self.beat()  # a loop held to the end never fired the timer: the wait since the last beat counts too


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) > 100 else max(values)


async def measure(
    database_file: Path, run_id: int, draft: str, turns: int, size: tuple[int, int], profile: Path | None
) -> dict[str, list[dict[str, float]]]:
    from tui.app import create_app
    from tui.drafting.screen import DraftingScreen

    config = Config(file="bench.toml", policy=Policy(), boards=(), backends=())
    app = create_app(config, database_file, start_on_dashboard=False)
    results: dict[str, list[dict[str, float]]] = {"plain": [], "marked": [], "jump": []}
    profiler = cProfile.Profile() if profile else None
    async with app.run_test(size=size) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        while any(w.is_running for w in screen.workers):
            await asyncio.sleep(0.05)
        await pilot.pause(0.3)

        async def stream_draft() -> None:
            """The draft as a fast server sends it, drawn frame by frame, the finish not yet begun."""
            screen.query_one("#ws-redline").display = False
            screen.workspace.marked.display = False
            await screen.workspace.stream_run(run_id, "")
            screen.run_record = None
            for at in range(0, len(draft), CHUNK * 40):  # about 40 tokens a frame: 1,200 tokens/s
                for piece in range(at, min(len(draft), at + CHUNK * 40), CHUNK):
                    screen.workspace.stream.feed(draft[piece : piece + CHUNK])
                await asyncio.sleep(1 / 30)
            while screen.workspace.stream.drawing:
                await asyncio.sleep(TICK_S)
            await pilot.pause(0.2)

        async def timed(mode: str, finish: Callable[[], Awaitable[None]]) -> None:
            await stream_draft()
            with Heartbeat(app) as heart, GcPauses() as pauses:
                if profiler and mode == "marked":
                    profiler.enable()
                start = time.perf_counter()
                await finish()
                shown = time.perf_counter() - start
                await asyncio.sleep(SHOWN_S)
                settled = time.perf_counter()
                if profiler:
                    profiler.disable()
                gc_finish = list(pauses.passes)
                # The stream's heap is released (and fully collected) this long after its end.
                await asyncio.sleep(max(0.0, RELEASE_AFTER_S + SHOWN_S - (settled - start)))
            during = [late for when, late in heart.beats if when <= settled]
            after = [late for when, late in heart.beats if when > settled] or [0.0]
            results[mode].append(
                {
                    "stall_s": max(during),
                    "p99_s": p99(during),
                    "shown_s": shown,
                    "gc_s": sum(s for _, s in gc_finish),
                    "gc_max_s": max((s for _, s in gc_finish), default=0.0),
                    "gc_full": sum(1 for g, _ in gc_finish if g == 2),
                    "later_s": max(after),
                    "later_gc_s": max((s for g, s in pauses.passes[len(gc_finish) :] if g == 2), default=0.0),
                }
            )

        async def marked() -> None:
            await screen.workspace.end_stream()
            shown = screen.show_run(run_id)  # shown once its worker is finished
            while not shown.is_finished:
                await asyncio.sleep(TICK_S / 2)

        async def plain() -> None:
            await screen.workspace.end_stream()
            run, _ = await asyncio.to_thread(screen.session.load, run_id)
            screen.workspace.stream.display = False
            view = screen.query_one("#ws-redline")
            view.update(Text(run.draft))  # type: ignore[attr-defined]
            view.display = True

        for _ in range(turns):
            await timed("plain", plain)
            await timed("marked", marked)
        shown = str(screen.workspace.marked.render()).split("\n")
        assert [line[2:] for line in shown] == draft.split("\n"), "the marked draft is not the draft"
        assert sum(line.startswith(("B▌", "W▌")) for line in shown) > 0, "no flag is marked"
        results["flags"] = [{"n": float(len(screen.flag_pane.flags))}]

        # n, a jump to the next flag: restyles two flags and scrolls to the second.
        for _ in range(JUMPS):
            with Heartbeat(app) as heart:
                await pilot.press("n")
                await asyncio.sleep(0.2)
            results["jump"].append({"stall_s": max(late for _, late in heart.beats)})
    if profiler and profile:
        profiler.dump_stats(profile)
    return results


def median(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=60)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--size", default="80x24", help="the terminal, COLUMNSxROWS")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the marked finishes here")
    args = parser.parse_args(argv)
    columns, rows = (int(n) for n in args.size.split("x"))
    draft = long_draft(random.Random(4), args.paragraphs)
    with tempfile.TemporaryDirectory() as tmp:
        database_file = Path(tmp) / "chambers.sqlite3"
        prepare_sample_matter(database_file, Path(tmp) / "sample")
        ingest_matter(database_file, SAMPLE_MATTER, tessdata=None)  # its one scanned page is not needed here
        run_id = plant_verified_run(database_file, draft)
        results = asyncio.run(
            measure(database_file, run_id, draft, args.turns, (columns, rows), args.profile)
        )
    flags = int(results["flags"][0]["n"])
    print(
        f"finish_stall: a {len(draft.split()):,}-word draft of {draft.count(chr(10)) + 1} lines, {flags} flags, "
        f"at {columns}x{rows}; medians of {args.turns} turns"
    )
    for mode in ("plain", "marked"):
        r = results[mode]
        print(
            f"  {mode:<6} longest stall {median(r, 'stall_s') * 1000:6.1f} ms (worst {max(x['stall_s'] for x in r) * 1000:.1f}), "
            f"p99 {median(r, 'p99_s') * 1000:5.1f} ms, shown after {median(r, 'shown_s') * 1000:6.1f} ms; "
            f"gc {median(r, 'gc_s') * 1000:.1f} ms (longest pass {median(r, 'gc_max_s') * 1000:.1f}, "
            f"{median(r, 'gc_full'):.0f} full)"
        )
        print(
            f"         then, until the stream's heap is released and collected: longest stall "
            f"{median(r, 'later_s') * 1000:.1f} ms (its full collection {median(r, 'later_gc_s') * 1000:.1f} ms)"
        )
    jumps = results["jump"]
    print(
        f"  n (next flag), {len(jumps)} presses: longest stall {median(jumps, 'stall_s') * 1000:.1f} ms "
        f"(worst {max(j['stall_s'] for j in jumps) * 1000:.1f} ms)"
    )
    marked_s, plain_s = median(results["marked"], "stall_s"), median(results["plain"], "stall_s")
    extra_ms = (marked_s - plain_s) * 1000
    print(
        f"  {mark(extra_ms <= TARGET_EXTRA_MS)} the marked finish stalls {marked_s / max(plain_s, 1e-3):.2f}x "
        f"as long as the plain one ({extra_ms:+.1f} ms; target <= +{TARGET_EXTRA_MS:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
