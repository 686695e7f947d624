"""The expected time said before training and eval start (tokens times a rate measured here), and
Ctrl+C stopping a training run with a line saying what was kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corrections.adapters import store_eval
from corrections.train_time import decode_rate, expected_line, training_rate
from tests.conftest import make_backend
from tests.support.train_pairs import store_pairs
from tests.test_demo_flywheel import adapter
from tests.test_train_dialog import small_base  # noqa: F401  (the fixture: a tiny real Llama)
from workspace.config import Config, Policy, config_to_toml

pytestmark = pytest.mark.timeout(600)
REPO = Path(__file__).resolve().parent.parent


def test_the_rate_comes_from_earlier_runs_on_the_same_base(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    base = tmp_path / "base.gguf"
    base.write_bytes(b"a base")
    assert training_rate(db, base_path=str(base), base_sha256=None) is None
    assert "no earlier training run of this base" in expected_line("training run", 4000, None, "of this base")
    record = adapter(db, tmp_path, base)  # trained_tokens=1 in train_seconds=1.0
    assert training_rate(db, base_path="/elsewhere", base_sha256=record.base_sha256) == 1.0
    assert training_rate(db, base_path="/elsewhere", base_sha256="0" * 64) is None
    line = expected_line("training run", 600, 2.0, "of this base")
    assert line.startswith("Expected: about 5 min (600 tokens at 2 tok/s")
    assert decode_rate(db, "demo-smollm2") is None
    store_eval(
        db, record.name, {"backend": "demo-smollm2", "server_decode_tok_s": [100.0, 300.0], "table": []}
    )
    assert decode_rate(db, "demo-smollm2") == 200.0
    assert decode_rate(db, "another") is None


def test_ctrl_c_stops_training_and_says_nothing_was_kept(
    isolated_home: Path,
    small_base: Path,  # noqa: F811
) -> None:
    data = isolated_home / "data"
    store_pairs(data / "chambers.sqlite3")
    config = Config(
        file="config.toml",
        policy=Policy(),
        boards=(),
        backends=(make_backend("http://127.0.0.1:9", weights=str(small_base)),),
    )
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text(config_to_toml(config), encoding="utf-8")
    env = {**os.environ, "CHAMBERS_HOME": str(isolated_home), "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tui.cli.main",
            "train",
            "--role",
            "drafter",
            "--name",
            "long",
            "--epochs",
            "500",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert child.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline:
        line = child.stdout.readline()
        seen.append(line)
        if line.startswith("step ") or not line:
            break
    assert any(s.startswith("Training on 9 pairs") and "Expected: " in s for s in seen), seen
    child.send_signal(signal.SIGINT)
    _out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "Stopped (Ctrl+C): adapter 'long' was not kept" in err
    assert "Traceback" not in err
    adapters = data / "adapters"
    assert not adapters.exists() or not any(adapters.iterdir()), list(adapters.iterdir())
