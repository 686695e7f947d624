"""The topology lint against the recorded office chassis (see test_fleet_telemetry for the stand-in)."""

from __future__ import annotations

from dataclasses import replace

from backends.fleet.recorded_source import MISSION_CHASSIS1, RecordedSource
from backends.fleet.telemetry import GpuProcess, HostTelemetry
from backends.fleet.topology_lint import Finding, lint_topology
from tests.conftest import make_backend
from workspace.config import Board, Config, Policy

MISSION_BOARDS = (
    Board("pair-01", "chassis1", (0, 1)),
    Board("pair-23", "chassis1", (2, 3)),
    Board("board-a", "chassis1", (4, 5, 8, 9)),
    Board("board-b", "chassis1", (6, 7, 10, 11)),
)


def chassis1() -> dict[str, HostTelemetry]:
    return {"chassis1": RecordedSource(MISSION_CHASSIS1).read(full=True)}


def config(*boards: Board, pinned: str | None = None) -> Config:
    backends = (make_backend("http://127.0.0.1:9", name="workhorse", board=pinned),) if pinned else ()
    return Config(file="c.toml", policy=Policy(), boards=boards, backends=backends)


def board_findings(cfg: Config) -> list[Finding]:
    """Findings about boards only (a partial layout also leaves servers outside any board)."""
    return [f for f in lint_topology(cfg, chassis1()) if f.subject.startswith("board ")]


def test_the_mission_layout_only_warns_about_the_mixed_pair() -> None:
    findings = lint_topology(config(*MISSION_BOARDS, pinned="board-a"), chassis1())
    assert [(f.level, f.subject) for f in findings] == [("warning", "board pair-23")]
    text = findings[0].message
    assert "GPU 3 16 GB" in text and "32 GB of 48 GB is usable" in text


def test_a_pinned_board_spanning_two_groups_is_an_error_naming_gpus_and_hop() -> None:
    wrong = Board("board-a", "chassis1", (4, 5, 6, 7))
    (finding,) = board_findings(config(wrong, pinned="board-a"))
    assert finding.level == "error"
    assert "{4,5} | {6,7}" in finding.message and "GPU 4 to GPU 6" in finding.message
    assert "NUMA" in finding.message and "workhorse" in finding.message


def test_an_unused_spanning_board_is_only_a_warning() -> None:
    (finding,) = board_findings(config(Board("odd", "chassis1", (1, 2))))
    assert finding.level == "warning" and "{1} | {2}" in finding.message


def test_a_board_naming_a_gpu_the_host_lacks_is_an_error() -> None:
    (finding,) = board_findings(config(Board("big", "chassis1", (10, 11, 12, 13))))
    assert finding.level == "error" and "names GPU 12,13" in finding.message


def test_a_server_on_gpus_outside_its_board_is_a_warning() -> None:
    host = chassis1()["chassis1"]
    stray = GpuProcess(pid=4211, name="llama-server", used_mib=1024.0)
    gpus = tuple(
        replace(g, processes=(*(g.processes or ()), stray)) if g.index == 6 else g for g in host.gpus
    )
    findings = lint_topology(config(*MISSION_BOARDS), {"chassis1": replace(host, gpus=gpus)})
    (stray_finding,) = [f for f in findings if f.subject == "host chassis1"]
    assert stray_finding.level == "warning"
    assert "pid 4211" in stray_finding.message and "GPUs 4,5,6,8,9" in stray_finding.message
    assert "GPU 6 is outside its board board-a" in stray_finding.message


def test_hosts_without_telemetry_are_reported_not_guessed() -> None:
    down = HostTelemetry("chassis1", "nvml", status="NVML not available on this host")
    (finding,) = lint_topology(config(MISSION_BOARDS[0]), {"chassis1": down})
    assert finding.level == "info" and "NVML not available" in finding.message


def test_config_lint_catches_shared_gpus_and_two_servers_on_one_board() -> None:
    from backends.fleet.doctor import lint_config

    boards = (
        Board("a", "chassis1", (4, 5)),
        Board("b", "chassis1", (5, 6)),
        Board("3090s", "chassis2", (0, 1)),
    )
    backends = (
        make_backend("http://127.0.0.1:8082", name="one", board="a"),
        make_backend("http://127.0.0.1:8083", name="two", board="a"),
        make_backend("http://10.0.0.2:11434", name="router", kind="ollama", board="3090s"),
        make_backend("http://10.0.0.2:11434", name="extractor", kind="ollama", board="3090s"),
    )
    cfg = Config(file="c.toml", policy=Policy(), boards=boards, backends=backends)
    findings = lint_config(cfg, chassis1())
    shared = [f for f in findings if "shares GPU" in f.message]
    assert [(f.level, f.subject) for f in shared] == [("error", "board b")] and "GPU 5" in shared[0].message
    fights = [f for f in findings if "fight" in f.message]
    assert [f.subject for f in fights] == ["board a"]  # one Ollama serving two roles on a board is fine
