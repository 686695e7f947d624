"""A benchmark stopped by SIGTERM stops its llama-server too, as one stopped by Ctrl-C does: while the
server serves, and while it is still starting (its context manager not yet entered)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# A benchmark's shape: the handler installed first, then a real llama-server held by its context
# manager. "starting" holds the server in its start a while (as a large model's load would), so the
# signal comes before the context manager is entered.
BENCHMARK = """
import sys, time
from pathlib import Path
from backends.local_server import LlamaServerProcess
from benchmarks.common import stop_on_sigterm

class Starting(LlamaServerProcess):
    def wait_healthy(self, timeout):
        print(self.process.pid, flush=True)
        time.sleep(600)

stop_on_sigterm()
kind = Starting if sys.argv[4] == "starting" else LlamaServerProcess
with kind(Path(sys.argv[1]), Path(sys.argv[2]), log_file=Path(sys.argv[3])) as server:
    print(server.process.pid, flush=True)
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("when", ["serving", "starting"])
def test_sigterm_ends_the_benchmark_and_stops_its_llama_server(
    llama_server_binary: Path, demo_model: Path, tmp_path: Path, when: str
) -> None:
    argv = [str(llama_server_binary), str(demo_model), str(tmp_path / "log"), when]
    bench = subprocess.Popen(
        [sys.executable, "-c", BENCHMARK, *argv],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    server_pid = 0
    try:
        assert bench.stdout is not None
        server_pid = int(bench.stdout.readline())
        assert _alive(server_pid)
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(timeout=60) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 10
        while _alive(server_pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(server_pid), "the benchmark's llama-server outlived it"
    finally:
        bench.kill()
        if server_pid and _alive(server_pid):
            os.kill(server_pid, signal.SIGKILL)
