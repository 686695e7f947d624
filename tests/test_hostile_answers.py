"""A hostile server's answers end in a clear error, within bounded memory.

The server is tests/support/hostile_server.py on loopback: real sockets and HTTP, with bodies no real
llama-server sends (see its docstring for why a double). Memory is measured with tracemalloc,
which sees every buffer Python allocates for the body (httpx's, zlib's and the parser's).
"""

from __future__ import annotations

import tracemalloc
import zlib
from collections.abc import Iterator
from functools import cache
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import pytest

from backends.adapters import LlamaCppServer
from backends.answer_caps import MAX_ANSWER_BYTES, MAX_JSON_DEPTH
from backends.chat import ChatClient, ChatRequest
from backends.endpoint import async_client
from backends.errors import MalformedAnswer, MalformedStream
from backends.fleet.doctor import run_doctor
from backends.sse import MAX_LINE
from tests.conftest import make_backend
from tests.support.hostile_server import Handler, hostile_server, props_json, sse_chunk
from tui.cli.main import main
from workspace.config import Config, Policy, Sampling

MIB = 1024 * 1024
BOMB_INFLATED = 256 * MIB
ASK = ChatRequest([{"role": "user", "content": "Draft a caption."}], sampling=Sampling(max_tokens=50))


def deep_props(h: Handler) -> None:
    h.send_body(200, b"[" * 200_000 + b"]" * 200_000)


