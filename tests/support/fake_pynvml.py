"""A stand-in for the ``pynvml`` module that answers from a telemetry recording.

It replaces the NVIDIA driver, which no machine that builds chambers has, so
that ``NvmlSource`` and ``nvml_health`` run their real code paths: every call
they make is answered from ``backends/fleet/recordings/mission_chassis1.json``
(NVML's field names and units, written by hand; see its ``about``). Constants
and error classes are the real ``pynvml``'s, so a wrong constant or an
unhandled error class fails here as it would on a GPU. XID events are queued
with ``push_xid``.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pynvml


class FakeNvml(types.ModuleType):
    def __init__(self, recording: Path) -> None:
        super().__init__("pynvml")
        for name in dir(pynvml):
            if name.startswith(("NVML_", "nvmlClocks", "nvmlEventType")) or name.startswith("NVMLError"):
                setattr(self, name, getattr(pynvml, name))
        self.NVMLLibraryMismatchError = pynvml.NVMLLibraryMismatchError
        self.doc = json.loads(recording.read_text(encoding="utf-8"))
        self.frame = 0
        self.events: list[tuple[int, int]] = []
        self.registered: set[int] = set()

    # --- the system and the static per-GPU answers ---
    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlSystemGetDriverVersion(self) -> str:
        return str(self.doc["driver_version"])

    def nvmlDeviceGetCount(self) -> int:
        return len(self.doc["gpus"])

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetIndex(self, h: int) -> int:
        return h

    def _gpu(self, h: int) -> dict[str, Any]:
        return dict(self.doc["gpus"][h])

    def _frame(self, h: int) -> dict[str, Any]:
        frames = self.doc["frames"]
        return dict(frames[self.frame % len(frames)]["gpus"][h])

    def nvmlDeviceGetPciInfo(self, h: int) -> Any:
        return types.SimpleNamespace(busId=self._gpu(h)["pci"]["busId"])

    def nvmlDeviceGetName(self, h: int) -> str:
        return str(self._gpu(h)["name"])

    def nvmlDeviceGetUUID(self, h: int) -> str:
        return str(self._gpu(h)["uuid"])

    def _link(self, h: int, link: int) -> dict[str, Any]:
        links = self._gpu(h).get("nvlinks", [])
        if link >= len(links):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return dict(links[link])

    def nvmlDeviceGetNvLinkState(self, h: int, link: int) -> int:
        return int(self._link(h, link)["state"])

    def nvmlDeviceGetNvLinkRemotePciInfo(self, h: int, link: int) -> Any:
        return types.SimpleNamespace(busId=self._link(h, link)["remote_busId"])

    def nvmlDeviceGetTopologyCommonAncestor(self, a: int, b: int) -> int:
        levels = self.doc.get("topology_common_ancestor", {})
        key = f"{min(a, b)},{max(a, b)}"
        if key not in levels:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return int(levels[key])

    # --- the per-tick answers ---
    def nvmlDeviceGetMemoryInfo(self, h: int) -> Any:
        return types.SimpleNamespace(
            used=self._frame(h)["memory"]["used"], total=self._gpu(h)["memory"]["total"]
        )

    def nvmlDeviceGetUtilizationRates(self, h: int) -> Any:
        return types.SimpleNamespace(gpu=self._frame(h)["utilization"]["gpu"])

    def nvmlDeviceGetTemperatureV(self, h: int, sensor: int) -> int:
        return int(self._frame(h)["temperature_gpu"])

    def nvmlDeviceGetPowerUsage(self, h: int) -> int:
        return int(self._frame(h)["power_usage_mw"])

    def nvmlDeviceGetEnforcedPowerLimit(self, h: int) -> int:
        return int(self._gpu(h)["enforced_power_limit_mw"])

    def nvmlDeviceGetClockInfo(self, h: int, clock: int) -> int:
        return int(self._frame(h)["clock_sm_mhz"])

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[Any]:
        return [
            types.SimpleNamespace(pid=p["pid"], usedGpuMemory=p.get("usedGpuMemory"))
            for p in self._frame(h).get("compute_processes", [])
        ]

    # --- health ---
    def _answers(self, h: int) -> dict[str, Any]:
        return dict(self._gpu(h)["nvml_health"])

    def nvmlDeviceGetTotalEccErrors(self, h: int, kind: int, counter: int) -> int:
        which = ("corrected", "uncorrected")[kind] + ("_volatile", "_aggregate")[counter]
        return int(self._answers(h)["nvmlDeviceGetTotalEccErrors"][which])

    def nvmlDeviceGetRetiredPages(self, h: int, cause: int) -> list[int]:
        which = ("multiple_single_bit", "double_bit")[cause]
        return [0x1000 * i for i in range(self._answers(h)["nvmlDeviceGetRetiredPages"][which])]

    def nvmlDeviceGetRetiredPagesPendingStatus(self, h: int) -> int:
        return int(self._answers(h)["nvmlDeviceGetRetiredPagesPendingStatus"])

    def nvmlDeviceGetRemappedRows(self, h: int) -> tuple[int, int, int, int]:
        answer = self._answers(h).get("nvmlDeviceGetRemappedRows")
        if answer is None:  # V100: row remapping arrived with Ampere
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return tuple(answer)

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: int) -> int:
        frame = self._frame(h)
        return int(
            frame.get("clocks_event_reasons", self._answers(h)["nvmlDeviceGetCurrentClocksEventReasons"])
        )

    def nvmlDeviceGetPcieReplayCounter(self, h: int) -> int:
        return int(self._answers(h)["nvmlDeviceGetPcieReplayCounter"])

    def nvmlDeviceGetNvLinkErrorCounter(self, h: int, link: int, counter: int) -> int:
        return int(self._answers(h)["nvmlDeviceGetNvLinkErrorCounter"][str(link)][counter])

    def nvmlDeviceGetFieldValues(self, h: int, fields: list[Any]) -> list[Any]:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)  # V100: no per-link throughput fields

    # --- XID events ---
    def push_xid(self, gpu: int, xid: int) -> None:
        self.events.append((gpu, xid))

    def nvmlEventSetCreate(self) -> str:
        return "event-set"

    def nvmlDeviceRegisterEvents(self, h: int, types_: int, event_set: str) -> None:
        self.registered.add(h)

    def nvmlEventSetWait_v2(self, event_set: str, timeout_ms: int) -> Any:
        if not self.events:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_TIMEOUT)
        gpu, xid = self.events.pop(0)
        return types.SimpleNamespace(device=gpu, eventData=xid)

    def nvmlEventSetFree(self, event_set: str) -> None: ...
