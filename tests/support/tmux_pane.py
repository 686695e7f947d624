"""A terminal for tests that drive the real ``chambers`` binary by keys: a tmux session on a private socket.

The session is as big as the attorney's smallest terminal (80x24 unless told), so what a test reads from
``capture-pane`` is what he would see. Every wait has a deadline; a wait that runs out raises with the
pane as it was then, so a failure shows the screen that did not come. The server (and with it every
program started in it) goes when the test closes the pane.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

Expected = str | re.Pattern[str]


class TmuxPane:
    """One tmux server on socket ``socket`` (``tmux -L``), with a session named ``session`` in it."""

    def __init__(self, socket: str, *, session: str = "t", width: int = 80, height: int = 24) -> None:
        self.socket, self.session, self.width, self.height = socket, session, width, height
        self.target = f"{session}:0"
        self.socket_file = ""

    def tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)

    def start(self, command: str, *, env: Mapping[str, str], cwd: Path) -> None:
        """Start ``command`` (a shell line) with exactly ``env`` in the session's first window."""
        self.tmux("kill-server")  # a server left on this socket by an earlier, killed run
        args = ["-x", str(self.width), "-y", str(self.height), "-c", str(cwd)]
        done = self.tmux("new-session", "-d", "-s", self.session, *args, shell(command, env))
        if done.returncode != 0:
            raise AssertionError(f"tmux did not start: {done.stderr.strip()}")
        # Windows opened later keep the session's size, not one of their own.
        self.tmux("set-option", "-t", self.session, "window-size", "manual")
        self.socket_file = self.tmux("display-message", "-p", "#{socket_path}").stdout.strip()

    def new_window(self, command: str, *, env: Mapping[str, str], cwd: Path) -> str:
        """A second window (a second terminal beside the first) running ``command``; its target."""
        where = ["-t", self.session, "-c", str(cwd)]
        done = self.tmux(
            "new-window", "-P", "-F", "#{session_name}:#{window_index}", *where, shell(command, env)
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux opened no window: {done.stderr.strip()}")
        return done.stdout.strip()

    def show(self, target: str) -> None:
        self.tmux("select-window", "-t", target)
        self.target = target

    def keys(self, *keys: str) -> None:
        """Press keys by tmux's names (``F5``, ``C-g``, ``Escape``, ``Enter``), one after another."""
        for key in keys:
            self.tmux("send-keys", "-t", self.target, key)

    def write(self, text: str) -> None:
        """Type ``text`` literally, as he would on the keyboard."""
        self.tmux("send-keys", "-t", self.target, "-l", text)

    def capture(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.target).stdout

    def wait_for(self, expected: Expected, seconds: float, *, step: float = 0.5) -> str:
        """The pane once it shows ``expected`` (text, or a compiled pattern); raises with the pane when
        it has not by the deadline, or when the program in the pane has ended."""
        pane = ""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pane = self.capture()
            if (expected in pane) if isinstance(expected, str) else expected.search(pane):
                return pane
            if self.session not in self.tmux("list-sessions", "-F", "#{session_name}").stdout:
                raise AssertionError(f"the tmux session ended while waiting for {expected!r}")
            time.sleep(step)
        raise AssertionError(f"{expected!r} did not appear in {seconds:.0f} s; the pane:\n{framed(pane)}")

    def close(self) -> None:
        self.tmux("kill-server")
        if self.socket_file:  # the server leaves its socket behind in the shared tmux folder
            Path(self.socket_file).unlink(missing_ok=True)

    def __enter__(self) -> TmuxPane:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def shell(command: str, env: Mapping[str, str]) -> str:
    """``command`` with exactly ``env``: nothing of the test process's own environment leaks in."""
    return " ".join(["env", "-i", *(shlex.quote(f"{k}={v}") for k, v in env.items()), command])


def framed(pane: str) -> str:
    """The pane between rules, its trailing blank lines dropped, for a failure message or a log."""
    rule = "-" * 80
    return f"{rule}\n{pane.rstrip()}\n{rule}"
