"""Ollama through a loopback stand-in: Ollama itself does not run on these machines.

The stand-in answers with the shapes documented in Ollama's docs/api.md
(v0.33.0-rc2): /api/version, /api/tags,
/api/ps, and the OpenAI-compatible /v1/chat/completions stream.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

from backends.adapters import OllamaServer
from backends.chat import ChatClient, ChatRequest
from backends.status import probe_backend
from tests.conftest import make_backend
from tests.support.fakes import chunk, fake_server, send_json, send_sse
from workspace.config import Policy

TAGS = {
    "models": [
        {
            "name": "gemma4:26b",
            "model": "gemma4:26b",
            "size": 17000000000,
            "digest": "abc",
            "details": {"family": "gemma", "parameter_size": "26B", "quantization_level": "Q4_K_M"},
        }
    ]
}
PS = {
    "models": [
        {
            "name": "gemma4:26b",
            "model": "gemma4:26b",
            "size": 19000000000,
            "digest": "abc",
            "size_vram": 19000000000,
            "context_length": 32768,
            "expires_at": "2026-11-30T03:00:00Z",
        }
    ]
}


def ollama_routes(seen: list[bytes]) -> dict:
    def chat(h: BaseHTTPRequestHandler) -> None:
        seen.append(h.body)  # type: ignore[attr-defined]
        send_sse(h, [chunk("Summary: "), chunk("rent is due."), chunk(None, "stop"), "data: [DONE]\n\n"])

    return {
        ("GET", "/api/version"): lambda h: send_json(h, 200, {"version": "0.33.0"}),
        ("GET", "/api/tags"): lambda h: send_json(h, 200, TAGS),
        ("GET", "/api/ps"): lambda h: send_json(h, 200, PS),
        ("POST", "/v1/chat/completions"): chat,
    }


async def test_ollama_native_calls_and_status() -> None:
    with fake_server(ollama_routes([])) as url:
        backend = make_backend(url, name="extractor", kind="ollama", model="gemma4:26b")
        native = OllamaServer(backend, Policy())
        assert await native.version() == "0.33.0"
        (tag,) = await native.tags()
        assert tag.name == "gemma4:26b" and tag.size == 17000000000
        (loaded,) = await native.ps()
        assert loaded.size_vram == 19000000000 and loaded.context_length == 32768
        status = await probe_backend(backend, Policy())
    assert status.ok and status.model == "gemma4:26b" and status.n_ctx == 32768
    assert status.build == "ollama 0.33.0"


async def test_ollama_chat_sends_the_model_name() -> None:
    seen: list[bytes] = []
    with fake_server(ollama_routes(seen)) as url:
        backend = make_backend(url, name="extractor", kind="ollama", model="gemma4:26b")
        async with ChatClient(backend, Policy(), None) as client:
            finished = await client.complete(ChatRequest([{"role": "user", "content": "Summarise."}]))
    assert finished.text == "Summary: rent is due." and finished.finish_reason == "stop"
    assert b'"model": "gemma4:26b"' in seen[0] or b'"model":"gemma4:26b"' in seen[0]
    assert b"return_progress" not in seen[0]  # a llama.cpp-only field is not sent to Ollama
