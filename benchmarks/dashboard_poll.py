"""What the live fleet dashboard costs: CPU share and re-render work, against a static screen.

The dashboard polls 18 GPUs (the recorded office installation: chassis 1
replayed from the recorded NVML snapshot, chassis 2 from saved dcgm-exporter
text) and 6 backends (a real llama-server with the demo model as the
workhorse, the other five on closed loopback ports) at 1 Hz, headless at
120x40, for a bounded time. The baseline, measured in the same run, is the
same screen with a 60 s refresh: after its first reading nothing changes, so
it is what Textual costs with nothing to redraw.

Reported:
- the app's CPU share of one core (process CPU time / wall time; the
  llama-server child is a separate process and not counted): target < 2%;
- widget repaints per second, live vs static, and which GPU rows repainted:
  the recorded chassis 1 changes every tick, the dcgm text of chassis 2 never
  does, so its rows must not repaint (only changed cells are redrawn);
- GPU-source read time per wall second (NVML's cost where it is NVML; with
  ``--nvml`` on a machine with a GPU the local GPUs are read through NVML too);
- the health fields' own cost (ECC, retired pages, XIDs, throttle reasons,
  PCIe replays, NVLink per link): the real ``NvmlSource`` reading 16 GPUs
  from a stand-in driver that answers from the recording
  (tests/support/fake_pynvml.py), full reads with health against the same reads with
  health switched off, extrapolated to every tick at 1 Hz: target < 2% of a
  core. It measures chambers's side; a real driver adds its own call time,
  which ``--nvml`` shows on a machine with a GPU.

Benchmarks report; they do not fail on a noisy machine. Targets print PASS or
MISS and the exit status is 0. Run from the repo root::

    python -m benchmarks.dashboard_poll [--seconds 20] [--nvml]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backends.fleet import nvml_source
from backends.fleet.nvml_source import NvmlSource
from backends.fleet.recorded_source import MISSION_CHASSIS1
from backends.fleet.sources import sources_from_config
from backends.fleet.telemetry import HostTelemetry, TelemetrySource
from backends.local_server import LlamaServerProcess, ensure_demo_model, ensure_llama_server
from tests.support.dashboard_config import mission_config
from tests.support.fake_pynvml import FakeNvml
from tui.app import create_app
from tui.fleet.cards import BackendLine, GpuRow
from tui.fleet.dashboard import DashboardScreen

RENDERS: Counter[str] = Counter()


def count_renders() -> None:
    """Wrap the dashboard widgets' render methods to count repaints (per GPU row, per server line)."""
    gpu_render, line_render = GpuRow.render, BackendLine.render

    def gpu(self: GpuRow) -> Any:
        host = self.parent.board.host if hasattr(self.parent, "board") else "?"  # type: ignore[union-attr]
        RENDERS[f"gpu:{host}"] += 1
        return gpu_render(self)

    def line(self: BackendLine) -> Any:
        RENDERS["server"] += 1
        return line_render(self)

    GpuRow.render = gpu  # type: ignore[method-assign]
    BackendLine.render = line  # type: ignore[method-assign]


class TimedSource:
    """Wraps a telemetry source to add up the time its reads take."""

    def __init__(self, source: TelemetrySource) -> None:
        self.source = source
        self.host = source.host
        self.seconds = 0.0
        self.reads = 0

    def read(self, *, full: bool = False) -> HostTelemetry:
        start = time.perf_counter()
        try:
            return self.source.read(full=full)
        finally:
            self.seconds += time.perf_counter() - start
            self.reads += 1

    def close(self) -> None:
        self.source.close()


@dataclass
class Phase:
    name: str
    seconds: float
    cpu_s: float
    renders: Counter[str]
    read_s: float
    reads: int

    @property
    def cpu_share(self) -> float:
        return self.cpu_s / self.seconds

    def per_s(self, key: str) -> float:
        return self.renders[key] / self.seconds


async def measure(name: str, url: str, refresh_s: float, seconds: float, nvml: bool) -> Phase:
    config = mission_config(live_url=url, refresh_s=refresh_s)
    sources: list[Any] = [TimedSource(s) for s in sources_from_config(config)]
    if nvml:
        sources.append(TimedSource(NvmlSource("localhost")))
    database = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    app = create_app(config, database, start_on_dashboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(DashboardScreen(config, database, sources))
        for _ in range(400):
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, DashboardScreen) and screen.ready():
                break
        await asyncio.sleep(1.5)  # let the first reading settle before counting
        RENDERS.clear()
        read0 = sum(s.seconds for s in sources)
        reads0 = sum(s.reads for s in sources)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        await asyncio.sleep(seconds)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        renders = Counter(RENDERS)
        read_s = sum(s.seconds for s in sources) - read0
        reads = sum(s.reads for s in sources) - reads0
    return Phase(name, wall, cpu, renders, read_s, reads)


