"""A kind of server is one class: defined here, nothing outside it changes, and every caller uses it.

The kinds are defined in the test and pointed at the real llama-server. ``PlainOpenAI`` declares only
its name and label, as an OpenAI-compatible server (vLLM) would start out: the defaults of
``ServerAdapter`` are all it has. ``LlamaFork`` is a llama.cpp fork (ik_llama.cpp) that speaks
llama-server's API: it subclasses the llama.cpp adapter and inherits everything. The registry
resolves both, and the poller, the chat client, the benchmark, the batch planner, the doctor's key
check and the launch profiles use them without a line of their own changing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from backends.adapter_base import KNOWN, ServerAdapter
from backends.adapters import ADAPTERS, LlamaCppServer, adapter_class, adapter_for
from backends.chat import ChatClient, ChatRequest
from backends.fleet.bench import Bench, BenchSettings
from backends.fleet.key_check import answers_without_key
from backends.fleet.profiles import profiles_from_config
from backends.fleet.servers import ServerPoller
from backends.local_server import LlamaServerProcess
from backends.lora import AdapterMissing
from drafting.batch.servers import busy_slots, look_up
from tests.conftest import make_backend
from workspace.audit import AuditLog
from workspace.config import KINDS, LORA_KINDS, Config, ConfigError, LoraRef, Policy, Sampling
from workspace.errors import ChambersError

ASK = ChatRequest(
    [{"role": "user", "content": "Say yes."}], sampling=Sampling(max_tokens=4), return_progress=True
)


@pytest.fixture
def kinds() -> Iterator[tuple[type[ServerAdapter], type[LlamaCppServer]]]:
    """Both test kinds, registered by being defined, and taken out of the registry afterwards."""

    class PlainOpenAI(ServerAdapter):
        KIND = "plain-openai"
        LABEL = "an OpenAI-compatible server"

    class LlamaFork(LlamaCppServer):
        KIND = "llama-fork"
        LABEL = "a llama.cpp fork"

    try:
        yield PlainOpenAI, LlamaFork
    finally:
        KNOWN.pop(PlainOpenAI.KIND, None)
        KNOWN.pop(LlamaFork.KIND, None)


def test_the_kinds_chambers_ships_are_the_config_s(kinds: object) -> None:
    """The config (read below the backends layer) lists the kinds by name; the registry holds it to them."""
    shipped = {k: c for k, c in ADAPTERS.items() if k not in ("plain-openai", "llama-fork")}
    assert set(shipped) == set(KINDS)
    assert {k for k, c in shipped.items() if c.SERVES_LORA} == set(LORA_KINDS)


async def test_a_plain_openai_kind_is_polled_chatted_benched_and_planned_by_its_defaults(
    kinds: tuple[type[ServerAdapter], type[LlamaCppServer]],
    llama_server: LlamaServerProcess,
    isolated_home: Path,
) -> None:
    plain, _ = kinds
    backend = make_backend(llama_server.url, name="plain", kind=plain.KIND)
    assert adapter_class(plain.KIND) is plain and type(adapter_for(backend, Policy())) is plain

    sample = await ServerPoller(backend, Policy()).poll()  # its identity from /v1/models
    assert sample.ok and sample.kind == plain.KIND and sample.model, sample
    assert sample.slots_total is None and sample.decode_tok_s is None  # it offers no slots or counters

    log = AuditLog(isolated_home / "audit.sqlite3")
    async with ChatClient(backend, Policy(), log) as client:
        body = client.build_body(ASK)
        finished = await client.complete(ASK, role="drafter")
    assert "return_progress" not in body and "lora" not in body  # no llama.cpp-only field
    assert finished.text
    (row,) = log.recent()
    assert row.outcome == "completed" and row.server_build is None  # it names no build endpoint
    assert "lora" not in json.loads(row.request_json)

    settings = BenchSettings(lengths=(64,), warmup=0, runs=1, max_tokens=4)
    (result,) = await Bench(backend, Policy(), None, settings).run()
    assert result.runs and result.runs[0].predicted_n > 0  # the server's own timings
    config = Config(file="test.toml", policy=Policy(), boards=(), backends=(backend,))
    (server,) = (await look_up([backend], config)).values()
    assert server.slots == 1 and "an OpenAI-compatible server does not say" in server.said
    assert await busy_slots(backend, config) is None
    assert await answers_without_key(backend, Policy()) is None  # it takes no key to check

    with pytest.raises(ConfigError, match="a profile starts llama-server"):
        profiles_from_config(_with_profile(config))
    with_lora = make_backend(llama_server.url, name="plain", kind=plain.KIND, lora=(LoraRef("demand-v3"),))
    async with ChatClient(with_lora, Policy(), None) as refused:
        with pytest.raises(AdapterMissing, match="an OpenAI-compatible server serves none"):
            await refused.complete(ASK)  # never drafted on the bare base while the record names an adapter


async def test_a_llama_fork_inherits_everything_llama_server_offers(
    kinds: tuple[type[ServerAdapter], type[LlamaCppServer]], llama_server: LlamaServerProcess
) -> None:
    _, fork = kinds
    backend = make_backend(llama_server.url, name="fork", kind=fork.KIND)
    poller = ServerPoller(backend, Policy())
    first, second = await poller.poll(), await poller.poll()
    assert first.ok and first.kind == fork.KIND and first.build and first.n_ctx
    assert second.slots_total and second.slots_total == len(second.slots)
    async with ChatClient(backend, Policy(), None) as client:
        assert client.build_body(ASK)["return_progress"] is True
        assert (await client.complete(ASK)).text
    config = Config(file="test.toml", policy=Policy(), boards=(), backends=(backend,))
    (server,) = (await look_up([backend], config)).values()
    assert server.slots >= 1 and server.build and "total_slots" in server.said
    assert profiles_from_config(_with_profile(config))[0].backend == "fork"


def test_a_backend_of_a_kind_no_class_defines_is_refused_by_name() -> None:
    with pytest.raises(ChambersError, match="no server adapter for kind 'vllm'"):
        adapter_class("vllm")


def _with_profile(config: Config) -> Config:
    """``config`` with one launch profile for its (only) backend."""
    profile = {"name": "p", "model": "/models/m.gguf", "backend": config.backends[0].name}
    return dataclasses.replace(config, profiles=(profile,))
