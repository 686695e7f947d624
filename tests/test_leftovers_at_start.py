"""A chambers killed with SIGKILL leaves temporary files; the next start of any command removes them,
and never those of a process still at work.

Real child processes do the writing: one is killed in the middle of an atomic config save, another
while it holds a partial adapter folder with the claim a training run takes (training itself needs a
base model and torch, so the child takes the same claim without training).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tui.cli.main import main
from workspace.paths import Paths

ROOT = Path(__file__).resolve().parents[1]


def _child(code: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def _kill(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait(30)


def test_a_config_save_killed_halfway_leaves_a_temp_the_next_start_removes(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = Paths.from_environment()
    paths.config_file.parent.mkdir(parents=True)
    paths.config_file.write_text("# the attorney's config\n", encoding="utf-8")
    saver = f"""
        import sys, time
        from pathlib import Path
        from workspace.paths import atomic_file
        with atomic_file(Path({str(paths.config_file)!r}), encoding="utf-8") as fh:
            fh.write("# half a new config")
            fh.flush()
            print("ready", flush=True)
            time.sleep(600)
    """
    killed, alive = _child(saver), _child(saver)
    dead_temp = paths.config_file.with_name(f".config.toml.{killed.pid}.tmp")
    live_temp = paths.config_file.with_name(f".config.toml.{alive.pid}.tmp")
    try:
        _kill(killed)
        assert dead_temp.exists() and live_temp.exists()
        assert main(["matter", "list"]) == 0
        assert not dead_temp.exists(), "the killed save's temporary file is gone"
        assert live_temp.exists(), "a save still running keeps its file"
        assert paths.config_file.read_text(encoding="utf-8") == "# the attorney's config\n"
    finally:
        _kill(alive)
    exports = paths.data_dir / "exports"
    export_saver = saver.replace(repr(str(paths.config_file)), repr(str(exports / "run-1-demand.md")))
    killed_export = _child(export_saver)
    _kill(killed_export)
    left = exports / f".run-1-demand.md.{killed_export.pid}.tmp"
    assert left.exists()
    assert main(["matter", "list"]) == 0
    assert not live_temp.exists() and not left.exists()
    assert sorted(p.name for p in paths.config_file.parent.iterdir()) == ["config.toml", "data"]
    assert list(exports.iterdir()) == []


def test_a_partial_adapter_of_a_killed_run_goes_and_a_live_one_stays(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from corrections.adapters import adapters_dir

    adapters = adapters_dir(Paths.from_environment().data_dir)
    trainer = """
        import time
        from pathlib import Path
        from workspace.leftovers import claim_partial
        partial = Path({partial!r})
        claim = claim_partial(partial)
        partial.mkdir(parents=True)
        (partial / "adapter_model.safetensors").write_bytes(b"x" * 4096)
        print("ready", flush=True)
        time.sleep(600)
    """
    running = adapters / ".drafter-v2.partial"
    child = _child(trainer.format(partial=str(running)))
    legacy = adapters / ".old-run.partial"  # left before runs took a claim: nobody holds it
    (legacy / "peft").mkdir(parents=True)
    finished = adapters / "drafter-v1"
    finished.mkdir()
    try:
        assert main(["matter", "list"]) == 0
        assert running.is_dir() and (running / "adapter_model.safetensors").is_file(), "a live run keeps it"
        assert not legacy.exists()
        _kill(child)
        assert running.is_dir()
        assert main(["matter", "list"]) == 0
        assert not running.exists(), "the killed run's partial folder is gone"
    finally:
        if child.poll() is None:
            _kill(child)
    assert sorted(p.name for p in adapters.iterdir()) == ["drafter-v1"]
