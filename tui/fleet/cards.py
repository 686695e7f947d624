"""The dashboard's widgets: views fed through reactives, so only what changed is redrawn.

A ``GpuRow`` is one line per GPU and repaints only when its sample changes
(samples are frozen dataclasses, compared by value; the slow process list is
kept out of the row's sample so a process read does not repaint it). A
``BackendLine`` is two lines per model server with a sparkline of decode
tokens/s that only moves when the server decoded something.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from backends.fleet.gpu_health import GpuHealth
from backends.fleet.servers import ServerSample, is_slow
from backends.fleet.store import BestVariant, StoredAgreement, StoredResult
from backends.fleet.telemetry import GpuSample, HostTelemetry
from workspace.config import Backend, Board, LoraRef

SPARK = "▁▂▃▄▅▆▇█"
HEALTH_STYLE = {"ok": "green", "loading": "yellow", "checking": "dim"}


def bar(fraction: float, width: int, style: str) -> Text:
    fraction = max(0.0, min(1.0, fraction))
    full = round(fraction * width)
    return Text.assemble(("█" * full, style), ("░" * (width - full), "dim"))


def sparkline(values: list[float], width: int) -> str:
    values = values[-width:]
    if not values:
        return " " * width
    top = max(values) or 1.0
    chars = "".join(SPARK[min(len(SPARK) - 1, int(v / top * (len(SPARK) - 1)))] for v in values)
    return chars.rjust(width)


class GpuRow(Widget):
    """One GPU: index, utilisation bar, memory bar, temperature, power."""

    DEFAULT_CSS = "GpuRow { height: 1; }"
    sample: reactive[GpuSample | None] = reactive(None)

    def __init__(self, index: int) -> None:
        super().__init__(classes="gpu-row")
        self.index = index

    def render(self) -> Text:
        width = max(self.size.width, 20)
        s = self.sample
        head = Text(f"{self.index:>2} ")
        if s is None:
            return head + Text("no reading", style="dim")
        bar_w = max(3, (width - 27) // 2)  # one column spare before the border
        util = (s.utilization_pct or 0.0) / 100
        mem = s.memory_fraction
        temp = "  -" if s.temperature_c is None else f"{s.temperature_c:>3.0f}"
        power = "   -" if s.power_w is None else f"{s.power_w:>3.0f}W"
        used, total = s.memory_used_mib / 1024, s.memory_total_mib / 1024
        return Text.assemble(
            head,
            bar(util, bar_w, "green"),
            f"{util * 100:>4.0f}% ",
            bar(mem, bar_w, "red" if mem >= 0.98 else "cyan"),
            f" {used:>2.0f}/{total:.0f}G ",
            (f"{temp}°", "red" if (s.temperature_c or 0) >= 85 else ""),
            f" {power}",
        )


def lora_label(ref: LoraRef) -> str:
    """The adapter's name, and its scale where it is not the full 1.0."""
    return ref.name if ref.scale == 1.0 else f"{ref.name}×{ref.scale:g}"


class BackendLine(Widget):
    """A model server pinned to the board: health, role, model (+ its LoRA adapters); then speeds and a sparkline."""

    DEFAULT_CSS = "BackendLine { height: 2; }"
    sample: reactive[ServerSample | None] = reactive(None)
    bench: reactive[StoredResult | None] = reactive(None)
    history: reactive[tuple[float, ...]] = reactive(tuple)

    def __init__(self, backend: Backend) -> None:
        super().__init__(classes="backend-line")
        self.backend = backend
        self._history: deque[float] = deque(maxlen=60)

    def add(self, sample: ServerSample) -> None:
        self.sample = sample
        if sample.decode_tok_s is not None:  # idle servers do not move the line (no repaint)
            self._history.append(sample.decode_tok_s)
            self.history = tuple(self._history)

    def slow(self) -> bool:
        if self.sample is None:
            return False
        bench_tg = self.bench.tg_median if self.bench else None
        return is_slow(self.sample, self.backend.min_decode_tok_s, bench_tg)

    def render(self) -> Text:
        b, s = self.backend, self.sample
        health = s.health if s else "checking"
        role = ",".join(b.roles) or "no role"
        model = (s.model if s and s.model else b.model) or ""
        line1 = Text.assemble(
            ("● ", HEALTH_STYLE.get(health, "red")), (b.name, "bold"), f" {role} ", (model, "italic")
        )
        if b.lora:  # every request carries these adapters, so they are part of what the model writes like
            line1.append((" + " if model else "+ ") + ",".join(map(lora_label, b.lora)), style="italic")
        line1.truncate(max(self.size.width, 20), overflow="ellipsis")
        if s is None or not s.ok:
            where = self.backend.url.split("://", 1)[-1]
            why = "checking" if s is None else f"{health} · {where}"
            line2 = Text(why, style="dim" if s is None else HEALTH_STYLE.get(health, "red"))
        else:
            line2 = Text(sparkline(list(self.history), 8), style="cyan")
            tg = s.decode_tok_s or s.decode_avg_tok_s
            line2.append(f" TG {tg:.0f}" if tg else " TG -")
            if s.prompt_tok_s:
                line2.append(f" PP {s.prompt_tok_s:.0f}")
            if s.slots_total:
                line2.append(f" {s.slots_busy or 0}/{s.slots_total} busy")
            if self.bench and self.bench.tg_median:
                line2.append(f" bench {self.bench.tg_median:.0f}", style="magenta")
            if self.slow():
                line2.append(f" SLOW<{b.min_decode_tok_s:g}", style="bold red")
        line2.truncate(max(self.size.width, 20), overflow="ellipsis")
        return Text("\n").join([line1, line2])


