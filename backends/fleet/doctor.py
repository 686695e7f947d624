"""``chambers doctor``: everything that can be checked without sending a prompt.

Config lint (what parses but will not work as meant), topology lint against
the GPUs the hosts really have, and for each backend: reachable, health,
model, n_ctx, and the class the local-only policy gave its address. Errors
make the command exit non-zero, so it can gate a script or a start-up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePath
from typing import Any

from backends.adapters import adapter_class, adapter_for
from backends.fleet.doctor_lora import lora_findings
from backends.fleet.health_lint import lint_health
from backends.fleet.key_check import key_findings
from backends.fleet.profile_check import binary_build, profile_findings
from backends.fleet.profiles import profiles_from_config
from backends.fleet.serve import binary_for
from backends.fleet.servers import ServerPoller, ServerSample, is_slow
from backends.fleet.telemetry import HostTelemetry, TelemetrySource
from backends.fleet.topology_lint import Finding, lint_topology
from backends.lora import adapter_findings
from backends.lora_base import TrainedOn
from backends.server_facts import Props
from workspace.config import Config
from workspace.errors import ChambersError


@dataclass(frozen=True)
class HostSummary:
    host: str
    source: str
    status: str
    gpus: int
    driver: str | None


@dataclass
class DoctorReport:
    config_file: str
    hosts: list[HostSummary] = field(default_factory=list)
    backends: list[ServerSample] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "warning"]

    def as_dict(self) -> dict[str, Any]:
        def backend(s: ServerSample) -> dict[str, Any]:
            keep = (
                "name",
                "kind",
                "health",
                "problem",
                "address_class",
                "model",
                "n_ctx",
                "build",
                "slots_total",
                "decode_avg_tok_s",
            )
            out = {k: v for k, v in asdict(s).items() if k in keep}
            out["reachable"] = s.health in ("ok", "loading", "error")
            return out

        return {
            "config": self.config_file,
            "ok": not self.errors,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "hosts": [asdict(h) for h in self.hosts],
            "backends": [backend(s) for s in self.backends],
            "findings": [f.as_dict() for f in self.findings],
        }


def lint_config(config: Config, hosts: dict[str, HostTelemetry]) -> list[Finding]:
    """What the strict parser lets through but the attorney would not mean."""
    findings = []
    used = {b.board for b in config.backends if b.board}
    for backend in config.backends:
        if not backend.board:
            findings.append(
                Finding(
                    "info", f"backend {backend.name}", "is not pinned to a board, so its GPUs are not checked"
                )
            )
        if not backend.roles:
            findings.append(Finding("warning", f"backend {backend.name}", "has no roles, so no step uses it"))
    for board in config.boards:
        if board.name not in used:
            findings.append(Finding("info", f"board {board.name}", "no backend is pinned to it"))
    owner: dict[tuple[str, int], str] = {}
    for board in config.boards:
        for gpu in board.gpus:
            other = owner.setdefault((board.host, gpu), board.name)
            if other != board.name:
                findings.append(
                    Finding(
                        "error",
                        f"board {board.name}",
                        f"shares GPU {gpu} on {board.host} with board {other}; a GPU belongs to one board",
                    )
                )
    servers_on: dict[str, set[str]] = {}
    for backend in config.backends:
        if backend.board:
            servers_on.setdefault(backend.board, set()).add(backend.url)
    for board_name, urls in servers_on.items():
        if len(urls) > 1:
            findings.append(
                Finding(
                    "warning",
                    f"board {board_name}",
                    f"has {len(urls)} different servers pinned ({', '.join(sorted(urls))}); they will fight over its GPUs",
                )
            )
    for host in sorted({b.host for b in config.boards} - set(hosts)):
        findings.append(
            Finding("warning", f"host {host}", "boards name this host but no [[telemetry]] source covers it")
        )
    return findings


def backend_findings(config: Config, samples: list[ServerSample]) -> list[Finding]:
    findings = []
    for backend, s in zip(config.backends, samples, strict=True):
        subject = f"backend {backend.name}"
        if s.health in ("down", "refused", "error"):
            findings.append(Finding("error", subject, f"{s.health}: {s.problem}"))
        elif s.health == "loading":
            findings.append(Finding("warning", subject, f"still loading: {s.problem}"))
        if s.address_class not in (None, "loopback", "private"):
            findings.append(Finding("warning", subject, f"its address {backend.url} is {s.address_class}"))
        if is_slow(s, backend.min_decode_tok_s):
            findings.append(
                Finding(
                    "warning",
                    subject,
                    f"decodes at {s.decode_avg_tok_s:.1f} tok/s on average, below its floor of "
                    f"{backend.min_decode_tok_s:g} tok/s (min_decode_tok_s)",
                )
            )
    return findings


def read_hosts(sources: list[TelemetrySource]) -> dict[str, HostTelemetry]:
    """Blocking (NVML, HTTP): a full read of every source."""
    return {s.host: s.read(full=True) for s in sources}


async def _props_of(config: Config, samples: list[ServerSample]) -> dict[str, Props | None]:
    """``/props`` of every server that answered and reports how it was launched (None where it then failed)."""

    async def props(name: str) -> Props | None:
        try:
            return await adapter_for(config.backend_named(name), config.policy).props()
        except ChambersError:
            return None

    names = [s.name for s in samples if s.ok and adapter_class(s.kind).REPORTS_PROPS]
    return dict(zip(names, await asyncio.gather(*(props(n) for n in names)), strict=True))


async def _profile_findings(
    config: Config, props: dict[str, Props | None], loaded: dict[str, list[str] | None]
) -> list[Finding]:
    """Each running server against its launch profile (``/props``: model, n_ctx, slots, sampling, build;
    ``/lora-adapters``: its adapters)."""
    profiles = profiles_from_config(config)
    builds = {}
    for p in profiles:
        if p.backend not in props:
            continue
        binary = binary_for(p, build=False)
        builds[p.name] = (
            await asyncio.to_thread(binary_build, binary) if binary and binary.is_file() else None
        )
    configured = {b.name: tuple(r.name for r in b.lora) for b in config.backends}
    return profile_findings(profiles, props, builds, loaded, configured)


def _with_model_file(sample: ServerSample, props: Props | None) -> ServerSample:
    """The sample with the model file's name (``/props``' ``model_path``) for the table's model column."""
    path = str(props.raw.get("model_path") or "") if props is not None else ""
    return replace(sample, model=PurePath(path.replace("\\", "/")).name) if path else sample


