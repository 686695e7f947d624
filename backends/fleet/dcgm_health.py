"""GPU health from dcgm-exporter fields: the DCGM copies of the NVML counters in ``GpuHealth``.

Field names are DCGM's (``dcgm_fields.h``): ECC ``DCGM_FI_DEV_ECC_{SBE,DBE}_{VOL,AGG}_TOTAL``,
``DCGM_FI_DEV_RETIRED_{SBE,DBE,PENDING}``, row remapping
``DCGM_FI_DEV_{CORRECTABLE,UNCORRECTABLE}_REMAPPED_ROWS`` / ``ROW_REMAP_PENDING`` /
``ROW_REMAP_FAILURE``, ``DCGM_FI_DEV_XID_ERRORS`` (the last XID, a gauge),
``DCGM_FI_DEV_CLOCK_THROTTLE_REASONS`` (renamed ``DCGM_FI_DEV_CLOCKS_EVENT_REASONS``; NVML's
bitmask), ``DCGM_FI_DEV_PCIE_REPLAY_COUNTER``, and per NVLink link ``..._L0`` to ``..._L17``:
``NVLINK_CRC_FLIT_ERROR_COUNT``, ``NVLINK_CRC_DATA_ERROR_COUNT``, ``NVLINK_REPLAY_ERROR_COUNT``,
``NVLINK_RECOVERY_ERROR_COUNT`` and ``NVLINK_BANDWIDTH``. Most are not in the exporter's
default counters; its CSV must list them. DCGM exports no link state, so a link's ``active``
is unknown (None) and a down lane shows only through its error counters.
"""

from __future__ import annotations

import re

from backends.fleet.gpu_health import GpuHealth, LinkHealth

HEALTH_FIELDS = (
    "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
    "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
    "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
    "DCGM_FI_DEV_RETIRED_SBE",
    "DCGM_FI_DEV_RETIRED_DBE",
    "DCGM_FI_DEV_RETIRED_PENDING",
    "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
    "DCGM_FI_DEV_ROW_REMAP_PENDING",
    "DCGM_FI_DEV_ROW_REMAP_FAILURE",
    "DCGM_FI_DEV_XID_ERRORS",
    "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
    "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
)
LINK_FIELD = re.compile(
    r"DCGM_FI_DEV_NVLINK_(CRC_FLIT_ERROR_COUNT|CRC_DATA_ERROR_COUNT|REPLAY_ERROR_COUNT|RECOVERY_ERROR_COUNT"
    r"|BANDWIDTH)_L(\d+)$"
)


def _int(fields: dict[str, float], name: str) -> int | None:
    value = fields.get(name)
    return None if value is None else int(value)


def _flag(fields: dict[str, float], name: str) -> bool | None:
    value = fields.get(name)
    return None if value is None else value > 0


def health_from_fields(fields: dict[str, float]) -> GpuHealth | None:
    """``GpuHealth`` from one GPU's DCGM samples; None when the exporter sends none of the health fields."""
    links: dict[int, dict[str, float]] = {}
    for name, value in fields.items():
        match = LINK_FIELD.match(name)
        if match:
            links.setdefault(int(match.group(2)), {})[match.group(1)] = value
    if not links and not any(name in fields for name in HEALTH_FIELDS):
        return None
    throttle = fields.get(
        "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", fields.get("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS")
    )
    remap_pending = _flag(fields, "DCGM_FI_DEV_ROW_REMAP_PENDING")
    return GpuHealth(
        ecc_volatile_corrected=_int(fields, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL"),
        ecc_volatile_uncorrected=_int(fields, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"),
        ecc_aggregate_corrected=_int(fields, "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL"),
        ecc_aggregate_uncorrected=_int(fields, "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"),
        retired_pages_sbe=_int(fields, "DCGM_FI_DEV_RETIRED_SBE"),
        retired_pages_dbe=_int(fields, "DCGM_FI_DEV_RETIRED_DBE"),
        retired_pending=_flag(fields, "DCGM_FI_DEV_RETIRED_PENDING"),
        remapped_rows_correctable=_int(fields, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS"),
        remapped_rows_uncorrectable=_int(fields, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS"),
        remap_pending=remap_pending,
        remap_failed=_flag(fields, "DCGM_FI_DEV_ROW_REMAP_FAILURE"),
        last_xid=_int(fields, "DCGM_FI_DEV_XID_ERRORS") or None,
        throttle_reasons=None if throttle is None else int(throttle),
        pcie_replays=_int(fields, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER"),
        nvlinks=tuple(
            LinkHealth(
                link=n,
                active=None,
                crc_flit_errors=_int(f, "CRC_FLIT_ERROR_COUNT"),
                crc_data_errors=_int(f, "CRC_DATA_ERROR_COUNT"),
                replay_errors=_int(f, "REPLAY_ERROR_COUNT"),
                recovery_errors=_int(f, "RECOVERY_ERROR_COUNT"),
                bandwidth=f.get("BANDWIDTH"),
            )
            for n, f in sorted(links.items())
        ),
    )
