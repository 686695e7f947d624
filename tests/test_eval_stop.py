"""An eval stopped with Ctrl+C closes the request in flight, so the server stops working on it.

A server left answering an abandoned replay shares its compute with whatever comes next (the next
``bench`` timed out on it). ``chambers eval`` runs as the attorney runs it, through ``main``, but in
this process, so no socket is closed by a process ending: against a real llama-server that loads a
real LoRA GGUF (random weights: what it writes does not matter here), it gets SIGINT, as from Ctrl+C,
while a replay is being answered. Every slot must then be idle within seconds, long before the answer
asked for (thousands of tokens on two cores) could have finished by itself.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from backends.adapters import LlamaCppServer
from backends.errors import BackendError
from backends.fleet.bench import Bench, BenchSettings
from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess
from backends.lora import launch_flags
from corrections.adapters import register
from corrections.capture import capture
from corrections.model import DrafterMessage
from tests.support.lora_files import write_random_lora
from tests.support.train_pairs import pair_input
from tests.test_train_checks import record
from tui.cli.exit_codes import INTERRUPTED
from tui.cli.main import main
from tui.demo import DEMO_BACKEND, DEMO_MODEL, demo_config, demo_config_text
from workspace.config import Backend, Policy
from workspace.digest import file_sha256
from workspace.paths import Paths

pytestmark = pytest.mark.timeout(600)

NAME = "stop-v1"
# An answer a 135M model keeps writing at temperature 0, with a prompt long enough that reading it is
# work of its own: the replay is still in flight when the signal comes, wherever it is.
LONG_ASK = "Count from 1 to 3000, one number per line, and write nothing else. Start now: 1, 2, 3,"
FILLER = " ".join(f"Clause {n}: the seller keeps the freezer at minus twenty degrees." for n in range(120))
IDLE_BOUND_S = 30.0  # generous: the server notices in a second or two and stops after one batch


def busy(backend: Backend) -> int:
    async def count() -> int:
        return sum(1 for s in await LlamaCppServer(backend, Policy()).slots() if s.is_processing)

    return asyncio.run(count())


def held_out_pairs(db: Path) -> list[int]:
    """Three pairs whose exact drafter messages ask for a long answer."""
    ids = []
    for i in range(3):
        base = pair_input(i, backend=DEMO_BACKEND, model=DEMO_MODEL)
        messages = (DrafterMessage("system", FILLER), DrafterMessage("user", LONG_ASK))
        ids.append(capture(db, replace(base, messages=messages)).pair_id)
    return ids


def test_ctrl_c_in_an_eval_frees_every_slot_of_the_server(
    isolated_home: Path,
    tmp_path: Path,
    llama_server_binary: Path,
    demo_model: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = Paths.from_environment()
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    adapter = write_random_lora(tmp_path / f"{NAME}.gguf")
    register(
        paths.database_file,
        replace(
            record(NAME, [], held_out_pairs(paths.database_file)),
            backend=DEMO_BACKEND,
            base_path=str(demo_model),
            base_sha256=file_sha256(demo_model),
            file=str(adapter),
            file_sha256=file_sha256(adapter),
        ),
    )
    server = LlamaServerProcess(
        llama_server_binary,
        demo_model,
        log_file=tmp_path / "server.log",
        extra_args=[*TEST_SERVER_ARGS, *launch_flags([str(adapter)])],
    )
    with server:
        config = demo_config(server.url, str(paths.config_file), weights=str(demo_model))
        paths.config_file.write_text(demo_config_text(config), encoding="utf-8")
        backend = config.backends[0]
        seen: dict[str, bool] = {}

        def interrupt_once_a_replay_is_answered() -> None:
            """SIGINT once a slot is busy, then watch the slots: from here, not from the test after
            ``main`` returns, because an eval that left its request running would return only once the
            server had finished it."""
            deadline = time.monotonic() + 180
            while not busy(backend) and time.monotonic() < deadline and not finished.is_set():
                time.sleep(0.1)
            if finished.is_set() or time.monotonic() >= deadline:
                return
            seen["interrupted"] = True
            # As Ctrl+C in his terminal: a signal to the process, which the kernel hands to its main
            # thread (raise_signal here would interrupt only this thread).
            os.kill(os.getpid(), signal.SIGINT)
            # Waited on as bench waits before timing, at its own pace: llama-server notices a client gone
            # only in a second without any other answer, so a faster poll would itself keep it reading.
            bench = Bench(backend, Policy(), None, BenchSettings(lengths=(100,)))
            try:
                asyncio.run(bench.wait_for_idle(timeout_s=IDLE_BOUND_S))
                seen["idle"] = True
            except BackendError:
                pass

        finished = threading.Event()
        watcher = threading.Thread(target=interrupt_once_a_replay_is_answered, daemon=True)
        watcher.start()
        try:
            code = main(["eval", "--role", "drafter", "--adapter", NAME, "--max-tokens", "3000"])
        finally:
            finished.set()
            watcher.join(timeout=IDLE_BOUND_S + 30)
        said = capsys.readouterr().err
        assert seen.get("interrupted"), f"no replay was seen on the server before the eval ended:\n{said}"
        # This process is alive and holds its sockets: only the eval's own close can have told the
        # server, which stops a streamed request's task once its client is gone.
        assert seen.get("idle"), "the server was still answering the abandoned replay"
        assert code == INTERRUPTED
        assert "Stopped (Ctrl+C) after 0 of 6 replays" in said, said
