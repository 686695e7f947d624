"""One pooled HTTP client per user of a backend, kept on the event loop that uses it.

An ``httpx.AsyncClient``'s connections belong to the loop that opened them. A pool is therefore
opened on first use, remembers its loop, and is closed on that loop. One whose loop has closed
(``asyncio.run`` returned) is dead and only forgotten; one whose loop still runs in another thread
(the drafting session runs the pipeline on a loop of its own) may not be touched from here.
"""

from __future__ import annotations

import asyncio

import httpx

from backends.endpoint import open_async_client


class LoopPool:
    """A lazily opened ``backends.endpoint`` client, bound to the loop that first uses it.

    Args:
        owner: what the pool serves, for the message when it is used from a second loop.
        timeout: the client's timeouts.
    """

    def __init__(self, owner: str, timeout: httpx.Timeout | float) -> None:
        self.owner = owner
        self.timeout = timeout
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def client(self) -> httpx.AsyncClient:
        """The open client for the running loop; opened (in a worker thread) on first use.

        Raises:
            RuntimeError: the client is open on another loop that still runs.
        """
        if (http := self._here()) is not None:
            return http
        http = await open_async_client(self.timeout)
        if self._http is not None:  # a concurrent call on this loop opened one first
            await http.aclose()
            return self._http
        self._http, self._loop = http, asyncio.get_running_loop()
        return http

    async def aclose(self) -> None:
        """Close the client (a later call opens a new one)."""
        http, self._http = self._here(), None
        if http is not None:
            await http.aclose()

    def _here(self) -> httpx.AsyncClient | None:
        if self._http is None or self._loop is asyncio.get_running_loop():
            return self._http
        assert self._loop is not None
        if not self._loop.is_closed():
            raise RuntimeError(
                f"The HTTP client of {self.owner} is open on another event loop; make one per loop."
            )
        self._http = None  # its loop has closed, and its connections with it
        return None
