"""Smoke test: the real ``chambers`` binary in tmux, driven by keys, read from the pane."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent / "chambers"
CONFIG = """
[[backends]]
name = "workhorse"
kind = "llamacpp"
url = "http://127.0.0.1:9"
roles = ["drafter"]
"""


def tmux(socket: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=20).stdout


def wait_for(socket: str, text: str, seconds: float = 30.0) -> str:
    pane = ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pane = tmux(socket, "capture-pane", "-p", "-t", "smoke")
        if text in pane:
            return pane
        time.sleep(0.25)
    raise AssertionError(f"{text!r} never appeared; the pane:\n{pane}")


@pytest.mark.skipif(
    shutil.which("tmux") is None or not BIN.exists(), reason="needs tmux and the installed binary"
)
def test_the_binary_opens_the_drafting_screen_on_f4_and_quits_on_ctrl_q(isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text(CONFIG)
    socket = f"chambers-smoke-{isolated_home.parent.name}"
    command = f"env CHAMBERS_HOME={isolated_home} TEXTUAL_DISABLE_KITTY_KEY=1 TERM=xterm-256color {BIN}"
    tmux(socket, "new-session", "-d", "-s", "smoke", "-x", "100", "-y", "30", command)
    try:
        wait_for(socket, "Backends")
        tmux(socket, "send-keys", "-t", "smoke", "F4")
        pane = wait_for(socket, "Instructions")
        assert "Drafting" in pane and "Draft" in pane
        tmux(socket, "send-keys", "-t", "smoke", "C-q")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and "smoke" in tmux(socket, "list-sessions"):
            time.sleep(0.25)
        assert "smoke" not in tmux(socket, "list-sessions")
    finally:
        tmux(socket, "kill-server")
