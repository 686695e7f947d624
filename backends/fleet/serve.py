"""``chambers serve PROFILE``: one llama-server in the foreground, from its launch profile.

The server's own output is passed through line by line (and kept in a log
file), its health is announced once it answers, and Ctrl+C or SIGTERM stop it
cleanly: SIGTERM to the server, then SIGKILL if it has not gone within the
grace period. chambers is not a supervisor; ``serve --unit`` hands that job
to systemd.

Before anything starts, a profile whose GPUs would cross a board's NVLink
group is refused: two boards, GPUs of different models or memory sizes (a
mixed pair), or GPUs the host's NVLink topology puts in different groups.
``--allow-split`` with a reason overrides it, and the reason is printed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import IO

import httpx

from backends.endpoint import Endpoint, sync_client
from backends.fleet.profiles import LaunchProfile, command, environment
from backends.fleet.serve_policy import check_listen_host, serve_environment
from backends.fleet.telemetry import HostTelemetry
from backends.lora import refused_file
from backends.lora_base import TrainedOn
from workspace.config import Policy
from workspace.errors import ChambersError

STOP_GRACE_S = 10.0


class SplitRefused(ChambersError):
    title = "This profile splits a model across boards"


class ServeFailed(ChambersError):
    title = "The server did not come up"


def split_problems(profile: LaunchProfile, telemetry: HostTelemetry | None) -> list[str]:
    """Why ``profile`` would run one model across more than one NVLink board (empty: it does not)."""
    problems = []
    if len(profile.boards) > 1:
        problems.append(f"it spans {len(profile.boards)} boards ({', '.join(profile.boards)})")
    if telemetry is None or not telemetry.ok:
        return problems
    samples = [g for g in (telemetry.gpu(i) for i in profile.gpus) if g is not None]
    kinds = {(g.name, round(g.memory_total_mib / 1024)) for g in samples}
    if len(kinds) > 1:
        words = ", ".join(f"GPU {g.index} {g.name} {g.memory_total_mib / 1024:.0f} GB" for g in samples)
        problems.append(f"its GPUs are a mixed set ({words})")
    if telemetry.topology is not None and len(profile.gpus) > 1:
        groups = telemetry.topology.nvlink_groups(profile.gpus)
        if len(groups) > 1:
            words = " and ".join("{" + ", ".join(map(str, sorted(g))) + "}" for g in groups)
            problems.append(f"its GPUs are in {len(groups)} NVLink groups ({words}), joined only by PCIe")
    return problems


def check_split(
    profile: LaunchProfile, telemetry: HostTelemetry | None, allow_reason: str | None
) -> str | None:
    """Raise ``SplitRefused`` unless the profile stays on one board or a reason allows it.

    Returns the line to print when a split is allowed."""
    problems = split_problems(profile, telemetry)
    if not problems:
        return None
    if allow_reason is None or not allow_reason.strip():
        raise SplitRefused(
            f"Profile '{profile.name}': {'; '.join(problems)}. A model split this way moves its activations "
            "over PCIe on every token. Put it on one board, or pass --allow-split 'REASON' to start it anyway."
        )
    return f"Split allowed for '{profile.name}' ({'; '.join(problems)}): {allow_reason.strip()}"


def check_model_file(profile: LaunchProfile) -> None:
    """A missing model file is said before a server is started (and fails minutes later, deep in its log)."""
    if not Path(profile.model).is_file():
        raise ServeFailed(
            f"Profile '{profile.name}' names the model {profile.model}, which is not a file here. "
            "Fix its `model` in the config (a path relative to the config file's folder also works)."
        )


def server_environment(profile: LaunchProfile) -> dict[str, str]:
    return {**serve_environment(), **environment(profile)}


class ForegroundServer:
    """Runs one profile's llama-server until it exits or is told to stop."""

    def __init__(
        self,
        profile: LaunchProfile,
        binary: Path,
        log_file: Path,
        echo: IO[str] | None = None,
        *,
        policy: Policy | None = None,
        trained_on: Mapping[str, TrainedOn] | None = None,
    ) -> None:
        """``trained_on``: the registry's base of each adapter, by the adapter's file, to name the base
        when the server refuses one."""
        self.profile = profile
        self.trained_on = dict(trained_on or {})
        self._pump_thread: threading.Thread | None = None
        self.policy = policy or Policy()
        self.cmd = command(profile, binary)
        self.log_file = log_file
        self.echo = echo if echo is not None else sys.stdout
        self.process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._stopped_by: int | None = None  # the signal that asked chambers to stop

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.profile.listen_host in ("0.0.0.0", "::") else self.profile.listen_host
        return f"http://{host}:{self.profile.port}"

    def _pump(self, out: IO[bytes], log: IO[bytes]) -> None:
        for raw in iter(out.readline, b""):
            log.write(raw)
            log.flush()
            self.echo.write(raw.decode("utf-8", errors="replace"))
            self.echo.flush()

    def run(self, healthy_within_s: float = 300.0, on_healthy: Callable[[str], None] | None = None) -> int:
        """Start, announce health, wait; returns the server's exit status (0 after a clean stop).

        Raises:
            PolicyRefusal: the profile's listen_host is not allowed; nothing is started.
        """
        p = self.profile
        check_listen_host(p.name, p.listen_host, p.port, self.policy)
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            with open(self.log_file, "ab") as log:
                self.process = subprocess.Popen(
                    self.cmd,
                    env=server_environment(self.profile),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    # Its own process group: the terminal's Ctrl+C reaches chambers alone, which then
                    # sends the server exactly one SIGINT. A second one (the terminal's, then ours)
                    # makes llama-server abandon its shutdown ("terminating immediately").
                    start_new_session=True,
                )
                assert self.process.stdout is not None
                pump = threading.Thread(target=self._pump, args=(self.process.stdout, log), daemon=True)
                self._pump_thread = pump
                pump.start()
                self._wait_healthy(healthy_within_s, on_healthy)
                while self.process.poll() is None and not self._stopping.is_set():
                    self._stopping.wait(0.2)
                code = self._stop()
                pump.join(timeout=5)
                return code
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stopped_by = signum
        self._stopping.set()

    def _wait_healthy(self, within_s: float, on_healthy: Callable[[str], None] | None) -> None:
        assert self.process is not None
        deadline = time.monotonic() + within_s
        # The policy judged the listen address before the server started; /health is asked there.
        own = Endpoint(f"profile '{self.profile.name}'", self.url, self.policy, what="launch profile").check()
        with sync_client(2.0) as client:
            while time.monotonic() < deadline and not self._stopping.is_set():
                if self.process.poll() is not None:
                    raise ServeFailed(
                        f"llama-server for profile '{self.profile.name}' exited with code "
                        f"{self.process.returncode} while starting{self._why()}; its output is above and in "
                        f"{self.log_file}."
                    )
                try:
                    if client.get(self.url + "/health", extensions=own.extensions()).status_code == 200:
                        if on_healthy is not None:
                            on_healthy(self.url)
                        return
                except httpx.HTTPError:
                    pass  # not listening yet
                time.sleep(0.2)
        if not self._stopping.is_set():
            self._stop()
            raise ServeFailed(
                f"llama-server for profile '{self.profile.name}' did not answer /health at {self.url} within "
                f"{within_s:.0f} s; it was stopped. Its output is in {self.log_file}."
            )

    def _why(self) -> str:
        """What the log says stopped the start, where chambers can say it better: a refused adapter."""
        if self._pump_thread is not None:
            self._pump_thread.join(timeout=5)  # the log's last lines are written by the pump
        try:
            with open(self.log_file, "rb") as fh:
                fh.seek(max(0, fh.seek(0, os.SEEK_END) - 64_000))
                tail = fh.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        file = refused_file(tail)
        if file is None:
            return ""
        name = Path(file).stem
        trained = self.trained_on.get(str(Path(file).resolve())) or self.trained_on.get(file)
        if trained is None:
            return f": it refused the LoRA adapter {file}, whose tensors do not fit the model {self.profile.model}"
        return (
            f": adapter {name} was trained on {trained.base_path}, not on the served {self.profile.model} "
            "(its tensors do not fit this model); serve it over its base, or train one on this model"
        )

    def _stop(self) -> int:
        """One SIGINT (llama-server's own clean shutdown), SIGTERM after the grace period, then SIGKILL.

        Returns 130 when the attorney's Ctrl+C stopped it (the shell's code for SIGINT), 0 when another
        stop request (SIGTERM, a service manager) did and it went, else the server's own exit status.
        """
        assert self.process is not None
        asked = self._stopping.is_set()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            if self.process.poll() is not None:
                break
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                continue
        code = self.process.returncode
        if not asked or code not in (0, -signal.SIGINT, -signal.SIGTERM, 128 + signal.SIGINT):
            return code
        return 128 + signal.SIGINT if self._stopped_by == signal.SIGINT else 0


def binary_for(
    profile: LaunchProfile, *, build: bool, progress: Callable[[str], None] | None = None
) -> Path | None:
    """The llama-server a profile runs: its own ``binary``, else chambers's (built if ``build``)."""
    from backends.local_server import SERVER_ENV, ensure_llama_server, server_cache_dir

    if profile.binary:
        return Path(profile.binary).expanduser()
    if build:
        return ensure_llama_server(progress)
    if os.environ.get(SERVER_ENV):
        return Path(os.environ[SERVER_ENV]).expanduser()
    cached = server_cache_dir() / "llama-server"
    return cached if cached.is_file() else None
