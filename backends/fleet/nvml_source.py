"""Local GPUs through NVML (``pynvml`` from the ``nvidia-ml-py`` distribution).

Where the library or the driver is missing the source reports "NVML not
available on this host" and carries on; it never raises from ``read``. Names,
UUIDs, bus ids and the NVLink topology do not change while the driver is
loaded, so they are read once; per-tick reads are the cheap calls (memory,
utilisation, temperature, power, clock), and the compute-process list, which
holds the driver's global lock for milliseconds, and the health counters
(ECC, retired pages, XIDs, throttle reasons, PCIe replays, NVLink errors) only
when ``full`` is asked.
Every metric is read separately because many are not supported on every board.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from backends.fleet.nvml_health import XidWatcher, read_health
from backends.fleet.telemetry import GpuProcess, GpuSample, HostTelemetry, Topology

NOT_AVAILABLE = "NVML not available on this host"
T = TypeVar("T")
MIB = 1024 * 1024


def _load_pynvml() -> Any:
    try:
        import pynvml
    except ImportError:  # the dependency is missing from this environment
        return None
    return pynvml


def _maybe(fn: Callable[[], T], errors: tuple[type[BaseException], ...]) -> T | None:
    try:
        return fn()
    except errors:
        return None


def normalise_bus_id(bus_id: str | bytes) -> str:
    """NVML's ``00000000:3B:00.0`` and sysfs's ``0000:3b:00.0`` compare equal after this."""
    text = bus_id.decode() if isinstance(bus_id, bytes) else bus_id
    domain, _, rest = text.partition(":")
    return f"{int(domain, 16):04x}:{rest.lower()}" if rest else text.lower()


def process_name(pid: int) -> str:
    """The command name of ``pid`` (host PIDs; empty where this namespace cannot see it)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class NvmlSource:
    """Telemetry for the GPUs of this host. Thread-safe: one lock around NVML calls."""

    def __init__(self, host: str = "localhost") -> None:
        self.host = host
        self._lock = threading.Lock()
        self._nvml: Any = None
        self._handles: list[Any] = []
        self._static: list[tuple[str, str, str]] = []  # name, uuid, bus id per index
        self._topology: Topology | None = None
        self._driver: str | None = None
        self._status: str | None = None  # set once initialisation has been tried
        self._xids: XidWatcher | None = None

    def _init(self) -> None:
        N = _load_pynvml()
        if N is None:
            self._status = f"{NOT_AVAILABLE} (the nvidia-ml-py package is not installed)"
            return
        try:
            N.nvmlInit()
        except N.NVMLError_LibraryNotFound:
            self._status = f"{NOT_AVAILABLE} (no NVIDIA driver library, libnvidia-ml.so.1)"
            return
        except N.NVMLError_DriverNotLoaded:
            self._status = f"{NOT_AVAILABLE} (the NVIDIA kernel driver is not loaded)"
            return
        except N.NVMLError as exc:
            self._status = f"{NOT_AVAILABLE} ({exc})"
            return
        self._nvml = N
        try:
            self._driver = N.nvmlSystemGetDriverVersion()
            self._handles = [N.nvmlDeviceGetHandleByIndex(i) for i in range(N.nvmlDeviceGetCount())]
            for h in self._handles:
                bus = normalise_bus_id(N.nvmlDeviceGetPciInfo(h).busId)
                self._static.append((N.nvmlDeviceGetName(h), N.nvmlDeviceGetUUID(h), bus))
            self._topology = self._read_topology()
            self._xids = XidWatcher(N, self._handles)
            self._status = "ok"
        except N.NVMLError as exc:
            self._status = f"NVML failed while listing GPUs ({exc})"

    def _read_topology(self) -> Topology:
        N = self._nvml
        by_bus = {bus: i for i, (_, _, bus) in enumerate(self._static)}
        pairs: set[tuple[int, int]] = set()
        skip = (N.NVMLError_NotSupported, N.NVMLError_InvalidArgument)
        for i, h in enumerate(self._handles):
            for link in range(N.NVML_NVLINK_MAX_LINKS):  # an upper bound, not the real count
                try:
                    if N.nvmlDeviceGetNvLinkState(h, link) != N.NVML_FEATURE_ENABLED:
                        continue
                    remote = N.nvmlDeviceGetNvLinkRemotePciInfo(h, link)
                except skip:
                    break  # past this GPU's own links (or a PCIe card without NVLink)
                except N.NVMLError:
                    continue
                peer = by_bus.get(normalise_bus_id(remote.busId))
                if peer is not None and peer != i:
                    pairs.add(Topology.pair(i, peer))
        levels: dict[tuple[int, int], int] = {}
        for i, hi in enumerate(self._handles):
            for j in range(i + 1, len(self._handles)):
                try:
                    levels[(i, j)] = int(N.nvmlDeviceGetTopologyCommonAncestor(hi, self._handles[j]))
                except N.NVMLError:
                    continue
        return Topology(frozenset(pairs), levels)

    def read(self, *, full: bool = False) -> HostTelemetry:
        with self._lock:
            if self._status is None:
                self._init()
            if self._status != "ok":
                return HostTelemetry(self.host, "nvml", status=self._status or NOT_AVAILABLE)
            try:
                if full and self._xids is not None:
                    self._xids.drain()
                gpus = tuple(self._sample(i, h, full) for i, h in enumerate(self._handles))
            except self._nvml.NVMLError as exc:  # GPU lost, driver reloaded: say so, keep going
                return HostTelemetry(self.host, "nvml", status=f"NVML read failed ({exc})")
        return HostTelemetry(self.host, "nvml", gpus, self._topology, "ok", self._driver)

    def _sample(self, index: int, h: Any, full: bool) -> GpuSample:
        N = self._nvml
        soft = (N.NVMLError_NotSupported, N.NVMLError_NoPermission, N.NVMLError_FunctionNotFound)
        name, uuid, bus = self._static[index]
        mem = N.nvmlDeviceGetMemoryInfo(h)
        util = _maybe(lambda: N.nvmlDeviceGetUtilizationRates(h).gpu, soft)
        temp = _maybe(lambda: self._temperature(h), soft)
        power = _maybe(lambda: N.nvmlDeviceGetPowerUsage(h), soft)
        limit = _maybe(lambda: N.nvmlDeviceGetEnforcedPowerLimit(h), soft)
        sm = _maybe(lambda: N.nvmlDeviceGetClockInfo(h, N.NVML_CLOCK_SM), soft)
        return GpuSample(
            index=index,
            name=name,
            uuid=uuid,
            bus_id=bus,
            memory_used_mib=mem.used / MIB,
            memory_total_mib=mem.total / MIB,
            utilization_pct=None if util is None else float(util),
            temperature_c=None if temp is None else float(temp),
            power_w=None if power is None else power / 1000.0,
            power_limit_w=None if limit is None else limit / 1000.0,
            sm_clock_mhz=None if sm is None else float(sm),
            processes=self._processes(h) if full else None,
            health=read_health(N, h, self._xids.last.get(index) if self._xids else None) if full else None,
        )

    def _temperature(self, h: Any) -> int:
        N = self._nvml
        try:
            return int(N.nvmlDeviceGetTemperatureV(h, N.NVML_TEMPERATURE_GPU))
        except (N.NVMLError_FunctionNotFound, AttributeError):
            return int(N.nvmlDeviceGetTemperature(h, N.NVML_TEMPERATURE_GPU))

    def _processes(self, h: Any) -> tuple[GpuProcess, ...]:
        N = self._nvml
        try:
            procs = N.nvmlDeviceGetComputeRunningProcesses(h)
        except N.NVMLLibraryMismatchError:  # an old driver without _v3
            procs = N.nvmlDeviceGetComputeRunningProcesses_v2(h)
        except (N.NVMLError_NotSupported, N.NVMLError_NoPermission):
            return ()
        return tuple(
            GpuProcess(
                pid=int(p.pid),
                name=process_name(int(p.pid)),
                used_mib=None if p.usedGpuMemory is None else p.usedGpuMemory / MIB,
            )
            for p in procs
        )

    def close(self) -> None:
        with self._lock:
            if self._xids is not None:
                self._xids.close()
                self._xids = None
            if self._nvml is not None:
                self._nvml.nvmlShutdown()  # pairs the successful nvmlInit
                self._nvml = None
                self._status = None
                self._handles, self._static = [], []