@cache
def gzip_bomb() -> bytes:
    """A valid JSON object (one long string) that inflates from about 250 KB to 256 MiB."""
    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = b"0" * MIB
    parts = [z.compress(b'{"build_info":"')] + [z.compress(zeros) for _ in range(BOMB_INFLATED // MIB)]
    return b"".join([*parts, z.compress(b'"}'), z.flush()])


def bomb_props(h: Handler) -> None:
    h.send_body(200, gzip_bomb(), Content_Encoding="gzip")


def big_props(h: Handler) -> None:
    body = b'{"build_info":"' + b"1" * (MAX_ANSWER_BYTES + MIB) + b'"}'
    h.send_body(200, body)


def ok_props(h: Handler) -> None:
    h.send_body(200, props_json())


def one_answer(h: Handler) -> None:
    h.send_pieces(
        200, "text/event-stream", iter([sse_chunk("Caption."), sse_chunk(finish="stop"), b"data: [DONE]\n\n"])
    )


@pytest.fixture
def traced() -> Iterator[None]:
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        yield
    finally:
        tracemalloc.stop()


def peak() -> float:
    return tracemalloc.get_traced_memory()[1] / MIB


async def test_props_nested_200000_deep_is_a_clear_error_in_the_native_client_and_doctor() -> None:
    with hostile_server({("GET", "/props"): deep_props, ("GET", "/health"): ok_props}) as (url, _):
        backend = make_backend(url, name="deep")
        with pytest.raises(MalformedAnswer) as raised:
            await LlamaCppServer(backend, Policy()).props()
        assert f"{url}/props" in raised.value.message
        assert f"more than {MAX_JSON_DEPTH} levels deep" in raised.value.message
        assert "'deep'" in raised.value.message

        config = Config(file="hostile.toml", policy=Policy(), boards=(), backends=(backend,))
        report = await run_doctor(config, [])  # raised RecursionError before the cap
        words = " ".join(f.message for f in report.findings)
        assert f"more than {MAX_JSON_DEPTH} levels deep" in words


async def test_a_draft_goes_on_when_props_is_nested_too_deep() -> None:
    routes = {("GET", "/props"): deep_props, ("POST", "/v1/chat/completions"): one_answer}
    with hostile_server(routes) as (url, _):
        async with ChatClient(make_backend(url, name="deep"), Policy(), None) as client:
            finished = await client.complete(ASK)
    assert finished.text == "Caption." and client.server_build is None


@pytest.mark.usefixtures("traced")
async def test_a_gzip_bomb_is_stopped_at_the_cap_within_bounded_memory() -> None:
    bomb = gzip_bomb()
    assert len(bomb) < MIB  # small on the wire; 256 MiB inflated
    tracemalloc.reset_peak()
    with (
        hostile_server({("GET", "/props"): bomb_props}) as (url, _),
        pytest.raises(MalformedAnswer) as raised,
    ):
        await LlamaCppServer(make_backend(url, name="bomb"), Policy()).props()
    message = raised.value.message
    assert f"{url}/props" in message and "limit of 32 MiB (inflated size)" in message
    assert peak() < 3 * MAX_ANSWER_BYTES / MIB  # the body up to the cap, one copy, one step


@pytest.mark.usefixtures("traced")
async def test_a_plain_answer_over_the_cap_is_stopped_there() -> None:
    with hostile_server({("GET", "/props"): big_props}) as (url, _):
        tracemalloc.reset_peak()
        with pytest.raises(MalformedAnswer) as raised:
            await LlamaCppServer(make_backend(url, name="big"), Policy()).props()
    assert f"{url}/props" in raised.value.message and "limit of 32 MiB (size)" in raised.value.message
    assert peak() < 3 * MAX_ANSWER_BYTES / MIB


@pytest.mark.usefixtures("traced")
async def test_a_50_mb_event_line_is_refused_as_it_grows() -> None:
    def long_line(h: Handler) -> None:
        piece = b"x" * 65536
        h.send_pieces(200, "text/event-stream", chain([b"data: "], repeat(piece, 50 * MIB // len(piece))))

    routes = {("GET", "/props"): ok_props, ("POST", "/v1/chat/completions"): long_line}
    with hostile_server(routes) as (url, seen):
        tracemalloc.reset_peak()
        async with ChatClient(make_backend(url, name="long"), Policy(), None) as client:
            with pytest.raises(MalformedStream) as raised:
                await client.complete(ASK)
    message = raised.value.message
    assert f"{url}/v1/chat/completions" in message and f"longer than {MAX_LINE:,} characters" in message
    assert seen.written < 25 * MIB  # the client stopped reading long before the line's end
    assert peak() < 8 * MAX_LINE / MIB


async def test_a_stream_that_never_ends_is_stopped_at_max_tokens_plus_a_margin() -> None:
    def endless(h: Handler) -> None:  # a server that never ends the answer (it gives up at 100,000)
        h.send_pieces(200, "text/event-stream", (sse_chunk("tok ") for _ in range(100_000)))

    routes = {("GET", "/props"): ok_props, ("POST", "/v1/chat/completions"): endless}
    with hostile_server(routes) as (url, seen):
        async with ChatClient(make_backend(url, name="endless"), Policy(), None) as client:
            with pytest.raises(MalformedStream) as raised:
                await client.complete(ASK)
    assert "token limit (50 tokens, plus a margin of 256 events)" in raised.value.message
    assert raised.value.partial.startswith("tok ") and raised.value.partial.count("tok ") <= 50 + 256
    assert seen.written < 100_000 * len(sse_chunk("tok ")) // 4  # stopped, not read to the server's end


def closes_the_second_request(h: Handler) -> None:
    """A server whose idle timeout closes a kept-alive connection as the next request arrives."""
    if h.nth_on_connection > 1:
        h.drop()
    elif h.path == "/props":
        ok_props(h)
    elif h.path == "/tokenize":
        h.send_body(200, b'{"tokens":[1,2,3]}')
    else:
        one_answer(h)


async def test_an_idempotent_request_on_a_dropped_pooled_connection_is_sent_again_on_a_fresh_one() -> None:
    routes = {("GET", "/props"): closes_the_second_request, ("POST", "/tokenize"): closes_the_second_request}
    with hostile_server(routes) as (url, seen):
        async with async_client() as http:
            native = LlamaCppServer(make_backend(url, name="pool"), Policy(), http=http)
            first, second = await native.props(), await native.props()
            assert first.build == second.build == "b9999-hostile"
            assert seen.connections == [2, 1]  # the second request was dropped, then answered on a new one
            await native.props()  # a new pooled connection (the fresh one was not kept)
            assert await native.count_tokens("a b c") == 3  # a POST that changes nothing is sent again too
    assert seen.connections == [2, 1, 2, 1]


async def test_drafts_do_not_fail_on_a_pooled_connection_the_server_dropped() -> None:
    routes = {
        ("GET", "/props"): closes_the_second_request,
        ("POST", "/v1/chat/completions"): closes_the_second_request,
    }
    with hostile_server(routes) as (url, seen):
        async with ChatClient(make_backend(url, name="pool"), Policy(), None) as client:
            texts = [(await client.complete(ASK)).text for _ in range(14)]
    assert texts == ["Caption."] * 14
    # Each answer on a connection of its own (the client's GETs, /props and /lora-adapters, may share one).
    chats = [
        c for (_, path, _), c in zip(seen.requests, seen.request_connections, strict=True) if "chat" in path
    ]
    assert len(chats) == len(set(chats)) >= 14 and all(seen.connections[c] == 1 for c in chats)


async def test_a_stream_event_or_a_json_answer_nested_200000_deep_is_a_clear_error() -> None:
    deep = "[" * 200_000 + "]" * 200_000

    def deep_event(h: Handler) -> None:
        h.send_pieces(200, "text/event-stream", iter([b"data: " + deep.encode() + b"\n\n"]))

    def deep_answer(h: Handler) -> None:
        pieces = [sse_chunk(deep[i : i + 4096]) for i in range(0, len(deep), 4096)]
        h.send_pieces(
            200, "text/event-stream", iter([*pieces, sse_chunk(finish="stop"), b"data: [DONE]\n\n"])
        )

    for route, call in ((deep_event, "complete"), (deep_answer, "complete_json")):
        routes = {("GET", "/props"): ok_props, ("POST", "/v1/chat/completions"): route}
        with hostile_server(routes) as (url, _):
            async with ChatClient(make_backend(url, name="deep"), Policy(), None) as client:
                ask = ChatRequest(ASK.messages, sampling=Sampling(max_tokens=1000))
                with pytest.raises(MalformedStream) as raised:
                    await (client.complete(ask) if call == "complete" else client.complete_json(ask, {}))
        assert "is not" in raised.value.message and "JSON" in raised.value.message


@pytest.mark.usefixtures("traced")
async def test_an_error_answer_to_a_streamed_request_is_capped_like_any_other() -> None:
    def bomb_error(h: Handler) -> None:
        h.send_body(500, gzip_bomb(), Content_Encoding="gzip")

    routes = {("GET", "/props"): ok_props, ("POST", "/v1/chat/completions"): bomb_error}
    with hostile_server(routes) as (url, _):
        tracemalloc.reset_peak()
        async with ChatClient(make_backend(url, name="bomb"), Policy(), None) as client:
            with pytest.raises(MalformedAnswer) as raised:
                await client.complete(ASK)
    assert f"{url}/v1/chat/completions" in raised.value.message and "limit of 32 MiB" in raised.value.message
    assert peak() < 3 * MAX_ANSWER_BYTES / MIB


@pytest.mark.parametrize("props", [deep_props, bomb_props])
def test_chambers_doctor_names_the_cap_and_exits_with_an_error(
    props: Any, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    routes = {("GET", "/props"): props, ("GET", "/health"): ok_props}
    with hostile_server(routes) as (url, _):
        isolated_home.mkdir(parents=True, exist_ok=True)
        (isolated_home / "config.toml").write_text(
            f'[[backends]]\nname = "hostile"\nkind = "llamacpp"\nurl = "{url}"\nroles = ["drafter"]\n'
        )
        assert main(["doctor"]) == 1  # an error finding, not a traceback
    out = capsys.readouterr().out
    assert "ERROR   backend hostile" in out and f"{url}/props" in out
    assert ("128 levels deep" in out) if props is deep_props else ("limit of 32 MiB" in out)
