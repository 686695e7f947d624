"""Live state of each model server, for the dashboard and the doctor.

llama-server: ``/health``, ``/props`` (model, n_ctx, build; slow-changing, so
re-read only every few polls), ``/slots`` (busy/idle) and ``/metrics``
(requests processing/deferred, and the token counters). Decode and prefill
speeds come from the counter deltas between two polls, so the sparkline shows
what the server did in the last interval, not its lifetime average. Ollama:
``/api/ps`` (loaded models, VRAM) and ``/api/tags``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from typing import TypeVar

import httpx

from backends.endpoint import Endpoint, async_client
from backends.errors import ModelLoading, ServerTimeout, ServerUnreachable
from backends.local_build import shown_build
from backends.native import NativeClient, OllamaModel, Slot
from workspace.config import Backend, Policy
from workspace.errors import ChambersError

T = TypeVar("T")
PROPS_EVERY = 5  # polls between two /props reads
DOWN_BACKOFF_MAX = 4  # a server that is down is asked again after at most this many skipped ticks


@dataclass(frozen=True)
class ServerSample:
    name: str
    kind: str
    health: str  # "ok", "loading", "down", "refused", "error", "checking"
    problem: str | None = None
    address_class: str | None = None
    model: str | None = None
    n_ctx: int | None = None
    build: str | None = None
    slots_busy: int | None = None
    slots_total: int | None = None
    requests_processing: float | None = None
    requests_deferred: float | None = None
    prompt_tok_s: float | None = None  # over the last interval; None when nothing was processed
    decode_tok_s: float | None = None
    decode_avg_tok_s: float | None = None  # the server's own lifetime average
    slots: tuple[Slot, ...] = ()
    loaded: tuple[OllamaModel, ...] = ()
    available: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.health == "ok"


def is_slow(sample: ServerSample, min_decode_tok_s: float, bench_tg: float | None = None) -> bool:
    """Below the floor: by the last benchmark if there is one, else by the server's own average."""
    measured = bench_tg if bench_tg is not None else sample.decode_avg_tok_s
    return measured is not None and measured > 0 and measured < min_decode_tok_s


def _rate(now: dict[str, float], before: dict[str, float] | None, tokens: str, seconds: str) -> float | None:
    if before is None or tokens not in now or seconds not in now:
        return None
    dt = now[seconds] - before.get(seconds, 0.0)
    dn = now[tokens] - before.get(tokens, 0.0)
    return dn / dt if dt > 0 and dn > 0 else None


