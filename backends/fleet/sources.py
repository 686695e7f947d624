"""Telemetry sources from the config's ``[[telemetry]]`` tables.

Without any, chambers reads this host through NVML as ``localhost`` (where
there is no NVIDIA driver that reads "NVML not available on this host").
Relative paths are taken from the config file's folder.
"""

from __future__ import annotations

from pathlib import Path

from backends.fleet.dcgm_source import DcgmSource
from backends.fleet.nvml_source import NvmlSource
from backends.fleet.recorded_source import RecordedSource
from backends.fleet.telemetry import TelemetrySource
from workspace.config import Config, TelemetrySourceConfig


def _path(config: Config, raw: str) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path(config.file).parent / path


def source_for(config: Config, entry: TelemetrySourceConfig) -> TelemetrySource:
    if entry.kind == "nvml":
        return NvmlSource(entry.host)
    if entry.kind == "recorded":
        return RecordedSource(_path(config, entry.path or ""), entry.host)
    if entry.url:
        return DcgmSource(entry.host, url=entry.url, policy=config.policy)
    return DcgmSource(entry.host, path=_path(config, entry.path or ""))


def sources_from_config(config: Config) -> list[TelemetrySource]:
    if not config.telemetry:
        return [NvmlSource("localhost")]
    return [source_for(config, entry) for entry in config.telemetry]
