"""The fleet dashboard, driven with Pilot: recorded GPUs (the stand-in for NVML, see
backends/fleet/recorded_source.py) next to the real llama-server as the workhorse."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from backends.fleet.bench import LengthResult, RunResult
from backends.fleet.servers import ServerSample
from backends.fleet.store import save_results
from tests.support.dashboard_config import mission_config
from tui.app import ChambersApp, create_app
from tui.fleet.cards import BackendLine, BoardCard, GpuRow, HostGroup
from tui.fleet.dashboard import DashboardScreen, GpuTick
from tui.fleet.detail import DetailScreen
from workspace.config import Backend, Config, Policy


async def wait_ready(pilot: Any, app: ChambersApp) -> DashboardScreen:
    for _ in range(200):
        screen = app.screen
        if isinstance(screen, DashboardScreen) and screen.ready():
            await pilot.pause()
            return screen
        await pilot.pause(0.05)
    raise AssertionError("the dashboard never read every host and server")


def line(screen: DashboardScreen, name: str) -> BackendLine:
    return next(x for x in screen.query(BackendLine) if x.backend.name == name)


def card(screen: DashboardScreen, board: str) -> BoardCard:
    return next(c for c in screen.query(BoardCard) if c.board.name == board)


async def test_dashboard_shows_16_gpus_by_board_and_the_live_server(
    llama_backend: Backend, isolated_home: Path
) -> None:
    config = mission_config(live_url=llama_backend.url, refresh_s=0.5)
    app = create_app(config, isolated_home / "db.sqlite3", start_on_dashboard=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot, app)
        assert [c.board.name for c in screen.query(BoardCard)] == [
            "pair-01",
            "pair-23",
            "board-a",
            "board-b",
            "3090s",
            "not on a board",
        ]
        assert len(screen.query(GpuRow)) == 18  # 12 V100-SXM2 + 4 RTX 3090 + 2 V100-PCIe
        assert all(row.sample is not None for row in screen.query(GpuRow))
        titles = {g.host: str(g.query_one(".host-title").render()) for g in screen.query(HostGroup)}
        assert "recorded, 12 GPUs" in titles["chassis1"] and "dcgm, 6 GPUs" in titles["chassis2"]
        assert card(screen, "pair-23").border_subtitle == "mixed memory: 32G+16G"
        work = line(screen, "workhorse")
        assert work.sample is not None and work.sample.ok and work.sample.model == "smollm2-135m-instruct"
        assert line(screen, "heavy").sample is not None and line(screen, "heavy").sample.health == "down"  # type: ignore[union-attr]
        # rows carry no process list, so a slow-field read does not repaint them; the card keeps it
        row4 = next(r for r in card(screen, "board-a").query(GpuRow) if r.index == 4)
        assert row4.sample is not None and row4.sample.processes is None
        assert card(screen, "board-a").processes[4][0].name == "llama-server"  # type: ignore[attr-defined]


async def test_keys_move_between_cards_and_open_the_detail_view(
    llama_backend: Backend, isolated_home: Path
) -> None:
    app = create_app(
        mission_config(live_url=llama_backend.url), isolated_home / "db.sqlite3", start_on_dashboard=True
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot, app)
        assert isinstance(screen.focused, BoardCard) and screen.focused.board.name == "pair-01"
        await pilot.press("right", "right")
        assert screen.focused.board.name == "board-a"  # type: ignore[union-attr]
        await pilot.press("down")  # three cards a row at 120 columns: board-b sits below
        assert screen.focused.board.name == "board-b"  # type: ignore[union-attr]
        await pilot.press("down")  # into the next host's grid
        assert screen.focused.board.name == "3090s"  # type: ignore[union-attr]
        await pilot.press("up", "up", "right", "right", "enter")
        assert screen.focused.board.name == "board-a"  # type: ignore[union-attr]
        assert isinstance(app.screen, DetailScreen)
        text = app.screen.text
        assert "pid 4211 llama-server" in text and "V100-SXM2-32GB" in text
        assert "slot 0: idle" in text and "model smollm2-135m-instruct" in text
        assert "last benchmark: none yet" in text
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("f2")
        assert not isinstance(app.screen, DashboardScreen)  # back at the workstation
        await pilot.press("f2")
        assert app.screen is screen  # the same dashboard, still polling, sparklines kept


async def test_latest_benchmark_and_slow_decode_are_shown(isolated_home: Path) -> None:
    database = isolated_home / "db.sqlite3"
    result = LengthResult("workhorse", "http://127.0.0.1:9", "qwen", None, 4000, 3, 2)
    result.runs += [RunResult(4010, 0, 1200.0, 128, 31.0, 9.0), RunResult(4012, 0, 1180.0, 128, 33.0, 9.1)]
    save_results(database, "s1", [result])
    app = create_app(mission_config(), database, start_on_dashboard=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot, app)
        await asyncio.gather(*(w.wait() for w in screen.workers if w.group == "fleet-bench"))
        await pilot.pause()
        work = line(screen, "workhorse")
        assert work.bench is not None and work.bench.tg_median == 32.0
        work.add(ServerSample("workhorse", "llamacpp", "ok", model="qwen", decode_tok_s=30.5))
        await pilot.pause()
        rendered = str(work.render())
        assert "bench 32" in rendered and "SLOW<40" in rendered  # the bench's TG median is under the floor


async def test_a_host_without_nvml_says_so(isolated_home: Path) -> None:
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())
    app = create_app(config, isolated_home / "db.sqlite3", start_on_dashboard=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_ready(pilot, app)
        title = str(screen.query_one("#host-localhost .host-title").render())
        assert "NVML not available on this host" in title


async def test_a_tick_for_a_host_whose_group_is_gone_is_dropped(isolated_home: Path) -> None:
    """Quitting closes the widgets of a screen that is installed but not shown one by one, in no set
    order, while that screen still handles the ticks its poller posted. Here the hidden dashboard's
    first host group goes first, as it can then, and a tick for that host arrives after it."""
    from dataclasses import replace

    app = create_app(mission_config(), isolated_home / "db.sqlite3", start_on_dashboard=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_ready(pilot, app)
        await pilot.press("f2")  # back to the workstation: the installed dashboard goes on polling
        assert not isinstance(app.screen, DashboardScreen)
        await screen.query_one("#host-chassis1", HostGroup).remove()
        ticks = {host: replace(screen.latest[host]) for host in ("chassis1", "chassis2")}
        for telemetry in ticks.values():
            screen.post_message(GpuTick(telemetry))
        for _ in range(100):
            if all(screen.latest[host] is telemetry for host, telemetry in ticks.items()):
                break
            await pilot.pause(0.02)
        await pilot.pause()
        assert app.return_code is None, "a handler failed: the tick met the removed group"
        assert card(screen, "3090s").telemetry is ticks["chassis2"]  # the host still shown got its figures


class ExplodingSource:
    """Stands in for a telemetry source with a bug: real sources report problems in
    ``status`` and never raise, so only a double can show what the screen does then."""

    host = "chassis9"

    def read(self, *, full: bool = False) -> Any:
        raise RuntimeError("bug in a telemetry source")

    def close(self) -> None:
        pass


async def test_a_poller_that_dies_is_reported(isolated_home: Path) -> None:
    from tui.widgets.screens import ErrorScreen

    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())
    app = create_app(config, isolated_home / "db.sqlite3", start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(DashboardScreen(config, isolated_home / "db.sqlite3", [ExplodingSource()]))
        for _ in range(100):
            if isinstance(app.screen, ErrorScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, ErrorScreen)
        assert "bug in a telemetry source" in app.screen.error_message


async def test_a_backends_configured_lora_adapters_show_beside_its_model(isolated_home: Path) -> None:
    from dataclasses import replace

    from workspace.config import LoraRef

    config = mission_config()
    backends = tuple(
        replace(b, lora=(LoraRef("demand-v3", 0.5),)) if b.name == "heavy" else b for b in config.backends
    )
    app = create_app(
        replace(config, backends=backends), isolated_home / "db.sqlite3", start_on_dashboard=True
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_ready(pilot, app)
        heavy = str(line(screen, "heavy").render()).splitlines()[0]
        assert heavy.endswith("heavy heavy + demand-v3×0.5"), heavy
        assert "+" not in str(line(screen, "workhorse").render()).splitlines()[0]
