"""GPUs on another host, from NVIDIA's dcgm-exporter (Prometheus text, default ``:9400/metrics``).

The text is parsed with prometheus-client. Samples are keyed by the ``gpu``
label (index) and carry ``UUID``, ``pci_bus_id``, ``modelName`` and the host
label, spelt ``Hostname`` before dcgm-exporter PR #655 and ``hostname`` after:
both are accepted. Memory comes in MiB, power in W. Values near 2**63 are
DCGM's "blank" sentinels (field not supported) and are dropped. The exporter
cannot see NVLink, so ``topology`` is None and the lint says it cannot check.
The exporter's URL is held to the same local-only policy as a model server,
through the same endpoint layer: GPU names and process counts are the
office's business too.
"""

from __future__ import annotations

from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from backends.endpoint import Endpoint, sync_client
from backends.errors import HTTP_FAILURES
from backends.fleet.dcgm_health import health_from_fields
from backends.fleet.nvml_source import normalise_bus_id
from backends.fleet.telemetry import GpuSample, HostTelemetry
from workspace.config import Policy
from workspace.errors import ChambersError

BLANK_THRESHOLD = 9.2e18
DCGM_TIMEOUT = httpx.Timeout(2.0)  # a slow exporter must not stall the poll of the other hosts


def parse_dcgm_text(text: str, host: str | None = None) -> HostTelemetry:
    """One ``HostTelemetry`` from exporter text. Raises ValueError for text that is not Prometheus."""
    fields: dict[int, dict[str, float]] = {}
    labels: dict[int, dict[str, str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if not sample.name.startswith("DCGM_FI_") or "gpu" not in sample.labels:
                continue
            if sample.value >= BLANK_THRESHOLD:
                continue
            index = int(sample.labels["gpu"])
            name = sample.name.removesuffix("_total")  # counters get _total added by the parser
            fields.setdefault(index, {})[name] = sample.value
            labels.setdefault(index, dict(sample.labels))
    seen_host = next(
        (
            lab.get("hostname") or lab.get("Hostname")
            for lab in labels.values()
            if lab.get("hostname") or lab.get("Hostname")
        ),
        None,
    )
    gpus = []
    for index in sorted(fields):
        f, lab = fields[index], labels[index]
        used = f.get("DCGM_FI_DEV_FB_USED", 0.0)
        total = used + f.get("DCGM_FI_DEV_FB_FREE", 0.0) + f.get("DCGM_FI_DEV_FB_RESERVED", 0.0)
        gpus.append(
            GpuSample(
                index=index,
                name=lab.get("modelName", ""),
                uuid=lab.get("UUID", lab.get("uuid", "")),
                bus_id=normalise_bus_id(lab.get("pci_bus_id", "")),
                memory_used_mib=used,
                memory_total_mib=total,
                utilization_pct=f.get("DCGM_FI_DEV_GPU_UTIL"),
                temperature_c=f.get("DCGM_FI_DEV_GPU_TEMP"),
                power_w=f.get("DCGM_FI_DEV_POWER_USAGE"),
                power_limit_w=f.get("DCGM_FI_DEV_POWER_MGMT_LIMIT"),  # not a default counter
                sm_clock_mhz=f.get("DCGM_FI_DEV_SM_CLOCK"),
                processes=None,  # the exporter does not list processes
                health=health_from_fields(f),
            )
        )
    driver = next((lab.get("DCGM_FI_DRIVER_VERSION") for lab in labels.values()), None)
    return HostTelemetry(host or seen_host or "dcgm", "dcgm", tuple(gpus), None, "ok", driver)


class DcgmSource:
    """Reads a dcgm-exporter endpoint (``url``) or a saved copy of its text (``path``)."""

    def __init__(
        self, host: str, *, url: str | None = None, path: Path | None = None, policy: Policy | None = None
    ) -> None:
        if (url is None) == (path is None):
            raise ValueError("DcgmSource needs exactly one of url or path")
        self.host = host
        self.url = url
        self.path = path
        self.policy = policy or Policy()
        self._client: httpx.Client | None = None
        self._last: tuple[str, HostTelemetry] | None = None  # the exporter refreshes every 30 s by default

    def _text(self) -> str:
        if self.path is not None:
            return self.path.read_text(encoding="utf-8")
        checked = Endpoint(self.host, str(self.url), self.policy, what="telemetry source").check()
        if self._client is None:
            self._client = sync_client(DCGM_TIMEOUT)
        response = self._client.get(str(self.url), extensions=checked.extensions())
        response.raise_for_status()
        return response.text

    def read(self, *, full: bool = False) -> HostTelemetry:
        where = self.url or str(self.path)
        try:
            text = self._text()
        except ChambersError as exc:  # the policy refused the address, or it is not a URL
            return HostTelemetry(self.host, "dcgm", status=f"refused: {exc.message}")
        except (OSError, *HTTP_FAILURES) as exc:
            return HostTelemetry(self.host, "dcgm", status=f"dcgm-exporter at {where} not reachable ({exc})")
        if self._last is not None and self._last[0] == text:
            return self._last[1]  # unchanged text: skip the parse
        try:
            telemetry = parse_dcgm_text(text, self.host)
        except ValueError as exc:
            return HostTelemetry(self.host, "dcgm", status=f"{where} is not dcgm-exporter text ({exc})")
        self._last = (text, telemetry)
        return telemetry

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
