"""The recorded office installation as a config for dashboard tests, snapshots and the benchmark.

GPUs come from the recorded stand-ins (see backends/fleet/recorded_source.py);
the six backends sit on closed loopback ports unless a live URL is given, so a
snapshot reads the same on every machine.
"""

from __future__ import annotations

from backends.fleet.mission import MISSION_BOARDS, mission_telemetry
from workspace.config import Backend, Config, DashboardSettings, Policy

CLOSED = "http://127.0.0.1:9"


def mission_config(
    file: str = "config.toml", *, live_url: str | None = None, refresh_s: float = 60.0
) -> Config:
    """16 GPUs, 6 backends; ``live_url`` (a real llama-server) becomes the workhorse on board-a."""
    backends = (
        Backend("router", "ollama", CLOSED, ("router",), "3090s", "qwen3:4b"),
        Backend("gate", "llamacpp", CLOSED, ("gate",), "pair-01"),
        Backend("workhorse", "llamacpp", live_url or CLOSED, ("drafter",), "board-a"),
        Backend("heavy", "llamacpp", CLOSED, ("heavy",), "board-b"),
        Backend("reviewer", "llamacpp", CLOSED, ("reviewer",), "pair-23"),
        Backend("extractor", "ollama", CLOSED, ("extractor",), "3090s", "gemma4:26b"),
    )
    telemetry = mission_telemetry()
    return Config(
        file=file,
        policy=Policy(),
        boards=MISSION_BOARDS,
        backends=backends,
        telemetry=telemetry,
        dashboard=DashboardSettings(refresh_s),
    )
