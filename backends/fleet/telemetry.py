"""One picture of a host's GPUs, whatever source it came from.

NVML (this host), dcgm-exporter (another host, over HTTP) and recordings
(tests, the demo) all return a ``HostTelemetry``; the lint, the doctor and the
dashboard never need to know which. Units are normalised here once: MiB for
memory, watts for power, degrees C, percent, MHz.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from backends.fleet.gpu_health import GpuHealth

# nvmlDeviceGetTopologyCommonAncestor levels (NVML_TOPOLOGY_INTERNAL=0 ... SYSTEM=50)
TOPOLOGY_WORDS = {
    0: "the same board (internal)",
    10: "one PCIe switch",
    20: "several PCIe switches",
    30: "the PCIe host bridge",
    40: "the CPU (NUMA node)",
    50: "the link between CPU sockets (SMP/NUMA)",
}


def topology_word(level: int | None) -> str:
    if level is None:
        return "PCIe (level unknown)"
    return TOPOLOGY_WORDS.get(level, f"topology level {level}")


@dataclass(frozen=True)
class GpuProcess:
    pid: int
    name: str
    used_mib: float | None  # None where the driver does not say (NVML usedGpuMemory None)


@dataclass(frozen=True)
class GpuSample:
    index: int
    name: str
    uuid: str
    bus_id: str
    memory_used_mib: float
    memory_total_mib: float
    utilization_pct: float | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    sm_clock_mhz: float | None = None
    processes: tuple[GpuProcess, ...] | None = None  # None: not read this time (slow field)
    health: GpuHealth | None = None  # None: not read this time (slow fields) or not available

    @property
    def memory_fraction(self) -> float:
        return self.memory_used_mib / self.memory_total_mib if self.memory_total_mib else 0.0


@dataclass(frozen=True)
class Topology:
    """Which GPUs are joined by active NVLink, and the PCIe level between any two."""

    nvlink_pairs: frozenset[tuple[int, int]] = frozenset()
    levels: dict[tuple[int, int], int] = field(default_factory=dict)

    @staticmethod
    def pair(a: int, b: int) -> tuple[int, int]:
        return (a, b) if a <= b else (b, a)

    def level(self, a: int, b: int) -> int | None:
        return self.levels.get(self.pair(a, b))

    def nvlink_groups(self, gpus: Iterable[int]) -> list[frozenset[int]]:
        """Connected components of the NVLink graph over ``gpus`` (a GPU alone is its own group)."""
        parent = {g: g for g in gpus}

        def find(g: int) -> int:
            while parent[g] != g:
                parent[g] = parent[parent[g]]
                g = parent[g]
            return g

        for a, b in self.nvlink_pairs:
            if a in parent and b in parent:
                parent[find(a)] = find(b)
        groups: dict[int, set[int]] = {}
        for g in parent:
            groups.setdefault(find(g), set()).add(g)
        return sorted((frozenset(s) for s in groups.values()), key=min)


@dataclass(frozen=True)
class HostTelemetry:
    host: str
    source: str  # "nvml", "dcgm", "recorded"
    gpus: tuple[GpuSample, ...] = ()
    topology: Topology | None = None  # None where the source cannot see NVLink (dcgm-exporter)
    status: str = "ok"  # "ok", or why there is nothing to show ("NVML not available on this host")
    driver: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def gpu(self, index: int) -> GpuSample | None:
        return next((g for g in self.gpus if g.index == index), None)


class TelemetrySource(Protocol):
    """A host's GPUs. ``read`` blocks (NVML, HTTP): call it from a worker thread.

    ``full=True`` also reads the slow fields (compute processes), which take
    milliseconds per GPU and hold the driver's lock; poll those every few seconds.
    ``read`` never raises for a missing driver or an unreachable exporter: it
    returns a ``HostTelemetry`` whose ``status`` says why.
    """

    host: str

    def read(self, *, full: bool = False) -> HostTelemetry: ...

    def close(self) -> None: ...