class BoardCard(Vertical, can_focus=True):
    """One board: its GPUs and the servers pinned to it. Focusable; Enter opens the detail view."""

    def __init__(self, board: Board, backends: list[Backend], *, card_id: str) -> None:
        super().__init__(classes="board-card", id=card_id)
        self.board = board
        self.backends = backends
        self.telemetry: HostTelemetry | None = None
        self.processes: dict[int, tuple[object, ...]] = {}
        self.health: dict[int, GpuHealth] = {}  # the last full read's, kept between the quick ticks
        self._health_text = ""
        self._best: tuple[BestVariant | None, dict[str, StoredAgreement]] = (None, {})
        gpus = ",".join(str(g) for g in board.gpus)
        self.border_title = f"{board.name} {{{gpus}}}" if board.gpus else board.name

    def compose(self) -> ComposeResult:
        for index in self.board.gpus:
            yield GpuRow(index)
        health = Static("", classes="card-health")
        health.display = False
        yield health
        best = Static("", classes="card-best")
        best.display = False
        yield best
        for backend in self.backends:
            yield BackendLine(backend)
        if not self.backends:
            yield Static("no backend pinned", classes="card-note")

    def update_gpus(self, telemetry: HostTelemetry) -> None:
        self.telemetry = telemetry
        cards = [g for g in telemetry.gpus if g.index in self.board.gpus]
        names = {g.name.replace("Tesla ", "").replace("NVIDIA ", "") for g in cards}
        sizes = {round(g.memory_total_mib / 1024) for g in cards}
        if len(sizes) > 1:
            subtitle = "mixed memory: " + "+".join(f"{s}G" for s in sorted(sizes, reverse=True))
        else:
            subtitle = f"{len(cards)}x {names.pop()}" if len(names) == 1 else ""
        if self.border_subtitle != subtitle:
            self.border_subtitle = subtitle
        for row in self.query(GpuRow):
            sample = telemetry.gpu(row.index)
            if sample is not None and sample.processes is not None:
                self.processes[row.index] = sample.processes
            if sample is not None and sample.health is not None:
                self.health[row.index] = sample.health
            row.sample = None if sample is None else replace(sample, processes=None, health=None)
        self._show_health()

    def _show_health(self) -> None:
        """One line per GPU with a problem (its worst), red for errors; hidden when all are healthy."""
        lines = []
        for index in self.board.gpus:
            problem = self.health[index].headline() if index in self.health else None
            if problem is not None:
                style = "bold red" if problem.level == "error" else "yellow"
                line = Text.assemble((f"⚠ GPU {index} ", style), (problem.brief, style))
                line.truncate(max(self.size.width - 2, 20), overflow="ellipsis")
                lines.append(line)
        text = Text("\n").join(lines)
        if text.plain == self._health_text:
            return
        self._health_text = text.plain
        note = self.query_one(".card-health", Static)
        note.update(text)
        note.display = bool(lines)

    def on_mount(self) -> None:
        self.show_best(*self._best)  # what arrived between the card's mounting and its children's

    def show_best(self, best: BestVariant | None, agreements: dict[str, StoredAgreement]) -> None:
        """The fastest variant of the board's latest sweeps, with its model file's agreement if measured.

        A card that appears with a new host's first reading may not have its children yet when the
        stored results arrive: they are kept and shown when it is mounted."""
        self._best = (best, agreements)
        found = self.query(".card-best").results(Static)
        note = next(found, None)
        if note is None:
            return
        if best is None:
            note.display = False
            return
        text = Text.assemble(
            ("best ", "magenta"), (best.profile, "bold"), f" [{best.variant}] TG {best.tg_median:.0f}"
        )
        if best.pp_median:
            text.append(f" PP {best.pp_median:.0f}")
        agreement = agreements.get(best.model_file)
        if agreement is not None:
            text.append(f" · {agreement.short()}", style="cyan")
        note.update(text)
        note.display = True

    def backend_line(self, name: str) -> BackendLine | None:
        return next((line for line in self.query(BackendLine) if line.backend.name == name), None)


class HostGroup(Vertical):
    """A host's title line (source, GPU count, or why there is nothing) and its cards."""

    def __init__(self, host: str, *, group_id: str) -> None:
        super().__init__(classes="host-group", id=group_id)
        self.host = host
        self._title = ""

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble((self.host, "bold"), " waiting for telemetry"), classes="host-title")
        yield Vertical(classes="cards")

    def show_status(self, telemetry: HostTelemetry | None) -> None:
        """Update the title only when it changed: ``Static.update`` re-lays out the screen."""
        if telemetry is None:
            text = Text.assemble((self.host, "bold"), ("  model servers not pinned to a board", "dim"))
        elif telemetry.ok:
            driver = f", driver {telemetry.driver}" if telemetry.driver else ""
            text = Text.assemble(
                (self.host, "bold"), f"  {telemetry.source}, {len(telemetry.gpus)} GPUs{driver}"
            )
        else:
            text = Text.assemble((self.host, "bold"), "  ", (telemetry.status, "yellow"))
        if text.plain != self._title:
            self._title = text.plain
            self.query_one(".host-title", Static).update(text)
