"""The fleet dashboard: each NVLink board with its GPUs and the model server pinned there.

Data flows one way. A thread worker reads the GPU sources (NVML calls block
and hold the driver's lock) at no more than 2 Hz, the process lists only
every few ticks, and posts a ``GpuTick`` per host; an async worker polls the
model servers over httpx and posts a ``ServerTick`` each. Both messages can
replace an unhandled older one of their kind, so a busy UI skips stale
figures instead of queueing them. The screen hands each value to the widget
that shows it; widgets repaint only when their value changed.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, Static
from textual.worker import Worker

from backends.fleet.model_notes import model_notes
from backends.fleet.servers import ServerPoller, ServerSample, poll_all, polling_client
from backends.fleet.sources import sources_from_config
from backends.fleet.store import (
    BestVariant,
    StoredAgreement,
    StoredExperts,
    StoredRequant,
    StoredResult,
    best_per_board,
    experts_by_model_file,
    latest_by_model_file,
    latest_results,
    requants_by_model_file,
)
from backends.fleet.telemetry import HostTelemetry, TelemetrySource
from tui.fleet.cards import BackendLine, BoardCard, HostGroup
from tui.fleet.detail import DetailScreen, served_models
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.key_text import KeyText
from tui.widgets.screens import ErrorScreen
from workspace.config import MIN_REFRESH_S, Board, Config
from workspace.errors import ChambersError

SLOW_FIELDS_EVERY = 5  # GPU ticks between two reads of the process lists
UNPINNED = "unpinned"


@dataclass
class GpuTick(Message):
    """The latest reading of one host's GPUs; a newer one replaces an unhandled older one."""

    telemetry: HostTelemetry

    def can_replace(self, message: Message) -> bool:
        return (
            isinstance(message, GpuTick)
            and message.telemetry.host == self.telemetry.host
            and (message.telemetry.gpus == () or any(g.processes is None for g in message.telemetry.gpus))
        )


@dataclass
class ServerTick(Message):
    sample: ServerSample

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ServerTick) and message.sample.name == self.sample.name


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)


def host_order(config: Config, sources: list[TelemetrySource]) -> list[str]:
    hosts: list[str] = []
    for name in [b.host for b in config.boards] + [s.host for s in sources]:
        if name not in hosts:
            hosts.append(name)
    return hosts


