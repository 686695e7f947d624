"""The server adapters: one interface, capability flags instead of ``kind ==`` checks.

llama-server is the real one (the session's test server); Ollama is the loopback stand-in
of tests/test_ollama.py, since Ollama does not run on these machines.
"""

from __future__ import annotations

import json

import pytest

from backends.adapters import ADAPTERS, LlamaCppServer, OllamaServer, adapter_for
from backends.chat import ChatClient, ChatRequest
from backends.errors import PolicyRefusal
from backends.local_server import LlamaServerProcess
from tests.conftest import make_backend
from tests.support.fakes import fake_server
from tests.test_ollama import ollama_routes
from workspace.config import KINDS, Backend, Policy


def test_every_kind_the_config_accepts_has_an_adapter() -> None:
    assert set(ADAPTERS) == set(KINDS)


async def test_llama_server_says_who_it_is_and_counts_tokens(llama_server: LlamaServerProcess) -> None:
    server = adapter_for(make_backend(llama_server.url), Policy())
    assert isinstance(server, LlamaCppServer) and server.COUNTS_TOKENS and server.REPORTS_PROMPT_PROGRESS
    who = await server.identity()
    assert who.n_ctx and who.n_ctx > 0 and who.build and who.model
    assert await server.count_tokens("The tenant paid the rent late.") > 3


async def test_ollama_says_who_it_is_and_cannot_count() -> None:
    seen: list[bytes] = []
    with fake_server(ollama_routes(seen)) as url:
        backend = make_backend(url, name="extractor", kind="ollama", model="gemma4:26b")
        server = adapter_for(backend, Policy())
        assert isinstance(server, OllamaServer) and not server.COUNTS_TOKENS
        who = await server.identity()
        with pytest.raises(NotImplementedError):
            await server.count_tokens("x")
        # The chat client asks the adapter, not the kind: Ollama gets no llama.cpp-only field.
        request = ChatRequest([{"role": "user", "content": "Summarise."}], return_progress=True)
        async with ChatClient(backend, Policy(), None) as client:
            finished = await client.complete(request)
    assert (who.model, who.n_ctx) == ("gemma4:26b", 32768)
    assert "return_progress" not in json.loads(seen[0]) and finished.text
    assert ChatClient(make_backend(url), Policy(), None).build_body(request)["return_progress"] is True


def test_builds_are_read_from_each_kinds_own_answer() -> None:
    assert LlamaCppServer.build_from({"build_info": "b7000-abc"}) == "b7000-abc"
    assert OllamaServer.build_from({"version": "0.33.0"}) == "0.33.0"
    assert LlamaCppServer.build_from(["not", "a", "dict"]) is None and OllamaServer.build_from({}) is None


async def test_adapters_go_through_the_policy() -> None:
    backend = Backend(name="cloud", kind="ollama", url="http://8.8.8.8:11434", model="m")
    with pytest.raises(PolicyRefusal, match="cloud"):
        await adapter_for(backend, Policy()).identity()
