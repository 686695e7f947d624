"""GPU health through NVML: the counters of ``GpuHealth`` read from one device handle.

Every counter is read on its own and a missing one stays None: consumer
boards have no ECC, PCIe cards have no NVLink, older drivers lack row
remapping. XIDs are events, not counters: ``XidWatcher`` registers for
critical-XID events once and drains them without waiting at each read,
keeping the last XID per GPU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

from backends.fleet.gpu_health import GpuHealth, LinkHealth

T = TypeVar("T")


def _soft(N: Any) -> tuple[type[BaseException], ...]:
    return (
        N.NVMLError_NotSupported,
        N.NVMLError_NoPermission,
        N.NVMLError_FunctionNotFound,
        N.NVMLError_InvalidArgument,
        N.NVMLError_Unknown,
    )


def _maybe(fn: Callable[[], T], errors: tuple[type[BaseException], ...]) -> T | None:
    try:
        return fn()
    except errors:
        return None


def _throttle(N: Any, h: Any) -> int:
    try:
        return int(N.nvmlDeviceGetCurrentClocksEventReasons(h))
    except (AttributeError, N.NVMLError_FunctionNotFound):  # drivers before the rename
        return int(N.nvmlDeviceGetCurrentClocksThrottleReasons(h))


def _throughput(N: Any, h: Any, link: int, soft: tuple[type[BaseException], ...]) -> tuple[float | None, ...]:
    """KiB of data sent and received over ``link`` (NVML field values, scoped by link)."""
    fields = [
        (N.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, link),
        (N.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, link),
    ]
    try:
        values = N.nvmlDeviceGetFieldValues(h, fields)
    except soft:
        return None, None
    return tuple(float(v.value.ullVal) if v.nvmlReturn == 0 else None for v in values)


def read_links(N: Any, h: Any, soft: tuple[type[BaseException], ...]) -> tuple[LinkHealth, ...]:
    links = []
    for link in range(N.NVML_NVLINK_MAX_LINKS):
        try:
            state = N.nvmlDeviceGetNvLinkState(h, link)
        except (N.NVMLError_NotSupported, N.NVMLError_InvalidArgument):
            break  # past this GPU's own links, or no NVLink at all
        except N.NVMLError:
            continue

        def counter(kind: int, link: int = link) -> int | None:
            return _maybe(lambda: int(N.nvmlDeviceGetNvLinkErrorCounter(h, link, kind)), soft)

        tx, rx = _throughput(N, h, link, soft)
        links.append(
            LinkHealth(
                link=link,
                active=state == N.NVML_FEATURE_ENABLED,
                crc_flit_errors=counter(N.NVML_NVLINK_ERROR_DL_CRC_FLIT),
                crc_data_errors=counter(N.NVML_NVLINK_ERROR_DL_CRC_DATA),
                replay_errors=counter(N.NVML_NVLINK_ERROR_DL_REPLAY),
                recovery_errors=counter(N.NVML_NVLINK_ERROR_DL_RECOVERY),
                tx_kib=tx,
                rx_kib=rx,
            )
        )
    return tuple(links)


def read_health(N: Any, h: Any, last_xid: int | None) -> GpuHealth:
    soft = _soft(N)

    def ecc(kind: int, counter: int) -> int | None:
        return _maybe(lambda: int(N.nvmlDeviceGetTotalEccErrors(h, kind, counter)), soft)

    def retired(cause: int) -> int | None:
        return _maybe(lambda: len(N.nvmlDeviceGetRetiredPages(h, cause)), soft)

    remap = _maybe(
        lambda: N.nvmlDeviceGetRemappedRows(h), soft
    )  # (correctable, uncorrectable, pending, failed)
    pending = _maybe(lambda: N.nvmlDeviceGetRetiredPagesPendingStatus(h), soft)
    return GpuHealth(
        ecc_volatile_corrected=ecc(N.NVML_MEMORY_ERROR_TYPE_CORRECTED, N.NVML_VOLATILE_ECC),
        ecc_volatile_uncorrected=ecc(N.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, N.NVML_VOLATILE_ECC),
        ecc_aggregate_corrected=ecc(N.NVML_MEMORY_ERROR_TYPE_CORRECTED, N.NVML_AGGREGATE_ECC),
        ecc_aggregate_uncorrected=ecc(N.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, N.NVML_AGGREGATE_ECC),
        retired_pages_sbe=retired(N.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS),
        retired_pages_dbe=retired(N.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR),
        retired_pending=None if pending is None else bool(pending),
        remapped_rows_correctable=None if remap is None else int(remap[0]),
        remapped_rows_uncorrectable=None if remap is None else int(remap[1]),
        remap_pending=None if remap is None else bool(remap[2]),
        remap_failed=None if remap is None else bool(remap[3]),
        last_xid=last_xid,
        throttle_reasons=_maybe(lambda: _throttle(N, h), soft),
        pcie_replays=_maybe(lambda: int(N.nvmlDeviceGetPcieReplayCounter(h)), soft),
        nvlinks=read_links(N, h, soft),
    )


class XidWatcher:
    """Critical-XID events of every GPU, drained without blocking; the last XID per GPU index."""

    def __init__(self, N: Any, handles: list[Any]) -> None:
        self.N = N
        self.last: dict[int, int] = {}
        self._set: Any = None
        try:
            self._set = N.nvmlEventSetCreate()
            for h in handles:
                try:
                    N.nvmlDeviceRegisterEvents(h, N.nvmlEventTypeXidCriticalError, self._set)
                except (N.NVMLError_NotSupported, N.NVMLError_NoPermission):
                    continue  # this GPU cannot report XIDs as events; the others still do
        except N.NVMLError:
            self._set = None

    def drain(self) -> None:
        N = self.N
        if self._set is None:
            return
        for _ in range(64):  # a storm of events must not hold the driver's lock for long
            try:
                data = N.nvmlEventSetWait_v2(self._set, 0)
            except N.NVMLError_Timeout:
                return
            except N.NVMLError:
                return
            try:
                self.last[int(N.nvmlDeviceGetIndex(data.device))] = int(data.eventData)
            except N.NVMLError:
                continue

    def close(self) -> None:
        if self._set is not None:
            with contextlib.suppress(self.N.NVMLError):  # the driver is going away with it
                self.N.nvmlEventSetFree(self._set)
            self._set = None
