"""How much a server's answer may make chambers hold, enforced as the bytes arrive.

A server that is not what the config says (or is broken, or hostile) can answer a short request
with gigabytes, or with a small gzip body that inflates to gigabytes, or with JSON nested so deep
that parsing it overflows the interpreter's stack. The transport (backends.endpoint) passes every
answer through a ``Meter``: it inflates the body itself, in bounded steps, so neither the
compressed nor the inflated size can pass the cap before chambers stops reading; and it follows
the nesting of a JSON body as it arrives, so a parser never sees one deeper than the cap.

A streamed answer (the request carries ``STREAM``) is inflated the same way but has no total
size: it is as long as the answer, and its reader caps each line and the number of events.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import AsyncIterator, Iterator

import httpx

MAX_ANSWER_BYTES = 32 * 1024 * 1024  # a llama-server /props or /slots answer is well under 1 MiB
MAX_JSON_DEPTH = 128  # llama-server and Ollama nest their answers a handful of levels
INFLATE_STEP = 1024 * 1024  # at most this much inflated output per step, whatever the input
STREAM = "chambers.stream"  # request extension: a streamed answer, capped by its reader instead

_SPECIAL = re.compile(rb'[\[\]{}"\\]')
# What may come before a JSON text's first bracket: whitespace, a byte-order mark, and the zero
# bytes of UTF-16 or UTF-32, which json.loads reads too.
_LEADING = b" \t\r\n\x00\xef\xbb\xbf\xfe\xff"
_OPEN, _CLOSE, _QUOTE, _BACKSLASH = b"[{", b"]}", 0x22, 0x5C


class AnswerRefused(httpx.DecodingError):
    """An answer over a cap. An httpx error, so every caller that handles a failed request
    (``except HTTP_FAILURES``) handles this one too; backends.errors words it for the attorney."""


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):g} MiB"


class _Inflater:
    """One content coding (gzip or deflate) undone in steps of at most ``INFLATE_STEP`` bytes.

    Raises:
        zlib.error: from ``pieces`` or ``end``, the body does not inflate.
    """

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._z: zlib._Decompress | None = None
        self._head = b""  # deflate: the first bytes, until there are two to tell zlib from raw
        if coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)

    def pieces(self, data: bytes) -> Iterator[bytes]:
        if self._z is None:  # deflate: a zlib stream, or (some servers) raw deflate
            data = self._head + data
            if len(data) < 2:
                self._head = data
                return
            zlib_header = (data[0] & 0x0F) == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._z = zlib.decompressobj(zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS)
        yield self._z.decompress(data, INFLATE_STEP)
        while self._z.unconsumed_tail:
            yield self._z.decompress(self._z.unconsumed_tail, INFLATE_STEP)

    def end(self) -> bytes:
        if self._z is None:
            if self._head:
                raise zlib.error("a deflate body of one byte")
            return b""
        return self._z.flush()


class _DepthGauge:
    """The nesting depth of a JSON text read in pieces, outside its strings."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.depth = 0
        self.in_string = False
        self.skip = -1  # the offset of a character escaped by a backslash
        self.offset = 0

    def feed(self, data: bytes) -> bool:
        """False as soon as the text nests deeper than the limit."""
        base = self.offset
        self.offset += len(data)
        for match in _SPECIAL.finditer(data):
            at = base + match.start()
            if at == self.skip:
                continue
            c = data[match.start()]
            if self.in_string:
                if c == _BACKSLASH:
                    self.skip = at + 1
                elif c == _QUOTE:
                    self.in_string = False
            elif c == _QUOTE:
                self.in_string = True
            elif c in _OPEN:
                self.depth += 1
                if self.depth > self.limit:
                    return False
            elif c in _CLOSE:
                self.depth -= 1
        return True


