"""Checks the boards in the config against the GPUs and NVLink links the hosts really have.

A model split across two NVLink groups sends every layer boundary over
PCIe/NUMA and its speed collapses, so a pinned board that spans groups is an
error. A board mixing memory sizes is a warning: with llama.cpp's even split,
the smallest card limits every card. A llama-server process found on GPUs
outside its board is a warning: the board assignment and reality disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from backends.adapters import ADAPTERS
from backends.fleet.telemetry import HostTelemetry, topology_word
from workspace.config import Board, Config


@dataclass(frozen=True)
class Finding:
    level: str  # "error", "warning", "info"
    subject: str  # what it is about: a board, backend, host or the config
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"level": self.level, "subject": self.subject, "message": self.message}


def _gpus(indices: Iterable[int]) -> str:
    return ",".join(str(i) for i in sorted(indices))


def lint_topology(config: Config, hosts: dict[str, HostTelemetry]) -> list[Finding]:
    """Findings for every board; ``hosts`` maps host name to its latest (full) telemetry."""
    findings: list[Finding] = []
    pinned = {b.board: b.name for b in config.backends if b.board}
    for board in config.boards:
        telemetry = hosts.get(board.host)
        subject = f"board {board.name}"
        if telemetry is None or not telemetry.ok:
            why = "no telemetry source is configured for it" if telemetry is None else telemetry.status
            findings.append(Finding("info", subject, f"cannot check host {board.host}: {why}"))
            continue
        present = {g.index for g in telemetry.gpus}
        missing = [g for g in board.gpus if g not in present]
        if missing:
            findings.append(
                Finding(
                    "error",
                    subject,
                    f"names GPU {_gpus(missing)}, but host {board.host} has GPUs {_gpus(present) or 'none'}",
                )
            )
            continue
        findings.extend(_span(board, telemetry, pinned.get(board.name)))
        findings.extend(_mixed_memory(board, telemetry))
    findings.extend(_stray_servers(config, hosts))
    return findings


def _span(board: Board, telemetry: HostTelemetry, backend: str | None) -> list[Finding]:
    topology = telemetry.topology
    if topology is None:
        return [
            Finding(
                "info",
                f"board {board.name}",
                f"{telemetry.source} on {board.host} does not report NVLink; the board's links are not checked",
            )
        ]
    groups = topology.nvlink_groups(board.gpus)
    if len(groups) <= 1:
        return []
    a, b = groups[0], groups[1]
    ga, gb = min(a), min(b)
    hop = topology_word(topology.level(ga, gb))
    user = f"backend {backend} on board {board.name}" if backend else f"board {board.name}"
    text = (
        f"{user} spans {len(groups)} NVLink groups ({' | '.join('{' + _gpus(g) + '}' for g in groups)}): "
        f"GPU {ga} to GPU {gb} crosses {hop} over PCIe/NUMA, not NVLink, so a model split across "
        "them collapses in throughput. Keep the board inside one NVLink group."
    )
    return [Finding("error" if backend else "warning", f"board {board.name}", text)]


def _mixed_memory(board: Board, telemetry: HostTelemetry) -> list[Finding]:
    cards = [g for g in telemetry.gpus if g.index in board.gpus]
    sizes = {round(g.memory_total_mib / 1024) for g in cards}
    if len(sizes) <= 1:
        return []
    smallest = min(g.memory_total_mib for g in cards) / 1024
    total = sum(g.memory_total_mib for g in cards) / 1024
    usable = smallest * len(cards)
    per_card = ", ".join(f"GPU {g.index} {g.memory_total_mib / 1024:.0f} GB" for g in cards)
    return [
        Finding(
            "warning",
            f"board {board.name}",
            f"mixes memory sizes ({per_card}): with an even split each card can use only {smallest:.0f} GB, "
            f"so {usable:.0f} GB of {total:.0f} GB is usable. Set --tensor-split to weight the larger cards.",
        )
    ]


def _stray_servers(config: Config, hosts: dict[str, HostTelemetry]) -> list[Finding]:
    """A model-server process whose GPUs are not all inside one board of its host."""
    findings = []
    for host, telemetry in hosts.items():
        boards = [b for b in config.boards if b.host == host]
        if not telemetry.ok or not boards:
            continue
        by_pid: dict[int, tuple[str, set[int]]] = {}
        servers = tuple(name for kind in ADAPTERS.values() for name in kind.PROCESS_NAMES)
        for gpu in telemetry.gpus:
            for proc in gpu.processes or ():
                if proc.name.startswith(servers):
                    by_pid.setdefault(proc.pid, (proc.name, set()))[1].add(gpu.index)
        for pid, (name, gpus) in sorted(by_pid.items()):
            if any(gpus <= set(b.gpus) for b in boards):
                continue
            best = max(boards, key=lambda b: len(gpus & set(b.gpus)))
            outside = gpus - set(best.gpus)
            findings.append(
                Finding(
                    "warning",
                    f"host {host}",
                    f"{name} (pid {pid}) runs on GPUs {_gpus(gpus)}; GPU {_gpus(outside)} "
                    f"{'is' if len(outside) == 1 else 'are'} outside its board {best.name} {{{_gpus(best.gpus)}}}. "
                    "Check CUDA_VISIBLE_DEVICES for that server.",
                )
            )
    return findings
