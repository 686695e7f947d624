"""A llama-server stand-in that streams as fast or as steadily as a measurement needs.

It replaces llama-server's ``/v1/chat/completions`` stream where a model cannot be
made to produce one on demand: tens of thousands of tokens as fast as the socket
takes them (what the client adds on top of the stream), or a long draft at a
steady rate (what the screen adds). It is not a model and computes nothing. The
chunk shapes are llama-server's, as ``tests/support/fakes.py`` describes their source:

1. a role chunk: ``{"choices":[{"finish_reason":null,"index":0,"delta":{"role":
   "assistant","content":null}}],"created":...,"id":"chatcmpl-...","model":"bench",
   "system_fingerprint":"b0-bench","object":"chat.completion.chunk"}``;
2. one content chunk per token, ``delta:{"content":"tok "}``, with an SSE comment
   ping ``:`` after every ``ping_every`` tokens (real servers and proxies send
   them; a client that parses every line as JSON breaks on them);
3. a finish chunk: ``finish_reason:"stop"``, ``delta:{}`` and a ``timings`` object;
4. a usage chunk with ``"choices":[]`` and ``usage``;
5. ``data: [DONE]``.

Each event is ``data: <json>\\n\\n`` (compact JSON, as llama-server's nlohmann
``dump(-1)`` writes it) in its own HTTP chunk (``Transfer-Encoding: chunked``, as
llama-server's cpp-httplib does). It also answers ``GET /props`` (ChatClient asks
for the build once per client) and ``GET /health``. Connections are kept alive.
It runs on its own event loop in a daemon thread; use it as a context manager.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

FAST_TOKENS = 20_000  # what a flat-out stream sends when the request names no max_tokens
PING_EVERY = 200  # an SSE comment ping (":") after every this many tokens
FRAMES_PER_WRITE = 32  # HTTP chunks handed to the socket per write when streaming flat out
PROPS = {
    "build_info": "b0-bench",
    "model_path": "bench.gguf",
    "default_generation_settings": {"n_ctx": 32768},
}


def http_chunk(payload: bytes) -> bytes:
    """One HTTP/1.1 chunked-encoding chunk (llama-server writes one per event)."""
    return b"%x\r\n%s\r\n" % (len(payload), payload)


def sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


class StreamServer:
    """Streams to any chat request, flat out or paced.

    Flat out (``tokens`` None): ``max_tokens`` of the request (default 20,000) identical tokens,
    as fast as the socket takes them. To keep the server's own CPU time out of a comparison,
    ``frames_per_write`` chunks are handed to the socket at once; the client still decodes one
    HTTP chunk and one SSE event per token.

    Paced (``tokens`` and ``rate`` given): those tokens at ``rate`` tokens a second, ``tick_s``
    worth at a time, as a fast model decodes.
    """

    def __init__(
        self,
        tokens: Sequence[str] | None = None,
        *,
        rate: float = 0.0,
        tick_s: float = 0.01,
        ping_every: int = PING_EVERY,
        frames_per_write: int = FRAMES_PER_WRITE,
    ) -> None:
        if tokens is not None and rate <= 0:
            raise ValueError("a paced stream needs a rate in tokens per second")
        self.tokens, self.rate, self.tick_s = tokens, rate, tick_s
        self.ping_every = ping_every
        self.frames_per_write = frames_per_write
        self.port = 0
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> StreamServer:
        self._thread = threading.Thread(target=self._run, name="stream-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10.0):
            raise RuntimeError(f"the stream server did not start: {self._error!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10.0)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by __enter__ if it happens while starting
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(server.sockets[0].getsockname()[1])
        self._ready.set()
        async with server:
            await self._stop.wait()
        # Close open connections and let their handlers finish: a handler that
        # asyncio.run() cancels instead makes Python 3.11 log a spurious traceback.
        for writer in self._connections.values():
            writer.close()
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=5.0)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections[task] = writer
        try:
            while True:  # keep-alive: one request after another on this connection
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                    return
                request_line, *header_lines = head.decode("latin-1").split("\r\n")
                method, target, _version = request_line.split(" ", 2)
                headers: dict[str, str] = {}
                for line in header_lines:
                    name, sep, value = line.partition(":")
                    if sep:
                        headers[name.strip().lower()] = value.strip()
                # httpx sends a JSON body with Content-Length; chunked request bodies are
                # not needed here and not supported.
                length = int(headers.get("content-length", "0") or 0)
                body = await reader.readexactly(length) if length else b""
                if method == "POST" and target.startswith("/v1/chat/completions"):
                    await self._stream(writer, json.loads(body or b"{}"))
                elif method == "GET" and target.startswith("/props"):
                    self._reply_json(writer, 200, PROPS)
                elif method == "GET" and target.startswith("/health"):
                    self._reply_json(writer, 200, {"status": "ok"})
                else:
                    self._reply_json(writer, 404, {"error": {"code": 404, "message": "File Not Found"}})
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return  # the client went away (a cancelled stream does exactly this)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            if task is not None:
                self._connections.pop(task, None)

    @staticmethod
    def _reply_json(writer: asyncio.StreamWriter, status: int, obj: Any) -> None:
        payload = json.dumps(obj).encode()
        reason = {200: "OK", 404: "Not Found"}.get(status, "Error")
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=utf-8\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: keep-alive\r\n\r\n".encode()
            + payload
        )

    async def _stream(self, writer: asyncio.StreamWriter, body: dict[str, Any]) -> None:
        prompt_n = max(1, sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4)
        started = time.perf_counter()
        base = {
            "created": int(time.time()),
            "id": "chatcmpl-bench0000000000000000000000",
            "model": "bench",
            "system_fingerprint": "b0-bench",
            "object": "chat.completion.chunk",
        }

        def frame(choices: list[dict[str, Any]], **extra: Any) -> bytes:
            return http_chunk(sse({"choices": choices, **base, **extra}))

        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
        )
        writer.write(
            frame([{"finish_reason": None, "index": 0, "delta": {"role": "assistant", "content": None}}])
        )
        if self.tokens is None:
            n_tokens = int(body.get("max_tokens") or FAST_TOKENS)
            await self._flat_out(writer, frame, n_tokens)
        else:
            n_tokens = len(self.tokens)
            await self._paced(writer, frame, self.tokens)
        predicted_ms = (time.perf_counter() - started) * 1000.0
        timings = {
            "cache_n": 0,
            "prompt_n": prompt_n,
            "prompt_ms": 1.0,
            "prompt_per_token_ms": 1.0 / prompt_n,
            "prompt_per_second": prompt_n * 1000.0,
            "predicted_n": n_tokens,
            "predicted_ms": predicted_ms,
            "predicted_per_token_ms": predicted_ms / max(n_tokens, 1),
            "predicted_per_second": n_tokens * 1000.0 / max(predicted_ms, 1e-9),
        }
        usage = {
            "completion_tokens": n_tokens,
            "prompt_tokens": prompt_n,
            "total_tokens": n_tokens + prompt_n,
        }
        ending = [
            frame([{"finish_reason": "stop", "index": 0, "delta": {}}], timings=timings),
            frame([], usage=usage),
            http_chunk(b"data: [DONE]\n\n"),
            b"0\r\n\r\n",  # the end of the chunked body
        ]
        writer.write(b"".join(ending))
        await writer.drain()

    async def _flat_out(
        self, writer: asyncio.StreamWriter, frame: Callable[..., bytes], n_tokens: int
    ) -> None:
        token = frame([{"finish_reason": None, "index": 0, "delta": {"content": "tok "}}])
        ping = http_chunk(b":\n\n")
        batch: list[bytes] = []
        for i in range(1, n_tokens + 1):
            batch.append(token)
            if i % self.ping_every == 0:
                batch.append(ping)
            if len(batch) >= self.frames_per_write:
                writer.write(b"".join(batch))
                batch.clear()
                await writer.drain()
        writer.write(b"".join(batch))

    async def _paced(
        self, writer: asyncio.StreamWriter, frame: Callable[..., bytes], tokens: Sequence[str]
    ) -> None:
        per_tick = max(1, int(self.rate * self.tick_s))
        start = time.perf_counter()
        for i in range(0, len(tokens), per_tick):
            writer.write(
                b"".join(
                    frame([{"finish_reason": None, "index": 0, "delta": {"content": t}}])
                    for t in tokens[i : i + per_tick]
                )
            )
            await writer.drain()
            due = start + (i + per_tick) / self.rate
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
