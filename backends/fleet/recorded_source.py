"""Replays recorded NVML telemetry from a JSON file: the stand-in for a GPU where none is.

It replaces ``NvmlSource`` in tests, in the demo and in the benchmark, because
these machines have no NVIDIA GPU. The file keeps NVML's own field names and
units (bytes, milliwatts, percent, C, MHz; ``busId`` as NVML spells it), so
the conversion below is the same one ``NvmlSource`` does. Each ``read`` moves
to the next recorded frame, so the dashboard shows motion; the first read is
always frame 0, which keeps snapshot tests deterministic. The shipped
recording of the office's chassis 1 says where its numbers came from in its
``about`` field.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from backends.fleet.gpu_health import GpuHealth, LinkHealth
from backends.fleet.nvml_source import MIB, normalise_bus_id
from backends.fleet.telemetry import GpuProcess, GpuSample, HostTelemetry, Topology

RECORDINGS = Path(__file__).with_name("recordings")
MISSION_CHASSIS1 = RECORDINGS / "mission_chassis1.json"
MISSION_CHASSIS2_DCGM = RECORDINGS / "chassis2_dcgm_exporter.prom"


class RecordingError(ValueError):
    """The file is not a telemetry recording chambers can read."""


def topology_from_recording(doc: dict[str, Any]) -> Topology:
    by_bus = {normalise_bus_id(g["pci"]["busId"]): g["index"] for g in doc["gpus"]}
    pairs: set[tuple[int, int]] = set()
    for g in doc["gpus"]:
        for link in g.get("nvlinks", []):
            if link.get("state") != 1:  # NVML_FEATURE_ENABLED
                continue
            peer = by_bus.get(normalise_bus_id(link["remote_busId"]))
            if peer is not None and peer != g["index"]:
                pairs.add(Topology.pair(g["index"], peer))
    levels = {}
    for key, level in doc.get("topology_common_ancestor", {}).items():
        a, b = (int(x) for x in key.split(","))
        levels[Topology.pair(a, b)] = int(level)
    return Topology(frozenset(pairs), levels)


def health_from_answers(static: dict[str, Any], frame: dict[str, Any]) -> GpuHealth | None:
    """``GpuHealth`` from a GPU's recorded NVML answers (``nvml_health``; the throttle mask per frame)."""
    answers = static.get("nvml_health")
    if answers is None:
        return None
    ecc = answers.get("nvmlDeviceGetTotalEccErrors", {})
    retired = answers.get("nvmlDeviceGetRetiredPages", {})
    remap = answers.get("nvmlDeviceGetRemappedRows")
    counters = answers.get("nvmlDeviceGetNvLinkErrorCounter", {})
    links = []
    for link in static.get("nvlinks", []):
        # NVML_NVLINK_ERROR_DL_REPLAY, DL_RECOVERY, DL_CRC_FLIT, DL_CRC_DATA, in that order
        replay, recovery, flit, data = counters.get(str(link["link"]), [None] * 4)
        links.append(LinkHealth(int(link["link"]), link.get("state") == 1, flit, data, replay, recovery))
    pending = answers.get("nvmlDeviceGetRetiredPagesPendingStatus")
    return GpuHealth(
        ecc_volatile_corrected=ecc.get("corrected_volatile"),
        ecc_volatile_uncorrected=ecc.get("uncorrected_volatile"),
        ecc_aggregate_corrected=ecc.get("corrected_aggregate"),
        ecc_aggregate_uncorrected=ecc.get("uncorrected_aggregate"),
        retired_pages_sbe=retired.get("multiple_single_bit"),
        retired_pages_dbe=retired.get("double_bit"),
        retired_pending=None if pending is None else bool(pending),
        remapped_rows_correctable=None if remap is None else int(remap[0]),
        remapped_rows_uncorrectable=None if remap is None else int(remap[1]),
        remap_pending=None if remap is None else bool(remap[2]),
        remap_failed=None if remap is None else bool(remap[3]),
        last_xid=answers.get("xid") or None,
        throttle_reasons=frame.get(
            "clocks_event_reasons", answers.get("nvmlDeviceGetCurrentClocksEventReasons")
        ),
        pcie_replays=answers.get("nvmlDeviceGetPcieReplayCounter"),
        nvlinks=tuple(links),
    )


def _sample(static: dict[str, Any], frame: dict[str, Any], full: bool) -> GpuSample:
    procs = tuple(
        GpuProcess(
            pid=int(p["pid"]),
            name=str(p.get("name", "")),
            used_mib=None if p.get("usedGpuMemory") is None else p["usedGpuMemory"] / MIB,
        )
        for p in frame.get("compute_processes", [])
    )
    limit = static.get("enforced_power_limit_mw")
    return GpuSample(
        index=int(static["index"]),
        name=str(static["name"]),
        uuid=str(static["uuid"]),
        bus_id=normalise_bus_id(static["pci"]["busId"]),
        memory_used_mib=frame["memory"]["used"] / MIB,
        memory_total_mib=static["memory"]["total"] / MIB,
        utilization_pct=float(frame["utilization"]["gpu"]),
        temperature_c=float(frame["temperature_gpu"]),
        power_w=frame["power_usage_mw"] / 1000.0,
        power_limit_w=None if limit is None else limit / 1000.0,
        sm_clock_mhz=float(frame["clock_sm_mhz"]),
        processes=procs if full else None,
        health=health_from_answers(static, frame) if full else None,
    )


class RecordedSource:
    """Replays ``path`` for ``host`` (default: the host named in the recording)."""

    def __init__(self, path: Path, host: str | None = None, *, loop: bool = True) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._loop = loop
        self._frame = 0
        self._doc: dict[str, Any] | None = None
        self._topology: Topology | None = None
        self._problem: str | None = None
        self.host = host or self._peek_host()

    def _peek_host(self) -> str:
        doc = self._load()
        return str(doc.get("host", "recorded")) if doc else "recorded"

    def _load(self) -> dict[str, Any] | None:
        if self._doc is None and self._problem is None:
            try:
                doc = json.loads(self.path.read_text(encoding="utf-8"))
                if not doc.get("gpus") or not doc.get("frames"):
                    raise RecordingError("it has no 'gpus' or no 'frames'")
                self._topology = topology_from_recording(doc)
                self._doc = doc
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self._problem = f"recording {self.path} cannot be read ({exc})"
        return self._doc

    def read(self, *, full: bool = False) -> HostTelemetry:
        with self._lock:
            doc = self._load()
            if doc is None:
                return HostTelemetry(self.host, "recorded", status=self._problem or "no recording")
            frames = doc["frames"]
            frame = frames[self._frame % len(frames)]
            if self._loop:
                self._frame += 1
            try:
                gpus = tuple(
                    _sample(static, fg, full) for static, fg in zip(doc["gpus"], frame["gpus"], strict=True)
                )
            except (KeyError, TypeError, ValueError) as exc:
                return HostTelemetry(
                    self.host, "recorded", status=f"recording {self.path}: bad frame ({exc})"
                )
        return HostTelemetry(self.host, "recorded", gpus, self._topology, "ok", doc.get("driver_version"))

    def close(self) -> None:
        pass