class DashboardScreen(ChambersScreen):
    FOOTER_FIRST = ("drafting", "details", "close")  # its notice sends him to F4
    BINDINGS = [
        Binding(
            "right,l",
            "move(1)",
            "Next",
            id="dashboard.next",
            key_display="→",
            tooltip="Move to the next board card",
        ),
        Binding(
            "left,h",
            "move(-1)",
            "Prev",
            id="dashboard.prev",
            show=False,
            tooltip="Move to the previous board card",
        ),
        Binding(
            "down,j", "move_row(1)", "Down", id="dashboard.down", show=False, tooltip="Move to the card below"
        ),
        Binding(
            "up,k", "move_row(-1)", "Up", id="dashboard.up", show=False, tooltip="Move to the card above"
        ),
        Binding(
            "enter",
            "details",
            "Details",
            id="dashboard.details",
            tooltip="Open the selected board: processes per GPU, server slots, last benchmark",
        ),
        Binding(
            "escape,f2",
            "close",
            "Workstation",
            id="dashboard.close",
            tooltip="Back to the workstation (prompt and backend list)",
        ),
    ]

    def __init__(
        self, config: Config, database_file: Path, sources: list[TelemetrySource] | None = None
    ) -> None:
        super().__init__(id="dashboard")
        self.config = config
        self.database_file = database_file
        self.sources = sources if sources is not None else sources_from_config(config)
        self.refresh_s = config.dashboard.refresh_s
        self._stop = threading.Event()
        self.columns = 3
        self.hosts_seen: set[str] = set()
        self.servers_seen: set[str] = set()
        self.latest: dict[str, HostTelemetry] = {}
        self.samples: dict[str, ServerSample] = {}
        self.bench: dict[str, list[StoredResult]] = {}
        self.measured: tuple[dict[str, StoredExperts], dict[str, StoredRequant]] = ({}, {})
        self._status_text = ""

    # --- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with VerticalScroll(id="fleet"):
            for host in host_order(self.config, self.sources):
                yield HostGroup(host, group_id=f"host-{_slug(host)}")
            if any(not b.board for b in self.config.backends):
                yield HostGroup(UNPINNED, group_id="host-unpinned")
        yield KeyText("", id="fleet-status")
        yield Footer()

    async def on_mount(self) -> None:
        self.title = "chambers · fleet"
        for host in host_order(self.config, self.sources):
            group = self.query_one(f"#host-{_slug(host)}", HostGroup)
            await self._mount_cards(group, [b for b in self.config.boards if b.host == host])
        if any(not b.board for b in self.config.backends):
            group = self.query_one("#host-unpinned", HostGroup)
            group.show_status(None)
            grid = group.query_one(".cards")
            for backend in self.config.backends:
                if not backend.board:
                    await grid.mount(
                        BoardCard(
                            Board(backend.name, "", ()), [backend], card_id=f"card-b-{_slug(backend.name)}"
                        )
                    )
        self._layout_columns()
        cards = list(self.query(BoardCard))
        if cards:
            cards[0].focus()
        self.poll_gpus()
        self.poll_servers()
        self.load_bench()

    async def _mount_cards(self, group: HostGroup, boards: list[Board]) -> None:
        grid = group.query_one(".cards")
        for board in boards:
            backends = [b for b in self.config.backends if b.board == board.name]
            await grid.mount(
                BoardCard(board, backends, card_id=f"card-{_slug(board.host)}-{_slug(board.name)}")
            )

    def on_resize(self) -> None:
        self._layout_columns()

    def _layout_columns(self) -> None:
        width = self.size.width
        self.columns = 1 if width < 60 else 2 if width < 110 else 3 if width < 160 else 4
        self.set_class(width < 110, "compact")
        for grid in self.query(".cards"):
            grid.styles.grid_size_columns = self.columns

    # --- workers ------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="fleet-gpus")
    def poll_gpus(self) -> None:
        """Blocking reads in a thread; at most 2 Hz, slow fields every few ticks."""
        interval = max(self.refresh_s, MIN_REFRESH_S)
        tick = 0
        while not self._stop.is_set():
            full = tick % SLOW_FIELDS_EVERY == 0
            for source in self.sources:
                self.post_message(GpuTick(source.read(full=full)))
            tick += 1
            self._stop.wait(interval)

    @work(exclusive=True, exit_on_error=False, group="fleet-servers")
    async def poll_servers(self) -> None:
        async with polling_client() as http:
            pollers = [ServerPoller(b, self.config.policy, http) for b in self.config.backends]
            while pollers:
                for sample in await poll_all([p for p in pollers if p.due()]):
                    self.post_message(ServerTick(sample))
                await asyncio.sleep(self.refresh_s)

    @work(thread=True, exclusive=True, exit_on_error=False, group="fleet-bench")
    def load_bench(self) -> None:
        results = latest_results(self.database_file)
        self.app.call_from_thread(self.show_bench, results)
        best, agreements = best_per_board(self.database_file), latest_by_model_file(self.database_file)
        self.app.call_from_thread(self.show_runs, best, agreements)
        measured = experts_by_model_file(self.database_file), requants_by_model_file(self.database_file)
        self.app.call_from_thread(setattr, self, "measured", measured)

    def error_modal(self, worker: Worker[object]) -> ErrorScreen:
        """A poller that dies is said so, not left as silently frozen figures."""
        error = worker.error
        title = error.title if isinstance(error, ChambersError) else "The fleet dashboard stopped polling"
        return ErrorScreen(title, f"{worker.name}: {error}")

    def config_changed(self, config: Config) -> None:
        self.config = config

    def on_unmount(self) -> None:
        self._stop.set()
        for source in self.sources:
            source.close()

    # --- data to widgets ----------------------------------------------------

    async def on_gpu_tick(self, message: GpuTick) -> None:
        telemetry = message.telemetry
        self.latest[telemetry.host] = telemetry
        first = telemetry.host not in self.hosts_seen
        self.hosts_seen.add(telemetry.host)
        group = self.query_one_optional(f"#host-{_slug(telemetry.host)}", HostGroup)
        if group is None:
            # Quitting while this screen is installed but not shown closes its widgets one by one,
            # in no set order, before the screen itself stops (and stops its poller): a tick still
            # queued then can find its host's group gone. There is nothing left to show it in.
            return
        group.show_status(telemetry)
        if first and telemetry.ok:
            boarded = {g for b in self.config.boards if b.host == telemetry.host for g in b.gpus}
            loose = tuple(g.index for g in telemetry.gpus if g.index not in boarded)
            if loose:
                await self._mount_cards(group, [Board("not on a board", telemetry.host, loose)])
                self._layout_columns()
        for card in group.query(BoardCard):
            card.update_gpus(telemetry)

    def on_server_tick(self, message: ServerTick) -> None:
        self.samples[message.sample.name] = message.sample
        self.servers_seen.add(message.sample.name)
        for line in self.query(BackendLine):
            if line.backend.name == message.sample.name:
                line.add(message.sample)
        down = [s for s in self.samples.values() if not s.ok]
        text = f"{len(self.samples) - len(down)} of {len(self.config.backends)} servers up" + (
            f"; {down[0].name} is {down[0].health}" if down else ""
        )
        if text != self._status_text:  # Static.update re-lays out the screen: only on change
            status = self.query_one_optional("#fleet-status", Static)
            if status is not None:  # gone when quitting, like a host's group (see on_gpu_tick)
                self._status_text = text
                status.update(text)

    def show_bench(self, results: dict[str, list[StoredResult]]) -> None:
        self.bench = results
        for line in self.query(BackendLine):
            rows = results.get(line.backend.name)
            line.bench = max(rows, key=lambda r: r.prompt_tokens) if rows else None

    def show_runs(self, best: dict[str, BestVariant], agreements: dict[str, StoredAgreement]) -> None:
        """Per board its best swept profile, and beside each speed the quality of that model file."""
        for card in self.query(BoardCard):
            card.show_best(best.get(card.board.name), agreements)

    def ready(self) -> bool:
        """Every host and every server has been read once (used by tests and the benchmark)."""
        hosts = {s.host for s in self.sources}
        return hosts <= self.hosts_seen and {b.name for b in self.config.backends} <= self.servers_seen

    # --- keys ---------------------------------------------------------------

    def _cards(self) -> list[BoardCard]:
        return list(self.query(BoardCard))

    def _focused_index(self) -> int:
        cards = self._cards()
        return cards.index(self.focused) if self.focused in cards else -1

    def action_move(self, step: int) -> None:
        cards = self._cards()
        if cards:
            cards[(self._focused_index() + step) % len(cards)].focus()

    def _rows(self) -> list[list[BoardCard]]:
        """The cards as the attorney sees them: each host's grid cut into rows of ``columns``."""
        rows: list[list[BoardCard]] = []
        for grid in self.query(".cards"):
            cards = list(grid.query(BoardCard))
            rows += [cards[i : i + self.columns] for i in range(0, len(cards), self.columns)]
        return rows

    def action_move_row(self, step: int) -> None:
        rows = self._rows()
        where = next(
            ((r, row.index(self.focused)) for r, row in enumerate(rows) if self.focused in row), None
        )
        if where is None:
            if rows:
                rows[0][0].focus()
            return
        r, col = where
        if 0 <= r + step < len(rows):
            target = rows[r + step]
            target[min(col, len(target) - 1)].focus()

    def action_details(self) -> None:
        cards = self._cards()
        index = self._focused_index()
        if index < 0:
            return
        card = cards[index]
        samples = {b.name: self.samples.get(b.name) for b in card.backends}
        bench = {b.name: self.bench.get(b.name, []) for b in card.backends}
        notes = {m: model_notes(m, *self.measured) for m in served_models(self.config, card.board, samples)}
        models = {m: lines for m, lines in notes.items() if lines}
        self.app.push_screen(
            DetailScreen(
                card.board, card.telemetry, card.processes, card.backends, samples, bench, card.health, models
            )
        )

    def action_close(self) -> None:
        self.app.pop_screen()
