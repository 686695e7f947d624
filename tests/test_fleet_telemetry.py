"""GPU telemetry: the recorded NVML snapshot, dcgm-exporter text, and NVML itself.

No GPU runs where these tests are written, so NVML is replaced by
``RecordedSource`` replaying ``backends/fleet/recordings/mission_chassis1.json``
(written from NVML's documented fields and units, see its ``about``), and
dcgm-exporter by a saved copy of its text in the exporter's format
(``chassis2_dcgm_exporter.prom``, counters from ``etc/default-counters.csv``).
The NVML tests at the end run on a real GPU when one is present.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from backends.fleet.dcgm_source import DcgmSource, parse_dcgm_text
from backends.fleet.nvml_source import NOT_AVAILABLE, NvmlSource, normalise_bus_id
from backends.fleet.recorded_source import MISSION_CHASSIS1, MISSION_CHASSIS2_DCGM, RecordedSource
from backends.fleet.sources import sources_from_config
from backends.fleet.telemetry import Topology
from tests.support.fakes import closed_port
from workspace.config import Config, Policy, TelemetrySourceConfig


def test_recording_is_the_mission_chassis() -> None:
    host = RecordedSource(MISSION_CHASSIS1).read(full=True)
    assert host.ok and host.host == "chassis1" and host.source == "recorded"
    assert len(host.gpus) == 12
    assert all("V100-SXM2" in g.name for g in host.gpus)
    sizes = {g.index: round(g.memory_total_mib / 1024) for g in host.gpus}
    assert sizes[3] == 16 and {s for i, s in sizes.items() if i != 3} == {32}
    assert host.topology is not None
    groups = host.topology.nvlink_groups(range(12))
    assert groups == [
        frozenset({0, 1}),
        frozenset({2, 3}),
        frozenset({4, 5, 8, 9}),
        frozenset({6, 7, 10, 11}),
    ]
    gpu4 = host.gpu(4)
    assert gpu4 is not None and gpu4.processes and gpu4.processes[0].name == "llama-server"
    assert 0 < gpu4.memory_used_mib < gpu4.memory_total_mib
    assert gpu4.power_limit_w == 300.0  # 300000 mW in the recording


def test_slow_fields_only_on_full_reads_and_frames_advance() -> None:
    source = RecordedSource(MISSION_CHASSIS1)
    first, second = source.read(), source.read(full=True)
    assert all(g.processes is None for g in first.gpus)
    assert all(g.processes is not None for g in second.gpus)
    assert [g.utilization_pct for g in first.gpus] != [g.utilization_pct for g in second.gpus]
    assert RecordedSource(MISSION_CHASSIS1).read() == first  # the first frame is always the same


def test_broken_recording_is_a_status_not_a_crash(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    host = RecordedSource(bad, "chassis9").read()
    assert not host.ok and "cannot be read" in host.status and host.host == "chassis9"


def test_dcgm_sample_parses_by_gpu_label() -> None:
    host = parse_dcgm_text(MISSION_CHASSIS2_DCGM.read_text())
    assert host.host == "chassis2"  # from the Hostname label
    assert [g.name for g in host.gpus] == ["NVIDIA GeForce RTX 3090"] * 4 + ["Tesla V100-PCIE-32GB"] * 2
    gpu0 = host.gpus[0]
    assert gpu0.uuid.startswith("GPU-") and gpu0.bus_id == "0000:01:00.0"
    assert gpu0.memory_used_mib == 19822 and gpu0.memory_total_mib == 24576  # used + free + reserved, MiB
    assert gpu0.power_w == pytest.approx(221.4) and gpu0.temperature_c == 71 and gpu0.utilization_pct == 55
    assert host.topology is None and host.driver == "570.172.08"


def test_dcgm_accepts_the_new_hostname_label_and_drops_blank_sentinels() -> None:
    text = MISSION_CHASSIS2_DCGM.read_text().replace('Hostname="chassis2"', 'hostname="chassis2b"')
    host = parse_dcgm_text(text)
    assert host.host == "chassis2b" and len(host.gpus) == 6
    # DCGM_FI_DEV_MEMORY_TEMP is the 2**63 "blank" sentinel on the 3090s: it must not leak as a value
    assert all(g.temperature_c is not None and g.temperature_c < 200 for g in host.gpus)


def test_dcgm_unreachable_and_garbage_are_statuses() -> None:
    down = DcgmSource("chassis2", url=f"http://127.0.0.1:{closed_port()}/metrics").read()
    assert not down.ok and "not reachable" in down.status
    with pytest.raises(ValueError):
        parse_dcgm_text("this is { not prometheus")


def test_nvml_without_the_library_says_so_and_does_not_hang() -> None:
    pytest.importorskip("pynvml")
    if _has_nvml():
        pytest.skip("this host has NVML; the no-library case cannot be shown here")
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(NvmlSource().read(full=True)), daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert result, "NvmlSource.read() hung"
    host = result[0]
    assert host.status.startswith(NOT_AVAILABLE) and host.gpus == ()  # type: ignore[attr-defined]


def test_no_telemetry_config_means_local_nvml() -> None:
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())
    (source,) = sources_from_config(config)
    assert isinstance(source, NvmlSource) and source.host == "localhost"
    entries = (
        TelemetrySourceConfig("recorded", "chassis1", path=str(MISSION_CHASSIS1)),
        TelemetrySourceConfig("dcgm", "chassis2", path=str(MISSION_CHASSIS2_DCGM)),
    )
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(), telemetry=entries)
    assert [s.read().host for s in sources_from_config(config)] == ["chassis1", "chassis2"]


def test_bus_ids_normalise_between_nvml_and_sysfs() -> None:
    assert normalise_bus_id(b"00000000:3B:00.0") == normalise_bus_id("0000:3b:00.0") == "0000:3b:00.0"


def test_groups_of_a_board_spanning_links() -> None:
    topo = Topology(frozenset({(0, 1), (4, 5)}), {(1, 4): 40})
    assert topo.nvlink_groups([0, 1, 4, 5, 7]) == [frozenset({0, 1}), frozenset({4, 5}), frozenset({7})]
    assert topo.level(4, 1) == 40


# --- on a real GPU -----------------------------------------------------------


def _has_nvml() -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # any failure means: no usable NVML here
        return False
    pynvml.nvmlShutdown()
    return True


needs_gpu = pytest.mark.skipif(not _has_nvml(), reason="no NVIDIA GPU/NVML on this host")


@needs_gpu
def test_real_nvml_reads_every_gpu() -> None:
    source = NvmlSource()
    try:
        host = source.read(full=True)
        assert host.ok, host.status
        assert host.gpus and all(g.uuid.startswith(("GPU-", "MIG-")) for g in host.gpus)
        assert all(g.memory_total_mib > 0 and 0 <= g.memory_used_mib <= g.memory_total_mib for g in host.gpus)
        assert all(g.processes is not None for g in host.gpus)
        assert host.topology is not None
    finally:
        source.close()


@needs_gpu
def test_real_nvml_fast_read_is_a_small_share_of_a_second() -> None:
    """Reports NVML time per fast read (the issue's <= 0.1% per wall-second target at 1 Hz)."""
    source = NvmlSource()
    try:
        source.read(full=True)
        start = time.perf_counter()
        reads = 10
        for _ in range(reads):
            assert source.read().ok
        per_read = (time.perf_counter() - start) / reads
        print(f"NVML fast read: {per_read * 1000:.3f} ms per poll ({per_read * 100:.3f}% of a 1 s tick)")
        assert per_read > 0
    finally:
        source.close()
