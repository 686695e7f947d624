"""Live state of each model server, for the dashboard and the doctor.

The poller checks the backend's address once per poll and asks the backend's adapter for a
sample (each kind's adapter owns what it reads: backends.llamacpp, backends.ollama); what changes
slowly (the model, the build) is re-read only every few polls. It never raises for a server
problem: the sample says what is wrong, and a server that is down is asked less often.
"""

from __future__ import annotations

import asyncio

import httpx

from backends.adapters import adapter_for
from backends.endpoint import Endpoint, async_client
from backends.errors import ModelLoading, ServerTimeout, ServerUnreachable
from backends.server_facts import ServerSample
from workspace.config import Backend, Policy
from workspace.errors import ChambersError

__all__ = ["ServerPoller", "ServerSample", "is_slow", "poll_all", "polling_client"]

PROPS_EVERY = 5  # polls between two reads of what changes slowly (llama-server's /props, Ollama's tags)
DOWN_BACKOFF_MAX = 4  # a server that is down is asked again after at most this many skipped ticks


def is_slow(sample: ServerSample, min_decode_tok_s: float, bench_tg: float | None = None) -> bool:
    """Below the floor: by the last benchmark if there is one, else by the server's own average."""
    measured = bench_tg if bench_tg is not None else sample.decode_avg_tok_s
    return measured is not None and measured > 0 and measured < min_decode_tok_s


class ServerPoller:
    """Polls one backend through its adapter, which keeps the previous counters to turn them into rates."""

    def __init__(self, backend: Backend, policy: Policy, http: httpx.AsyncClient | None = None) -> None:
        self.backend = backend
        self.policy = policy
        self.server = adapter_for(backend, policy, http=http)
        self._polls = 0
        self._failures = 0
        self._skip = 0

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
            self.server.checked = checked = await Endpoint.for_backend(b, self.policy).check_async()
        except ChambersError as exc:
            return ServerSample(b.name, b.kind, "refused", problem=exc.message)
        klass = checked.klass.value
        try:
            sample = await self.server.sample(klass, fresh=self._polls % PROPS_EVERY == 0)
        except ModelLoading as exc:
            sample = ServerSample(b.name, b.kind, "loading", exc.message, klass)
        except ChambersError as exc:
            state = "down" if isinstance(exc, ServerUnreachable | ServerTimeout) else "error"
            sample = ServerSample(b.name, b.kind, state, exc.message, klass)
        if not sample.ok:  # after an outage everything is read afresh
            self.server.forget()
            self._polls = 0
            self._failures += 1
            self._skip = min(DOWN_BACKOFF_MAX, self._failures)
        else:
            self._failures = 0
        self._polls += 1
        return sample


async def poll_all(pollers: list[ServerPoller]) -> list[ServerSample]:
    return list(await asyncio.gather(*(p.poll() for p in pollers)))


def polling_client() -> httpx.AsyncClient:
    """One keep-alive client shared by every poller: a new client per call costs ~20 ms of
    CPU (its TLS context), which at 1 Hz over six backends would be most of the dashboard's cost."""
    return async_client()
