"""Server polling and ``chambers doctor`` against the real llama-server (Ollama via the stand-in)."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import pytest

from backends.adapters import LlamaCppServer
from backends.chat import ChatClient, ChatRequest
from backends.fleet.servers import ServerPoller, is_slow
from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess
from tests.conftest import make_backend
from tests.support.fakes import closed_port, fake_server
from tests.test_ollama import ollama_routes
from tui.cli.main import main
from workspace.config import Backend, Config, Policy, config_to_toml


async def test_llama_server_poll_reads_props_slots_and_metrics(llama_backend: Backend) -> None:
    poller = ServerPoller(llama_backend, Policy())
    first = await poller.poll()
    assert first.health == "ok" and first.address_class == "loopback"
    assert first.model == "smollm2-135m-instruct" and (first.n_ctx or 0) > 0 and first.build
    assert first.slots_total == 2 and first.slots_busy == 0
    assert first.requests_processing == 0 and first.requests_deferred == 0
    assert first.decode_tok_s is None  # a rate needs two polls with work in between
    async with ChatClient(llama_backend, Policy(), None) as client:
        await client.complete(
            ChatRequest(messages=[{"role": "user", "content": "List two duties of a tenant."}])
        )
    second = await poller.poll()
    assert second.decode_tok_s is not None and second.decode_tok_s > 0
    assert second.prompt_tok_s is not None and second.prompt_tok_s > 0
    assert (second.decode_avg_tok_s or 0) > 0


def test_slow_decode_is_flagged_against_the_floor(llama_backend: Backend) -> None:
    from backends.fleet.servers import ServerSample

    sample = ServerSample("x", "llamacpp", "ok", decode_avg_tok_s=25.0)
    assert is_slow(sample, 40.0) and not is_slow(sample, 20.0)
    assert not is_slow(sample, 40.0, bench_tg=82.0)  # a benchmark outranks the lifetime average
    assert not is_slow(ServerSample("x", "llamacpp", "ok"), 40.0)  # nothing measured: no flag


async def test_health_follows_start_stop_and_restart(llama_server_binary: Path, demo_model: Path) -> None:
    server = LlamaServerProcess(llama_server_binary, demo_model, extra_args=TEST_SERVER_ARGS)
    poller = ServerPoller(make_backend(server.url, name="restarting"), Policy())
    assert (await poller.poll()).health == "down"
    server.start()
    try:
        assert (await poller.poll()).health == "ok"
        server.stop()
        down = await poller.poll()
        assert down.health == "down" and "connection refused" in (down.problem or "")
        server.start()
        back = await poller.poll()
        assert back.health == "ok" and back.model == "smollm2-135m-instruct"
    finally:
        server.stop()


async def test_ollama_poll_lists_loaded_and_available_models() -> None:
    with fake_server(ollama_routes([])) as url:
        backend = make_backend(url, name="extractor", kind="ollama", model="gemma4:26b")
        sample = await ServerPoller(backend, Policy()).poll()
    assert sample.health == "ok" and sample.n_ctx == 32768
    assert [m.name for m in sample.loaded] == ["gemma4:26b"] and sample.loaded[0].size_vram
    assert sample.available == ("gemma4:26b",)


def write_config(home: Path, *backends: Backend, recorded: bool = True) -> None:
    from backends.fleet.recorded_source import MISSION_CHASSIS1
    from tests.test_fleet_lint import MISSION_BOARDS
    from workspace.config import TelemetrySourceConfig

    telemetry = (
        (TelemetrySourceConfig("recorded", "chassis1", path=str(MISSION_CHASSIS1)),) if recorded else ()
    )
    config = Config(
        file=str(home / "config.toml"),
        policy=Policy(),
        boards=MISSION_BOARDS,
        backends=backends,
        telemetry=telemetry,
    )
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(config_to_toml(config))


def test_doctor_passes_against_the_real_server(
    llama_backend: Backend, demo_model: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, make_backend(llama_backend.url, name="workhorse", board="board-a"))
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    # The model column is the file the server loaded, whole (not its alias, not a cut-off folder).
    assert "workhorse" in out and f" {demo_model.name} " in out and "loopback" in out
    assert re.search(r"chassis1 +recorded +12 GPUs", out)
    assert "board pair-23: mixes memory sizes" in out
    # the mixed pair, the recording's six health warnings (GPU 5 and 8's lost NVLink lane, GPU 10's heat)
    # and the test server, started without an API key; the servers sit inside their boards
    assert "0 errors, 8 warnings." in out
    assert "backend workhorse: answers" in out and "without an API key" in out
    assert (
        "GPU 5 on chassis1: NVLink degraded: link 3 down (5 of 6 active) (on board board-a; server workhorse"
        in out
    )


def test_doctor_json_and_exit_code_on_errors(
    llama_backend: Backend, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asleep = make_backend(f"http://127.0.0.1:{closed_port()}", name="asleep", board="board-a")
    write_config(isolated_home, asleep, recorded=False)
    assert main(["doctor", "--json"]) == 3  # a backend is down
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["errors"] >= 1
    (backend,) = report["backends"]
    assert backend["name"] == "asleep" and backend["health"] == "down" and backend["reachable"] is False
    assert backend["address_class"] == "loopback"
    assert any(f["level"] == "error" and f["subject"] == "backend asleep" for f in report["findings"])
    localhost = report["hosts"][0]
    assert localhost["host"] == "localhost" and localhost["source"] == "nvml"


async def test_native_metrics_names_survive_the_parser(llama_backend: Backend) -> None:
    metrics = await LlamaCppServer(llama_backend, Policy()).metrics()
    for name in (
        "llamacpp:tokens_predicted_total",
        "llamacpp:tokens_predicted_seconds_total",
        "llamacpp:requests_processing",
        "llamacpp:requests_deferred",
    ):
        assert name in metrics


async def test_a_down_server_is_asked_less_often() -> None:
    poller = ServerPoller(make_backend(f"http://127.0.0.1:{closed_port()}", name="asleep"), Policy())
    asked = 0
    for _ in range(12):
        if poller.due():
            asked += 1
            assert (await poller.poll()).health == "down"
    assert 2 <= asked <= 5  # ticks 1, 3, 6, 10: backing off to every fifth tick


async def test_decode_speed_is_live_while_a_slot_answers(llama_backend: Backend) -> None:
    """llama-server's counters move only when a request ends; /slots n_decoded moves as it answers."""
    import asyncio

    from backends.chat import ChatClient, ChatRequest
    from workspace.config import Sampling

    poller = ServerPoller(llama_backend, Policy())
    request = ChatRequest(
        messages=[{"role": "user", "content": "Write a long lease."}],
        sampling=Sampling(max_tokens=600),
        extra={"ignore_eos": True},
    )
    client = ChatClient(llama_backend, Policy(), None)
    task = asyncio.create_task(client.complete(request))
    try:
        busy = None
        for _ in range(100):
            sample = await poller.poll()
            if sample.slots_busy and sample.decode_tok_s:
                busy = sample
                break
            await asyncio.sleep(0.2)
        assert busy is not None, "no live decode rate while the slot was answering"
        assert busy.slots_busy == 1 and busy.decode_tok_s > 0  # type: ignore[operator]
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        await client.aclose()
