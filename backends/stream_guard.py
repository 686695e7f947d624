"""The limits of one streamed answer: how long a line, how many events, how many characters.

A model server's stream ends when the answer does, at the request's ``max_tokens`` at the latest.
One that goes on (a broken or hostile server, or not a model server at all) is stopped here at
that limit plus a margin, with a message that says so, instead of being read until memory or
patience runs out. Each event is about one token; pings and the closing events are the margin.
"""

from __future__ import annotations

from typing import Any

from backends.errors import MalformedStream
from backends.sse import LineTooLong, SSEParser

# A stream that never ends is stopped after the request's max_tokens (else the server's context,
# else STREAM_TOKENS) plus this many events: the role, finish, usage and prompt-progress events.
STREAM_MARGIN = 256
STREAM_TOKENS = 262_144
EVENT_CHARS = 16 * 1024  # what one event may average, pings between events included


def event_limit(body: dict[str, Any], n_ctx: int | None) -> int:
    """How many events an answer to ``body`` may have before its stream counts as endless."""
    tokens = body.get("max_tokens") or body.get("n_predict")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens <= 0:
        tokens = n_ctx or STREAM_TOKENS
    return tokens + STREAM_MARGIN


class StreamGuard:
    """An SSE parser that refuses a stream past its limits.

    Args:
        backend, url: for the messages.
        where: the endpoint streamed from (``http://host:port/v1/chat/completions``).
        limit: the most events, from ``event_limit``.
    """

    def __init__(self, backend: str, url: str, where: str, limit: int) -> None:
        self.backend, self.url, self.where, self.limit = backend, url, where, limit
        self.parser = SSEParser()
        self.chars = 0
        self.events = 0

    def feed(self, piece: str) -> list[str]:
        """The ``data`` of each event that ``piece`` completes.

        Raises:
            MalformedStream: a line longer than the parser's limit, or a stream past its limit.
        """
        self.chars += len(piece)
        if self.chars > self.limit * EVENT_CHARS + self.parser.max_line:
            raise self._endless()
        try:
            datas = self.parser.feed(piece)
        except LineTooLong as exc:
            raise MalformedStream(
                f"Backend '{self.backend}' at {self.where} sent {exc}, chambers' limit for one line; "
                "it stopped reading there. A model server's events are far shorter: check that the "
                "address is the server the config means. The text so far is kept, marked incomplete.",
                backend=self.backend,
                url=self.url,
            ) from None
        self.events += len(datas)
        if self.events > self.limit:
            raise self._endless()
        return datas

    def _endless(self) -> MalformedStream:
        return MalformedStream(
            f"Backend '{self.backend}' at {self.where} kept streaming past the answer's token limit "
            f"({self.limit - STREAM_MARGIN:,} tokens, plus a margin of {STREAM_MARGIN} events) without "
            "ending it; chambers stopped reading and closed the connection. The text so far is kept, "
            "marked incomplete. Restart the model server if it does this again.",
            backend=self.backend,
            url=self.url,
        )


def context_size(props: Any) -> int | None:
    """The server's context (``/props``' ``default_generation_settings.n_ctx``), if it says one."""
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and not isinstance(n_ctx, bool) and n_ctx > 0 else None