async def run_doctor(
    config: Config, sources: list[TelemetrySource], trained_on: Mapping[str, TrainedOn] | None = None
) -> DoctorReport:
    """``trained_on``: what the registry says each adapter (by name) was trained on."""
    hosts_task = asyncio.to_thread(read_hosts, sources)
    pollers = [ServerPoller(b, config.policy) for b in config.backends]
    hosts, samples = await asyncio.gather(hosts_task, asyncio.gather(*(p.poll() for p in pollers)))
    reachable = [b for b, s in zip(config.backends, samples, strict=True) if s.health == "ok"]
    adapters = await adapter_findings(reachable, config.policy)
    props = await _props_of(config, list(samples))
    loras, loaded = await lora_findings(reachable, config.policy, props, trained_on or {})
    report = DoctorReport(config.file)
    report.hosts = [HostSummary(h.host, h.source, h.status, len(h.gpus), h.driver) for h in hosts.values()]
    report.backends = [_with_model_file(s, props.get(s.name)) for s in samples]
    report.findings = [
        *lint_config(config, hosts),
        *lint_topology(config, hosts),
        *lint_health(config, hosts),
        *backend_findings(config, list(samples)),
        *(Finding(level, subject, message) for level, subject, message in adapters),
        *loras,
        *await key_findings(reachable, config.policy),
        *await _profile_findings(config, props, loaded),
    ]
    return report
