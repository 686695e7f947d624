"""Failures a real llama-server cannot be made to show on demand, via loopback doubles.

See tests/support/fakes.py for what each double replaces and where its bodies come from.
A port that answers with HTML is not a double at all: it is a real web server
that is not a model server, which is exactly the mistake being tested.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from backends.chat import ChatClient, ChatRequest
from backends.errors import (
    MalformedStream,
    ModelLoading,
    NotAModelServer,
    ServerHTTPError,
    ServerTimeout,
)
from backends.events import ContentDelta
from tests.conftest import make_backend
from tests.support.fakes import chunk, fake_server, send_json, send_sse, silent_server
from workspace.config import Policy

ASK = ChatRequest([{"role": "user", "content": "Draft a caption."}])
CHAT = ("POST", "/v1/chat/completions")


async def collect(url: str, *, timeout: httpx.Timeout | None = None) -> list[str]:
    async with ChatClient(
        make_backend(url, name="fake"), Policy(), None, timeout=timeout or httpx.Timeout(5.0)
    ) as client:
        return [e.text async for e in client.stream(ASK) if isinstance(e, ContentDelta)]


async def test_model_loading_503() -> None:
    def loading(h: BaseHTTPRequestHandler) -> None:
        send_json(
            h,
            503,
            {"error": {"message": "Loading model", "type": "unavailable_error", "code": 503}},
        )

    with fake_server({CHAT: loading}) as url, pytest.raises(ModelLoading) as info:
        await collect(url)
    assert info.value.status == 503 and "still loading" in info.value.message


async def test_http_error_carries_the_servers_message() -> None:
    body = {
        "error": {
            "code": 400,
            "type": "exceed_context_size_error",
            "message": "request (17993 tokens) exceeds the available context size (16384 tokens)",
        }
    }

    with (
        fake_server({CHAT: lambda h: send_json(h, 400, body)}) as url,
        pytest.raises(ServerHTTPError) as info,
    ):
        await collect(url)
    assert info.value.error_type == "exceed_context_size_error"
    assert "exceeds the available context size" in info.value.message


async def test_html_port_is_not_a_model_server() -> None:
    def html(h: BaseHTTPRequestHandler) -> None:
        page = b"<html><body><h1>404 Not Found</h1></body></html>"
        h.send_response(404)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(len(page)))
        h.end_headers()
        h.wfile.write(page)

    with fake_server({CHAT: html}) as url, pytest.raises(NotAModelServer) as info:
        await collect(url)
    assert "text/html" in info.value.message and "llama-server or Ollama" in info.value.message


async def test_plain_json_200_is_not_a_stream() -> None:
    with (
        fake_server({CHAT: lambda h: send_json(h, 200, {"hello": "world"})}) as url,
        pytest.raises(NotAModelServer),
    ):
        await collect(url)


async def test_malformed_sse_keeps_partial_text() -> None:
    events = [chunk("The tenant "), chunk("shall "), "data: {not json\n\n"]
    with (
        fake_server({CHAT: lambda h: send_sse(h, events)}) as url,
        pytest.raises(MalformedStream) as info,
    ):
        await collect(url)
    assert info.value.partial == "The tenant shall " and info.value.incomplete


async def test_error_event_after_200_keeps_partial_text() -> None:
    err = 'data: {"error": {"code": 500, "message": "slot crashed", "type": "server_error"}}\n\n'
    events = [chunk("Dear "), err, "data: [DONE]\n\n"]
    with (
        fake_server({CHAT: lambda h: send_sse(h, events)}) as url,
        pytest.raises(ServerHTTPError) as info,
    ):
        await collect(url)
    assert "slot crashed" in info.value.message and info.value.partial == "Dear "


async def test_pings_and_empty_events_are_ignored() -> None:
    events = [": ping\n\n", chunk("Yes."), ":\n\n", chunk(None, "stop"), "data: [DONE]\n\n"]
    with fake_server({CHAT: lambda h: send_sse(h, events)}) as url:
        assert await collect(url) == ["Yes."]


async def test_stream_closed_without_finish_is_broken() -> None:
    from backends.errors import StreamBroken

    with (
        fake_server({CHAT: lambda h: send_sse(h, [chunk("Half a")])}) as url,
        pytest.raises(StreamBroken) as info,
    ):
        await collect(url)
    assert info.value.partial == "Half a"


async def test_silent_server_times_out() -> None:
    with silent_server() as url, pytest.raises(ServerTimeout) as info:
        await collect(url, timeout=httpx.Timeout(5.0, read=0.5))
    assert "went silent" in info.value.message
