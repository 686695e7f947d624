"""An async streaming client for OpenAI-compatible ``/v1/chat/completions``.

One client serves every kind of server (each speaks this endpoint; the kind's adapter,
backends.adapters, adds what only that kind sends and reads). It
yields typed events (backends.events), turns every failure into a typed error
with a plain message (backends.errors) that keeps the partial text, checks the
local-only policy before it opens a connection, and writes one audit record
per call, whatever the outcome.

Nothing here waits on the event loop: the name is resolved in the loop's
resolver thread, the audit record is written from a worker thread, and the
connection pool is made in one. Each ``ChatClient`` keeps one pool for all its
calls, opened on first use on the loop that uses it; close it (``aclose`` or
``async with``) on that loop. Its short requests (``/props``, the adapters)
reuse connections; each streamed answer has a connection of its own.

Streaming notes: the event framing is parsed by
backends.sse (comment pings are dropped there) under backends.stream_guard's limits (the line
length, and the answer's max_tokens plus a margin), each JSON chunk is read by
backends.chunks, ``[DONE]`` ends the stream. Cancelling the task that iterates
the stream closes the connection, which is how llama-server learns to stop and
free the slot (it has no cancel endpoint).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from backends.adapters import adapter_for
from backends.answer_caps import STREAM
from backends.chunks import ChunkReader
from backends.endpoint import CheckedAddress, Endpoint
from backends.errors import (
    HTTP_FAILURES,
    BackendError,
    MalformedStream,
    NotAModelServer,
    PolicyRefusal,
    StreamBroken,
    error_from_response,
    transport_error,
)
from backends.events import ContentDelta, Finished, PromptProgress, StreamEvent, Usage
from backends.pool import LoopPool
from backends.stream_guard import StreamGuard, context_size, event_limit
from workspace.audit import AuditLog, AuditRecord
from workspace.config import Backend, Policy, Sampling

DEFAULT_TIMEOUT = httpx.Timeout(10.0, read=600.0)  # long prefill can be silent for minutes
CHAT_PATH = "/v1/chat/completions"


@dataclass
class ChatRequest:
    messages: list[dict[str, Any]]
    sampling: Sampling = field(default_factory=Sampling)  # overrides the backend's own
    json_schema: dict[str, Any] | None = None
    schema_name: str = "answer"
    return_progress: bool = False
    # Server-specific fields sent as they are (llama.cpp: ignore_eos, id_slot, cache_prompt).
    extra: dict[str, Any] = field(default_factory=dict)


class ChatClient:
    """Streams chat completions from one configured backend.

    Args:
        backend: the backend from the config; its URL, kind, model and sampling are used.
        policy: the local-only policy; checked before every call.
        audit: where to record each call (None only in benchmarks and unit checks).
        timeout: httpx timeouts; ``read`` is the longest silence allowed between two chunks.
    """

    def __init__(
        self,
        backend: Backend,
        policy: Policy,
        audit: AuditLog | None,
        *,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
    ) -> None:
        self.backend = backend
        self.policy = policy
        self.audit = audit
        self.timeout = timeout
        self._server_build: str | None = None
        self._server_n_ctx: int | None = None
        # This kind's own part of every call (its fields, headers, LoRA adapters), kept for the
        # client's life: what it reads from the server is read once.
        self._server = adapter_for(backend, policy)
        self._pool = LoopPool(f"backend '{backend.name}'", timeout)

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool (on the loop that used it); a later call opens a new one."""
        await self._pool.aclose()

    @property
    def server_build(self) -> str | None:
        """The build the server reported (read once per client), for a run's record."""
        return self._server_build

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "messages": request.messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self.backend.model:
            body["model"] = self.backend.model
        merged = {**self.backend.sampling.as_dict(), **request.sampling.as_dict()}
        body.update(merged)
        body.update(self._server.chat_fields(return_progress=request.return_progress))
        body.update(request.extra)
        if request.json_schema is not None:
            # The OpenAI nesting. The un-nested form is silently ignored by llama-server.
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "schema": request.json_schema,
                    "strict": True,
                },
            }
        return body

    async def stream(self, request: ChatRequest, *, role: str | None = None) -> AsyncIterator[StreamEvent]:
        """Yield events for one call; raise a BackendError subclass on failure.

        Raises:
            PolicyRefusal: the backend's address is not allowed (nothing is sent).
            ServerUnreachable, ServerTimeout, ServerHTTPError (ModelLoading,
            NotAModelServer), MalformedStream, StreamBroken: with ``partial`` text.
        """
        body = self.build_body(request)
        record = AuditRecord(
            backend=self.backend.name,
            role=role,
            url=self.backend.url,
            model=self.backend.model,
            messages=request.messages,
            request={k: v for k, v in body.items() if k != "messages"},
            sampling={k: v for k, v in body.items() if k not in ("messages", "stream", "stream_options")},
        )
        reader = ChunkReader(self.backend.name, self.backend.url)
        try:
            # Resolved and checked once, before any connection; every request goes to this address.
            checked = await Endpoint.for_backend(self.backend, self.policy).check_async(role)
            record.checked_ip = checked.ip
            client = await self._pool.client()
            record.server_build = await self._fetch_server_build(client, checked)
            fields = await self._server.request_fields(body, http=client, checked=checked)
            body.update(fields)
            record.request.update(fields)
            async for event in self._events(client, checked, body, reader):
                if isinstance(event, Finished):
                    record.model = event.model or record.model
                    record.timings = event.timings.as_dict() if event.timings else None
                    record.usage = _usage_dict(event.usage)
                    record.outcome = "completed"
                yield event
        except BackendError as exc:
            exc.partial = "".join(reader.text)
            record.outcome, record.error = "failed", f"{type(exc).__name__}: {exc}"
            raise
        except PolicyRefusal as exc:  # nothing was sent; the refusal itself is on the record
            record.outcome, record.error = "refused", str(exc)
            raise
        except BaseException as exc:  # cancellation (and anything unexpected) is audited too
            record.outcome = "cancelled" if _is_cancel(exc) else "failed"
            record.error = None if _is_cancel(exc) else f"{type(exc).__name__}: {exc}"
            raise
        finally:
            record.response_text = "".join(reader.text)
            record.reasoning_text = "".join(reader.reasoning)
            record.finished_at = datetime.now(UTC).isoformat()
            if record.outcome == "started":  # the consumer stopped iterating early
                record.outcome = "cancelled"
            if self.audit is not None:
                # Shielded: a second cancel while the record is written must not lose it.
                await asyncio.shield(asyncio.to_thread(self.audit.record, record))

    async def complete(
        self,
        request: ChatRequest,
        *,
        role: str | None = None,
        on_progress: Callable[[PromptProgress], None] | None = None,
        on_delta: Callable[[ContentDelta], None] | None = None,
    ) -> Finished:
        """Run a call to the end and return its Finished event.

        The stream is read to its very end (Finished is its last event) rather than
        left suspended, so the audit record is written now, not when the generator
        happens to be garbage-collected. ``on_progress`` hears the server reading the
        prompt (when the request asked for ``return_progress``); ``on_delta`` each piece of
        the answer as it comes (a JSON answer is counted while it is written).
        """
        finished: Finished | None = None
        async for event in self.stream(request, role=role):
            if isinstance(event, Finished):
                finished = event
            elif isinstance(event, PromptProgress) and on_progress is not None:
                on_progress(event)
            elif isinstance(event, ContentDelta) and on_delta is not None:
                on_delta(event)
        if finished is None:  # pragma: no cover - stream() raises before this
            raise StreamBroken(
                "The stream ended without an answer.", backend=self.backend.name, url=self.backend.url
            )
        return finished

    async def complete_json(
        self, request: ChatRequest, schema: dict[str, Any], *, role: str | None = None
    ) -> Any:
        """Structured output: constrain the answer to ``schema`` and parse it."""
        answer, _ = await self.complete_structured(request, schema, role=role)
        return answer

    async def complete_structured(
        self,
        request: ChatRequest,
        schema: dict[str, Any],
        *,
        role: str | None = None,
        on_progress: Callable[[PromptProgress], None] | None = None,
        on_delta: Callable[[ContentDelta], None] | None = None,
    ) -> tuple[Any, Finished]:
        """``complete_json`` that also returns the call's Finished event (its text, model and timings)."""
        request.json_schema = schema
        finished = await self.complete(request, role=role, on_progress=on_progress, on_delta=on_delta)
        try:
            return json.loads(finished.text), finished
        except (json.JSONDecodeError, RecursionError) as exc:
            where = (
                f"{exc.msg} at character {exc.pos}"
                if isinstance(exc, json.JSONDecodeError)
                else "nested too deep"
            )
            raise MalformedStream(
                f"Backend '{self.backend.name}' was asked for JSON matching a schema but sent "
                f"text that is not JSON ({where}).",
                backend=self.backend.name,
                url=self.backend.url,
                partial=finished.text,
            ) from exc

    async def _fetch_server_build(self, client: httpx.AsyncClient, checked: CheckedAddress) -> str | None:
        """The server's build for the audit trail; fetched once per client.

        A failure here is not the call's failure: the call itself reports why the
        server cannot be used, so an unreachable /props only leaves the build blank.
        """
        if self._server_build is not None:
            return self._server_build
        adapter = self._server
        if adapter.BUILD_PATH is None:
            return None
        try:
            response = await client.get(
                self.backend.url + adapter.BUILD_PATH, timeout=5.0, extensions=checked.extensions()
            )
            if response.status_code == 200:
                props = response.json()
                self._server_build = adapter.build_from(props)
                self._server_n_ctx = context_size(props)
        except (*HTTP_FAILURES, ValueError):
            return None
        return self._server_build

    def adapter_record(self) -> tuple[str | None, str | None]:
        """(names, sha256s) of the LoRA adapters the requests carried, for a run's record; (None, None)
        without."""
        return self._server.lora_record()

    async def _events(
        self, client: httpx.AsyncClient, checked: CheckedAddress, body: dict[str, Any], reader: ChunkReader
    ) -> AsyncIterator[StreamEvent]:
        name, url = self.backend.name, self.backend.url
        try:
            async with client.stream(
                "POST",
                url + CHAT_PATH,
                json=body,
                headers=dict(self._server.STREAM_HEADERS),
                extensions={**checked.extensions(), STREAM: True},
            ) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise error_from_response(name, url, CHAT_PATH, response)
                content_type = response.headers.get("content-type", "")
                if not content_type.startswith("text/event-stream"):
                    await response.aread()
                    raise NotAModelServer(
                        f"{url} answered, but not with an event stream (content type "
                        f"'{content_type or 'none'}'). Check that backend '{name}' points at a "
                        f"{self._server.LABEL} port.",
                        backend=name,
                        url=url,
                        status=response.status_code,
                        server_message=None,
                    )
                guard = StreamGuard(name, url, url + CHAT_PATH, event_limit(body, self._server_n_ctx))
                async for piece in response.aiter_text():
                    for data in guard.feed(piece):
                        if data == "[DONE]":
                            yield reader.finished()
                            return
                        for event in reader.read(self._parse(data)):
                            yield event
        except HTTP_FAILURES as exc:
            raise transport_error(exc, backend=name, url=url) from exc
        if not reader.saw_end:  # the connection closed cleanly, but the answer never ended
            raise StreamBroken(
                f"Backend '{name}' at {url} ended the stream before the answer was finished. "
                "The text so far is kept, marked incomplete.",
                backend=name,
                url=url,
            )
        yield reader.finished()  # Ollama and older servers may close without [DONE]

    def _parse(self, data: str) -> dict[str, Any]:
        try:
            chunk = json.loads(data)
        except (json.JSONDecodeError, RecursionError):  # not JSON, or nested past the parser's stack
            chunk = None
        if not isinstance(chunk, dict):
            raise MalformedStream(
                f"Backend '{self.backend.name}' at {self.backend.url} sent a stream event that is not "
                f"a JSON object: {data[:80]!r}. Is this a {self._server.LABEL} endpoint?",
                backend=self.backend.name,
                url=self.backend.url,
            )
        return chunk


def _is_cancel(exc: BaseException) -> bool:
    return isinstance(exc, asyncio.CancelledError | GeneratorExit)


def _usage_dict(usage: Usage | None) -> dict[str, int] | None:
    if usage is None:
        return None
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
        "cached_tokens": usage.cached_tokens,
    }
