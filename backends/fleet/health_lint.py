"""Doctor findings from GPU health: each problem names the GPU, its board and the server pinned on it."""

from __future__ import annotations

from backends.fleet.telemetry import HostTelemetry
from backends.fleet.topology_lint import Finding
from workspace.config import Config


def pinned_on(config: Config, host: str, gpu: int) -> tuple[str | None, list[str]]:
    """The board holding ``gpu`` on ``host`` and the backends pinned to that board."""
    for board in config.boards:
        if board.host == host and gpu in board.gpus:
            return board.name, [b.name for b in config.backends if b.board == board.name]
    return None, []


def lint_health(config: Config, hosts: dict[str, HostTelemetry]) -> list[Finding]:
    findings = []
    for host, telemetry in sorted(hosts.items()):
        for gpu in telemetry.gpus:
            if gpu.health is None:
                continue
            board, servers = pinned_on(config, host, gpu.index)
            where = f"on board {board}" if board else "on no board"
            who = f"; server {', '.join(servers)} runs there" if servers else ""
            for problem in gpu.health.problems():
                if problem.level == "info":
                    continue
                findings.append(
                    Finding(problem.level, f"GPU {gpu.index} on {host}", f"{problem.text} ({where}{who})")
                )
    return findings
