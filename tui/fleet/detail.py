"""The detail view of one board: every GPU's identity and processes, server slots, last benchmark,
and what was measured about the models it serves (expert routing, a requantization and its proof).

A snapshot taken when it opens (Esc closes it; open it again for fresh figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from backends.fleet.gpu_health import GpuHealth
from backends.fleet.profiles import profiles_from_config
from backends.fleet.servers import ServerSample
from backends.fleet.store import StoredResult
from backends.fleet.telemetry import GpuProcess, HostTelemetry
from tui.widgets.key_text import KeyText
from workspace.config import Backend, Board, Config
from workspace.errors import ChambersError


def served_models(config: Config, board: Board, samples: Mapping[str, ServerSample | None]) -> list[str]:
    """The model files a board serves: its profiles' files, then what its servers report loaded."""
    try:
        profiles = profiles_from_config(config)
    except ChambersError:  # a broken profile is the config screen's to report, not this view's
        profiles = ()
    names = [Path(p.model).name for p in profiles if board.name in p.boards]
    names += [s.model for s in samples.values() if s is not None and s.model]
    return list(dict.fromkeys(names))


def detail_text(
    board: Board,
    telemetry: HostTelemetry | None,
    processes: Mapping[int, tuple[object, ...]],
    backends: list[Backend],
    samples: Mapping[str, ServerSample | None],
    bench: Mapping[str, list[StoredResult]],
    health: Mapping[int, GpuHealth] | None = None,
    models: Mapping[str, list[str]] | None = None,
) -> str:
    lines = [f"GPUs on {board.host or 'no host'}"]
    for index in board.gpus:
        gpu = telemetry.gpu(index) if telemetry else None
        if gpu is None:
            lines.append(f"  GPU {index}: no reading")
            continue
        power = (
            f"{gpu.power_w:.0f}/{gpu.power_limit_w:.0f} W"
            if gpu.power_w and gpu.power_limit_w
            else (f"{gpu.power_w:.0f} W" if gpu.power_w else "- W")
        )
        lines.append(f"  GPU {index}: {gpu.name}  {gpu.uuid}  bus {gpu.bus_id}")
        lines.append(
            f"     {gpu.memory_used_mib / 1024:.1f} of {gpu.memory_total_mib / 1024:.1f} GiB, "
            f"{gpu.utilization_pct or 0:.0f}% busy, {gpu.temperature_c or 0:.0f} C, {power}, "
            f"SM {gpu.sm_clock_mhz or 0:.0f} MHz"
        )
        known = (health or {}).get(index)
        if known is not None:
            problems = known.problems()
            marks = {"error": "ERROR", "warning": "⚠", "info": "·"}
            lines += [f"     {marks[p.level]} {p.text}" for p in problems]
            if not problems:
                lines.append("     health: no problems (ECC, memory repair, XID, clocks, PCIe, NVLink)")
        procs = [p for p in processes.get(index, ()) if isinstance(p, GpuProcess)]
        if telemetry and telemetry.source == "dcgm":
            lines.append("     processes: not reported by dcgm-exporter")
        for p in procs:
            used = f"{p.used_mib / 1024:.1f} GiB" if p.used_mib is not None else "memory not reported"
            lines.append(f"     pid {p.pid} {p.name or '(not visible here)'}: {used}")
    for backend in backends:
        s = samples.get(backend.name)
        lines += [
            "",
            f"Server {backend.name} ({backend.kind}, {backend.url}), roles {', '.join(backend.roles) or '-'}",
        ]
        if s is None:
            lines.append("  not read yet")
        elif not s.ok:
            lines.append(f"  {s.health}: {s.problem}")
        else:
            lines.append(
                f"  model {s.model}, n_ctx {s.n_ctx}, build {s.build or '-'}, address {s.address_class}"
            )
            if s.requests_processing is not None:
                lines.append(
                    f"  requests processing {s.requests_processing:.0f}, deferred {s.requests_deferred or 0:.0f}"
                )
            for slot in s.slots:
                state = "busy" if slot.is_processing else "idle"
                lines.append(f"  slot {slot.id}: {state}, n_ctx {slot.n_ctx}, decoded {slot.n_decoded}")
            for m in s.loaded:
                vram = f", {m.size_vram / 1024**3:.1f} GiB in VRAM" if m.size_vram else ""
                lines.append(f"  loaded {m.name}{vram}")
        results = bench.get(backend.name) or []
        if not results:
            lines.append("  last benchmark: none yet (run `chambers bench`)")
        for r in results:
            mark = " (interrupted)" if r.interrupted else ""
            lines.append(
                f"  bench {r.started_at[:16]}: {r.prompt_tokens} tok prompt, PP {r.pp_median or 0:.1f}, "
                f"TG {r.tg_median or 0:.1f} tok/s median, {r.runs_done}/{r.runs_wanted} runs{mark}"
            )
    for name, notes in (models or {}).items():  # only the models something was measured about
        lines += ["", f"Model {name}", *(f"  {note}" for note in notes)]
    return "\n".join(lines)


class DetailScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "Close", id="detail.close", tooltip="Back to the dashboard"),
        Binding(
            "enter", "close", "Close", id="detail.close_enter", show=False, tooltip="Back to the dashboard"
        ),
    ]

    def __init__(
        self,
        board: Board,
        telemetry: HostTelemetry | None,
        processes: Mapping[int, tuple[object, ...]],
        backends: list[Backend],
        samples: Mapping[str, ServerSample | None],
        bench: Mapping[str, list[StoredResult]],
        health: Mapping[int, GpuHealth] | None = None,
        models: Mapping[str, list[str]] | None = None,
    ) -> None:
        super().__init__()
        self.board = board
        self.text = detail_text(board, telemetry, processes, backends, samples, bench, health, models)

    def compose(self) -> ComposeResult:
        with Vertical(id="detail-box"):
            yield Static(f"{self.board.name}", id="detail-title")
            with VerticalScroll(id="detail-scroll"):
                yield Static(self.text, id="detail-text", markup=False)
            yield KeyText("Esc closes this view.", id="detail-foot")

    def action_close(self) -> None:
        self.dismiss()