class ServerPoller:
    """Polls one backend; keeps the previous counters to turn them into rates."""

    def __init__(self, backend: Backend, policy: Policy, http: httpx.AsyncClient | None = None) -> None:
        self.backend = backend
        self.policy = policy
        self.client = NativeClient(backend, policy, http=http)
        self._polls = 0
        self._props: ServerSample | None = None
        self._counters: dict[str, float] | None = None
        self._tags: tuple[str, ...] = ()
        self._version: str | None = None
        self._failures = 0
        self._skip = 0
        self._decoded: tuple[float, dict[int, int]] | None = None  # (when, n_decoded per busy slot)

    def due(self) -> bool:
        """Whether a periodic poller should ask now. A server that is down is asked less and
        less often (up to every fifth tick): refused connections are not free, and a server
        that is starting takes seconds anyway."""
        if self._skip > 0:
            self._skip -= 1
            return False
        return True

    async def poll(self) -> ServerSample:
        """Never raises for a server problem: the sample says what is wrong."""
        b = self.backend
        try:  # resolved and checked once per poll; every call of the poll goes to that address
            self.client.checked = await Endpoint.for_backend(b, self.policy).check_async()
        except ChambersError as exc:
            return ServerSample(b.name, b.kind, "refused", problem=exc.message)
        klass = self.client.checked.klass.value
        try:
            if b.kind == "llamacpp":
                sample = await self._llamacpp(klass)
            else:
                sample = await self._ollama(klass)
        except ModelLoading as exc:
            sample = ServerSample(b.name, b.kind, "loading", exc.message, klass)
        except ChambersError as exc:
            state = "down" if isinstance(exc, ServerUnreachable | ServerTimeout) else "error"
            sample = ServerSample(b.name, b.kind, state, exc.message, klass)
        if not sample.ok:  # after an outage everything is read afresh
            self._props, self._counters, self._polls = None, None, 0
            self._failures += 1
            self._skip = min(DOWN_BACKOFF_MAX, self._failures)
        else:
            self._failures = 0
        self._polls += 1
        return sample

    async def _llamacpp(self, klass: str) -> ServerSample:
        b = self.backend
        health = await self.client.health()
        if not health.ok:
            return ServerSample(b.name, b.kind, "loading", health.status, klass)
        if self._props is None or self._polls % PROPS_EVERY == 0:
            props = await self.client.props()
            self._props = ServerSample(
                b.name, b.kind, "ok", None, klass, props.model, props.n_ctx, shown_build(b.url, props.build),
                slots_total=props.total_slots,
            )  # fmt: skip
        sample = self._props
        slots = await self._optional(self.client.slots())
        metrics = await self._optional(self.client.metrics())
        live_rate = None
        if slots is not None:
            sample = replace(sample, slots=tuple(slots), slots_total=len(slots),
                             slots_busy=sum(s.is_processing for s in slots))  # fmt: skip
            live_rate = self._live_decode_rate(slots)
        if metrics is not None:
            before, self._counters = self._counters, metrics
            sample = replace(
                sample,
                requests_processing=metrics.get("llamacpp:requests_processing"),
                requests_deferred=metrics.get("llamacpp:requests_deferred"),
                prompt_tok_s=_rate(
                    metrics, before, "llamacpp:prompt_tokens_total", "llamacpp:prompt_seconds_total"
                ),
                decode_tok_s=_rate(
                    metrics,
                    before,
                    "llamacpp:tokens_predicted_total",
                    "llamacpp:tokens_predicted_seconds_total",
                ),
                decode_avg_tok_s=metrics.get("llamacpp:predicted_tokens_seconds") or None,
            )
        if live_rate is not None:  # mid-answer: the counters only move when a request ends
            sample = replace(sample, decode_tok_s=live_rate)
        return sample

    def _live_decode_rate(self, slots: list[Slot]) -> float | None:
        """Tokens/s decoded by the busy slots since the last poll (``n_decoded`` grows as they answer)."""
        now = time.monotonic()
        busy = {s.id: s.n_decoded for s in slots if s.is_processing}
        before, self._decoded = self._decoded, (now, busy)
        if before is None or not busy:
            return None
        then, counts = before
        gained = sum(n - counts[i] for i, n in busy.items() if i in counts and n > counts[i])
        return gained / (now - then) if gained > 0 and now > then else None

    async def _optional(self, call: Awaitable[T]) -> T | None:
        """/slots and /metrics can be turned off on the server (--no-slots, no --metrics)."""
        try:
            return await call
        except (ServerUnreachable, ServerTimeout):
            raise
        except ChambersError:
            return None

    async def _ollama(self, klass: str) -> ServerSample:
        b = self.backend
        loaded = tuple(await self.client.ollama_ps())
        if not self._tags or self._polls % PROPS_EVERY == 0:
            self._tags = tuple(m.name for m in await self.client.ollama_tags())
            self._version = await self._optional(self.client.ollama_version())
        wanted = next((m for m in loaded if m.name == b.model), None)
        return ServerSample(
            b.name, b.kind, "ok", None, klass, model=b.model,
            n_ctx=wanted.context_length if wanted else None,
            build=f"ollama {self._version}" if self._version else None,
            loaded=loaded, available=self._tags,
        )  # fmt: skip


async def poll_all(pollers: list[ServerPoller]) -> list[ServerSample]:
    return list(await asyncio.gather(*(p.poll() for p in pollers)))


def polling_client() -> httpx.AsyncClient:
    """One keep-alive client shared by every poller: a new client per call costs ~20 ms of
    CPU (its TLS context), which at 1 Hz over six backends would be most of the dashboard's cost."""
    return async_client()
