"""The recorded office installation as boards and telemetry, for the demo and tests.

Chassis 1 (12x V100-SXM2) replays the recorded NVML snapshot; chassis 2
(4x RTX 3090 + 2x V100-PCIe) reads a saved dcgm-exporter text. Both files
ship in ``backends/fleet/recordings`` and say where their numbers came from.
"""

from __future__ import annotations

from backends.fleet.recorded_source import MISSION_CHASSIS1, MISSION_CHASSIS2_DCGM
from workspace.config import Board, TelemetrySourceConfig

MISSION_BOARDS = (
    Board("pair-01", "chassis1", (0, 1)),
    Board("pair-23", "chassis1", (2, 3)),
    Board("board-a", "chassis1", (4, 5, 8, 9)),
    Board("board-b", "chassis1", (6, 7, 10, 11)),
    Board("3090s", "chassis2", (0, 1, 2, 3)),
)


def mission_telemetry() -> tuple[TelemetrySourceConfig, ...]:
    return (
        TelemetrySourceConfig("recorded", "chassis1", path=str(MISSION_CHASSIS1)),
        TelemetrySourceConfig("dcgm", "chassis2", path=str(MISSION_CHASSIS2_DCGM)),
    )