def report(static: Phase, live: Phase) -> None:
    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b > 0 else ("inf" if a > 0 else "1.00x")

    print(f"{'':<34} {'static (60 s refresh)':>22} {'live (1 Hz)':>14} {'live/static':>12}")
    rows = [
        ("app CPU, % of one core", static.cpu_share * 100, live.cpu_share * 100),
        ("GPU row repaints/s, chassis1", static.per_s("gpu:chassis1"), live.per_s("gpu:chassis1")),
        ("GPU row repaints/s, chassis2", static.per_s("gpu:chassis2"), live.per_s("gpu:chassis2")),
        ("server line repaints/s", static.per_s("server"), live.per_s("server")),
        ("GPU source reads/s", static.reads / static.seconds, live.reads / live.seconds),
        ("GPU read time, % of wall", static.read_s / static.seconds * 100, live.read_s / live.seconds * 100),
    ]
    for label, a, b in rows:
        print(f"{label:<34} {a:>22.3f} {b:>14.3f} {ratio(b, a):>12}")
    share = live.cpu_share * 100
    print()
    print(f"target: live dashboard CPU < 2% of one core: {share:.2f}% -> {'PASS' if share < 2 else 'MISS'}")
    extra = (live.cpu_share - static.cpu_share) * 100
    print(f"re-render cost of polling over the static screen: {extra:+.2f} points of one core")
    unchanged = live.per_s("gpu:chassis2")
    print(
        f"target: unchanged GPU rows (dcgm text) never repaint: {unchanged:.3f}/s -> "
        f"{'PASS' if unchanged == 0 else 'MISS'}"
    )
    read_pct = live.read_s / live.seconds * 100
    print(f"GPU source read time per wall second: {read_pct:.3f}% (NVML target <= 0.1% where it is NVML)")


def health_cost(reads: int = 200, gpus: int = 16) -> tuple[float, float]:
    """CPU seconds per full read of ``gpus`` GPUs through NvmlSource: (with health, without health)."""
    fake = FakeNvml(MISSION_CHASSIS1)
    fake.doc["gpus"] = [
        dict(fake.doc["gpus"][i % 12], index=i) for i in range(gpus)
    ]  # 16 from the 12 recorded
    for frame in fake.doc["frames"]:
        frame["gpus"] = [frame["gpus"][i % 12] for i in range(gpus)]
    original_load, original_health = nvml_source._load_pynvml, nvml_source.read_health
    nvml_source._load_pynvml = lambda: fake
    try:
        out = []
        for with_health in (True, False):
            nvml_source.read_health = original_health if with_health else (lambda *a: None)  # type: ignore[assignment]
            source = NvmlSource("bench")
            source.read(full=True)  # initialisation (static fields, topology) is not a tick
            cpu0 = time.process_time()
            for _ in range(reads):
                source.read(full=True)
            out.append((time.process_time() - cpu0) / reads)
            source.close()
        return out[0], out[1]
    finally:
        nvml_source._load_pynvml, nvml_source.read_health = original_load, original_health


def report_health(with_health: float, without: float, gpus: int = 16) -> None:
    print()
    print(f"health fields, {gpus} GPUs through NvmlSource (stand-in driver), per full read:")
    print(
        f"  full read without health {without * 1000:.3f} ms, with health {with_health * 1000:.3f} ms "
        f"({with_health / without:.2f}x)"
    )
    share = with_health * 100  # one full read per second at 1 Hz, health on every tick (worst case)
    print(
        f"target: {gpus} GPUs with health at 1 Hz (every tick a full read) < 2% of one core: {share:.2f}% -> "
        f"{'PASS' if share < 2 else 'MISS'}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each measured phase")
    parser.add_argument("--nvml", action="store_true", help="also read this host's GPUs through NVML")
    args = parser.parse_args()
    count_renders()
    server = LlamaServerProcess(ensure_llama_server(print), ensure_demo_model(print))
    with server:
        print(f"llama-server (demo model) on {server.url}; 18 recorded GPUs; 6 backends; 120x40 headless")
        print(f"measuring {args.seconds:.0f} s static, then {args.seconds:.0f} s live ...\n")
        static = await measure("static", server.url, 60.0, args.seconds, args.nvml)
        live = await measure("live", server.url, 1.0, args.seconds, args.nvml)
    report(static, live)
    report_health(*health_cost())


if __name__ == "__main__":
    asyncio.run(main())