class Meter:
    """Inflates and measures one answer; raises ``AnswerRefused`` at the first byte over a cap.

    Args:
        url: the endpoint, as the request named it (for the message).
        coding: the answer's Content-Encoding ("" for none).
        content_type: the answer's Content-Type (a JSON body has its depth followed).
        cap: the most bytes, compressed and inflated; None for a stream.
    """

    def __init__(self, url: str, coding: str, content_type: str, cap: int | None) -> None:
        self.url = url
        self.cap = cap
        codings = [c.strip().lower() for c in coding.split(",") if c.strip().lower() not in ("", "identity")]
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            raise AnswerRefused(
                f"{url} sent its answer in the encoding '{coding}', which chambers does not read "
                "(it reads gzip or deflate). A llama-server or Ollama does not send that."
            )
        self._inflater = _Inflater(codings[0]) if codings else None
        self._raw = 0
        self._inflated = 0
        self._gauge: _DepthGauge | None = None
        self._json_undecided = cap is not None
        self._json_hint = "json" in content_type.lower()

    def take(self, data: bytes) -> Iterator[bytes]:
        """The inflated pieces of ``data``, each checked before it is handed on."""
        self._raw += len(data)
        if self.cap is not None and self._raw > self.cap:
            raise self._too_large("compressed " if self._inflater else "")
        if self._inflater is None:
            yield self._checked(data)
            return
        try:
            for piece in self._inflater.pieces(data):
                if piece:
                    yield self._checked(piece)
        except zlib.error as exc:
            raise self._corrupt(exc) from None

    def end(self) -> Iterator[bytes]:
        if self._inflater is not None:
            try:
                tail = self._inflater.end()
            except zlib.error as exc:
                raise self._corrupt(exc) from None
            if tail:
                yield self._checked(tail)

    def _corrupt(self, exc: zlib.error) -> AnswerRefused:
        assert self._inflater is not None
        return AnswerRefused(
            f"{self.url} sent an answer marked {self._inflater.coding} that does not inflate ({exc}); "
            "nothing was read from it. Check that the address is the server the config means."
        )

    def _checked(self, piece: bytes) -> bytes:
        self._inflated += len(piece)
        if self.cap is not None and self._inflated > self.cap:
            raise self._too_large("inflated " if self._inflater else "")
        if self._json_undecided:
            start = piece.lstrip(_LEADING)
            if start:
                self._json_undecided = False
                if self._json_hint or start[:1] in (b"{", b"["):
                    self._gauge = _DepthGauge(MAX_JSON_DEPTH)
        if self._gauge is not None and not self._gauge.feed(piece):
            raise AnswerRefused(
                f"{self.url} sent JSON nested more than {MAX_JSON_DEPTH} levels deep, chambers' limit; "
                "nothing was read from it. A llama-server or Ollama answer nests a few levels: check "
                "that the address is the server the config means."
            )
        return piece

    def _too_large(self, how: str) -> AnswerRefused:
        assert self.cap is not None
        return AnswerRefused(
            f"{self.url} sent an answer over chambers' limit of {_mib(self.cap)} ({how}size); it was "
            "stopped there and nothing was read from it. A llama-server or Ollama answer is far smaller: "
            "check that the address is the server the config means."
        )


def metered(request: httpx.Request, response: httpx.Response) -> httpx.Response:
    """``response`` with its body inflated and capped as it is read (Content-Encoding dropped)."""
    # Only a stream the server really started is left to its reader: an error or any other body
    # answering a streamed request is read whole, so it is capped like every other answer.
    stream = (
        request.extensions.get(STREAM) is True
        and response.status_code < 400
        and response.headers.get("content-type", "").startswith("text/event-stream")
    )
    meter = Meter(
        str(request.url),
        response.headers.get("content-encoding", ""),
        response.headers.get("content-type", ""),
        None if stream else MAX_ANSWER_BYTES,
    )
    headers = [
        (k, v)
        for k, v in response.headers.multi_items()
        if k.lower() not in ("content-encoding", "content-length")
    ]
    inner = response.stream
    if isinstance(inner, httpx.AsyncByteStream):
        body: httpx.AsyncByteStream | httpx.SyncByteStream = _AsyncMetered(inner, meter)
    else:
        assert isinstance(inner, httpx.SyncByteStream)
        body = _SyncMetered(inner, meter)
    return httpx.Response(response.status_code, headers=headers, stream=body, extensions=response.extensions)


class _AsyncMetered(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, meter: Meter) -> None:
        self._inner, self._meter = inner, meter

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for data in self._inner:
            for piece in self._meter.take(data):
                yield piece
        for piece in self._meter.end():
            yield piece

    async def aclose(self) -> None:
        await self._inner.aclose()


class _SyncMetered(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, meter: Meter) -> None:
        self._inner, self._meter = inner, meter

    def __iter__(self) -> Iterator[bytes]:
        for data in self._inner:
            yield from self._meter.take(data)
        yield from self._meter.end()

    def close(self) -> None:
        self._inner.close()
