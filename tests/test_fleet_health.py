"""GPU health: the recorded NVML answers, dcgm-exporter health fields, the doctor's warnings, the board cards.

No GPU runs where these tests are written. NVML is replaced twice over, both
from ``backends/fleet/recordings/mission_chassis1.json`` (NVML's call names and
units, written by hand, see its ``about``): by ``RecordedSource`` (the demo's
path) and by ``tests/support/fake_pynvml.py`` answering the real ``NvmlSource`` and
``nvml_health`` code call by call. dcgm-exporter is replaced by
``chassis3_dcgm_health.prom``: the exporter's text format and label layout,
DCGM's field names (``dcgm_fields.h``), values written by hand. In that
recording GPU 5 and GPU 8 of board-a have lost NVLink link 3 between them, and
GPU 10 of board-b throttles for heat.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from backends.fleet import nvml_source
from backends.fleet.dcgm_source import parse_dcgm_text
from backends.fleet.doctor import run_doctor
from backends.fleet.gpu_health import GpuHealth, LinkHealth
from backends.fleet.health_lint import lint_health
from backends.fleet.nvml_source import NvmlSource
from backends.fleet.recorded_source import MISSION_CHASSIS1, RECORDINGS, RecordedSource
from backends.fleet.sources import sources_from_config
from tests.support.dashboard_config import mission_config
from tests.support.fake_pynvml import FakeNvml
from tui.app import create_app
from tui.fleet.cards import BoardCard
from tui.fleet.dashboard import DashboardScreen

CHASSIS3 = RECORDINGS / "chassis3_dcgm_health.prom"


def problems(health: GpuHealth | None) -> list[str]:
    assert health is not None
    return [p.text for p in health.problems() if p.level != "info"]


def test_recorded_installation_has_a_degraded_link_and_a_throttling_gpu() -> None:
    host = RecordedSource(MISSION_CHASSIS1).read(full=True)
    sick = {g.index: problems(g.health) for g in host.gpus if problems(g.health)}
    assert set(sick) == {5, 8, 10}
    assert sick[5][0] == "NVLink degraded: link 3 down (5 of 6 active)"
    assert sick[5][1] == "NVLink link 3 errors: 18834 CRC flit, 211 CRC data, 412 replay, 37 recovery"
    assert sick[10] == [
        "clocks throttled: thermal slowdown (hardware)",
        "clocks throttled: thermal slowdown (software)",
    ]
    # the lane is lost, the board is not: 4, 5, 8 and 9 are still one NVLink group over the other links
    assert host.topology is not None and [4, 5, 8, 9] in [
        sorted(g) for g in host.topology.nvlink_groups(range(12))
    ]
    assert RecordedSource(MISSION_CHASSIS1).read().gpus[5].health is None  # a quick tick does not read health


def test_nvml_code_reads_the_same_health_from_the_driver_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeNvml(MISSION_CHASSIS1)
    monkeypatch.setattr(nvml_source, "_load_pynvml", lambda: fake)
    source = NvmlSource("chassis1")
    try:
        quick = source.read()
        assert quick.ok and quick.gpus[5].health is None
        fake.push_xid(8, 74)
        live = source.read(full=True)
        recorded = RecordedSource(MISSION_CHASSIS1).read(full=True)
        assert fake.registered == set(range(12))
        for got, want in zip(live.gpus, recorded.gpus, strict=True):
            assert got.health is not None and want.health is not None
            if got.index == 8:
                assert got.health.last_xid == 74  # the event, drained without waiting
                assert problems(got.health)[0] == "XID 74 (NVLink error)"
                got = replace(got, health=replace(got.health, last_xid=None))
            assert got.health == want.health, got.index
        assert live.topology == recorded.topology
    finally:
        source.close()


def test_dcgm_exporter_health_fields() -> None:
    host = parse_dcgm_text(CHASSIS3.read_text(encoding="utf-8"))
    healthy, sick = host.gpus
    assert healthy.health is not None and sick.health is not None
    assert healthy.health.ecc_aggregate_corrected == 14 and healthy.health.remapped_rows_correctable == 1
    assert healthy.health.retired_pending is False and problems(healthy.health) == []
    assert sick.health.retired_pending is None  # DCGM's blank sentinel: not supported, not "0"
    assert sick.health.throttle_reasons == 0x48
    assert problems(sick.health) == [
        "XID 74 (NVLink error)",
        "clocks throttled: thermal slowdown (hardware)",
        "clocks throttled: hardware slowdown",
        "NVLink link 7 errors: 5120 CRC flit, 96 replay",
    ]
    assert len(sick.health.nvlinks) == 12 and all(link.active is None for link in sick.health.nvlinks)
    assert [p.text for p in sick.health.problems() if p.level == "info"] == ["3 PCIe replays"]


def test_dcgm_text_without_health_fields_gives_no_health() -> None:
    text = 'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-x",modelName="A"} 5\nDCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-x"} 1\n'
    assert parse_dcgm_text(text).gpus[0].health is None


def test_health_levels() -> None:
    assert GpuHealth(ecc_volatile_uncorrected=2).problems()[0].level == "error"
    assert GpuHealth(remap_failed=True).headline() is not None
    assert GpuHealth(throttle_reasons=0x4).headline() is None  # a power cap at full load is normal: info only
    assert GpuHealth(throttle_reasons=0x1).problems() == []  # idle is not a throttle
    links = (LinkHealth(0, True), LinkHealth(1, True))
    assert GpuHealth(nvlinks=links).problems() == []


def test_doctor_warns_naming_the_gpu_its_board_and_the_server_pinned_there() -> None:
    config = mission_config()
    sources = sources_from_config(config)
    try:
        report = asyncio.run(run_doctor(config, sources))
    finally:
        for s in sources:
            s.close()
    texts = [f"{f.subject}: {f.message}" for f in report.findings if f.level == "warning"]
    assert (
        "GPU 5 on chassis1: NVLink degraded: link 3 down (5 of 6 active) (on board board-a; server "
        "workhorse runs there)"
    ) in texts
    assert (
        "GPU 10 on chassis1: clocks throttled: thermal slowdown (hardware) (on board board-b; server "
        "heavy runs there)"
    ) in texts
    hosts = {"chassis1": RecordedSource(MISSION_CHASSIS1).read(full=True)}
    assert len(lint_health(config, hosts)) == 6  # 2 + 2 for the lane's two ends, 2 for the heat


async def test_board_card_shows_the_degraded_link_and_the_throttle(isolated_home: Path) -> None:
    app = create_app(mission_config(refresh_s=0.5), isolated_home / "db.sqlite3", start_on_dashboard=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen: Any = None
        for _ in range(200):
            if isinstance(app.screen, DashboardScreen) and app.screen.ready():
                screen = app.screen
                break
            await pilot.pause(0.05)
        assert screen is not None
        await pilot.pause()
        notes = {
            c.board.name: str(c.query_one(".card-health").render())
            for c in screen.query(BoardCard)
            if c.query_one(".card-health").display
        }
        assert set(notes) == {"board-a", "board-b"}
        assert notes["board-a"].splitlines() == [
            "⚠ GPU 5 NVLink link 3 down, 5/6 up",
            "⚠ GPU 8 NVLink link 3 down, 5/6 up",
        ]
        assert notes["board-b"] == "⚠ GPU 10 throttled: thermal (HW)"
