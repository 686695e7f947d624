"""A GPU's health beyond utilisation and memory, and what of it the attorney must hear about.

The counters are NVML's (and dcgm-exporter's copies of them): ECC errors
(volatile since the driver loaded, aggregate over the board's life), retired
pages and remapped rows, the last XID event, the clock-throttle reasons
bitmask, PCIe replays, and per NVLink link its state, CRC/replay/recovery
error counters and data throughput. ``problems`` turns them into sentences
with a level: a degraded link or a throttle becomes a warning naming its
reason; an uncorrectable memory error or a failed row remap an error.
"""

from __future__ import annotations

from dataclasses import dataclass

# nvmlClocksEventReason* bits (nvml.h; the same mask as DCGM_FI_DEV_CLOCK_THROTTLE_REASONS)
THROTTLE_REASONS = {  # the hardware's own reasons first: the card has room for one
    0x40: ("thermal slowdown (hardware)", "thermal (HW)", "warning"),
    0x8: ("hardware slowdown", "HW slowdown", "warning"),
    0x80: ("power brake (hardware)", "power brake (HW)", "warning"),
    0x20: ("thermal slowdown (software)", "thermal (SW)", "warning"),
    0x200: ("board power limit", "board power limit", "warning"),
    0x4: ("power cap (software)", "power cap", "info"),
}
# The XIDs an inference server meets most (NVIDIA's "XID Errors" catalogue).
XID_WORDS = {
    13: "graphics engine exception",
    31: "GPU memory page fault",
    43: "GPU stopped processing",
    45: "preemptive cleanup",
    48: "double-bit ECC error",
    61: "internal micro-controller breakpoint",
    62: "internal micro-controller halt",
    63: "ECC page retirement or row remap recorded",
    64: "ECC page retirement or row remap failure",
    74: "NVLink error",
    79: "GPU has fallen off the bus",
    92: "high single-bit ECC error rate",
    94: "contained ECC error",
    95: "uncontained ECC error",
    119: "GSP RPC timeout",
}


@dataclass(frozen=True)
class LinkHealth:
    link: int
    active: bool | None  # None: the source cannot say (dcgm-exporter has no link-state field)
    crc_flit_errors: int | None = None
    crc_data_errors: int | None = None
    replay_errors: int | None = None
    recovery_errors: int | None = None
    tx_kib: float | None = None  # data sent since the driver loaded (KiB)
    rx_kib: float | None = None
    bandwidth: float | None = None  # dcgm-exporter's per-link DCGM_FI_DEV_NVLINK_BANDWIDTH_Ln counter

    @property
    def errors(self) -> int:
        return sum(
            x or 0
            for x in (self.crc_flit_errors, self.crc_data_errors, self.replay_errors, self.recovery_errors)
        )


@dataclass(frozen=True)
class HealthProblem:
    level: str  # "error", "warning", "info"
    text: str
    short: str = ""  # what fits on a board card beside "GPU n"; empty: the text itself

    @property
    def brief(self) -> str:
        return self.short or self.text


@dataclass(frozen=True)
class GpuHealth:
    ecc_volatile_corrected: int | None = None
    ecc_volatile_uncorrected: int | None = None
    ecc_aggregate_corrected: int | None = None
    ecc_aggregate_uncorrected: int | None = None
    retired_pages_sbe: int | None = None
    retired_pages_dbe: int | None = None
    retired_pending: bool | None = None
    remapped_rows_correctable: int | None = None
    remapped_rows_uncorrectable: int | None = None
    remap_pending: bool | None = None
    remap_failed: bool | None = None
    last_xid: int | None = None  # 0 or None: none seen
    throttle_reasons: int | None = None  # the clocks-event bitmask
    pcie_replays: int | None = None
    nvlinks: tuple[LinkHealth, ...] = ()

    def throttle_words(self) -> list[tuple[str, str, str]]:
        mask = self.throttle_reasons or 0
        return [words for bit, words in THROTTLE_REASONS.items() if mask & bit]

    def problems(self) -> list[HealthProblem]:
        out: list[HealthProblem] = []
        if self.ecc_volatile_uncorrected:
            out.append(
                HealthProblem(
                    "error",
                    f"{self.ecc_volatile_uncorrected} uncorrectable ECC errors since the driver loaded",
                    f"{self.ecc_volatile_uncorrected} uncorrectable ECC",
                )
            )
        elif self.ecc_aggregate_uncorrected:
            out.append(
                HealthProblem(
                    "warning",
                    f"{self.ecc_aggregate_uncorrected} uncorrectable ECC errors in the board's life",
                    "uncorrectable ECC in its life",
                )
            )
        if self.remap_failed:
            out.append(
                HealthProblem(
                    "error",
                    "a memory row remap failed: the GPU needs service",
                    "row remap failed: service it",
                )
            )
        if self.remap_pending or self.retired_pending:
            out.append(
                HealthProblem(
                    "warning",
                    "memory repair pending: reset the GPU to apply it",
                    "memory repair pending: reset",
                )
            )
        if self.last_xid:
            words = XID_WORDS.get(self.last_xid, "see NVIDIA's XID catalogue")
            out.append(HealthProblem("warning", f"XID {self.last_xid} ({words})", f"XID {self.last_xid}"))
        for words, short, level in self.throttle_words():
            out.append(HealthProblem(level, f"clocks throttled: {words}", f"throttled: {short}"))
        out.extend(self._link_problems())
        if self.pcie_replays:
            level = "warning" if self.pcie_replays >= 1000 else "info"
            out.append(HealthProblem(level, f"{self.pcie_replays} PCIe replays"))
        return out

    def _link_problems(self) -> list[HealthProblem]:
        out = []
        active = [link for link in self.nvlinks if link.active is True]
        down = [link for link in self.nvlinks if link.active is False]
        if active and down:
            names = ", ".join(str(link.link) for link in down)
            out.append(
                HealthProblem(
                    "warning",
                    f"NVLink degraded: link {names} down ({len(active)} of {len(self.nvlinks)} active)",
                    f"NVLink link {names} down, {len(active)}/{len(self.nvlinks)} up",
                )
            )
        for link in self.nvlinks:
            if link.errors:
                parts = [
                    f"{n} {what}"
                    for n, what in (
                        (link.crc_flit_errors, "CRC flit"),
                        (link.crc_data_errors, "CRC data"),
                        (link.replay_errors, "replay"),
                        (link.recovery_errors, "recovery"),
                    )
                    if n
                ]
                out.append(
                    HealthProblem(
                        "warning",
                        f"NVLink link {link.link} errors: {', '.join(parts)}",
                        f"NVLink link {link.link}: {link.errors} errors",
                    )
                )
        return out

    def headline(self) -> HealthProblem | None:
        """The one problem a card has room for: the worst, first found."""
        problems = [p for p in self.problems() if p.level != "info"]
        for level in ("error", "warning"):
            for p in problems:
                if p.level == level:
                    return p
        return None
