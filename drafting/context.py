"""Which pages of the matter the drafter is given: one builder for a run and for its preview.

A run and ``chambers evidence context`` (the preview) both come here, so they choose the same pages:
the same window (the drafter's ``/props``, capped, or an assumed size where the server cannot say),
the same room kept for the answer, and the same token counter (the drafter's own ``/tokenize``
where its server has one, else the evidence room's labelled estimate). Each chosen page becomes a
``ContextSource`` that keeps the message and the span of that message that carries it.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from pathlib import Path

from backends.adapter_base import NATIVE_TIMEOUT
from backends.adapters import adapter_class, adapter_for
from backends.endpoint import Endpoint, async_client
from backends.errors import BackendError, PolicyRefusal
from drafting.runs import ContextSource
from evidence.context import ContextBundle, build_context, source_spans
from workspace.config import Backend, Policy
from workspace.errors import ChambersError

ASSUMED_N_CTX = 4096  # when the drafter's server cannot say (Ollama, or /props unavailable)
RESERVE_TOKENS = 1024  # room kept in the window for the answer


class CountingStopped(ChambersError):
    title = "Choosing the evidence was cancelled"


@dataclass(frozen=True)
class WindowRule:
    """How big the drafter's window is taken to be, and how much of it the answer keeps."""

    cap: int | None = None  # the window is never taken as bigger than this
    assumed_n_ctx: int = ASSUMED_N_CTX
    reserve_tokens: int = RESERVE_TOKENS

    def reserve_for(self, window: int) -> int:
        """The answer's room: ``reserve_tokens``, but never more than half the window."""
        return min(self.reserve_tokens, window // 2)


@dataclass(frozen=True)
class DrafterContext:
    bundle: ContextBundle  # the pages, the messages and how they were counted
    sources: list[ContextSource]  # the pages as the run keeps them, each with the span that carries it
    note: str  # the window, the count and what was left out, in words


async def choose_context(
    database_file: Path,
    matter: str,
    task: str,
    *,
    drafter: Backend | None,
    policy: Policy,
    rule: WindowRule,
    query: str | None = None,
    reserve: int | None = None,
) -> DrafterContext:
    """The pages the drafter ``drafter`` is given for ``task`` over ``matter`` (None: no drafter configured).

    ``reserve``: the answer's room in tokens, where the caller names it; None follows ``rule``.
    The database is read in a worker thread; the event loop stays free.
    """
    window, note, can_count = await _window(drafter, policy, rule)
    keep = rule.reserve_for(window) if reserve is None else reserve

    async def build(counter: _ServerCounter | None) -> ContextBundle:
        return await asyncio.to_thread(
            build_context,
            database_file,
            matter,
            task,
            n_ctx=window,
            query=query,
            reserve_for_answer=keep,
            count_tokens=counter,
            counter_name=f"{drafter.name} /tokenize" if drafter else "",
        )

    bundle = None
    if drafter is not None and can_count:
        # Made in a worker thread: it resolves the drafter's name, which must not hold up the loop.
        counter = await asyncio.to_thread(_ServerCounter, drafter, policy, asyncio.get_running_loop())
        try:
            bundle = await build(counter)
        except (BackendError, PolicyRefusal) as exc:
            note += f"; estimated, because the drafter's /tokenize failed ({exc.title})"
        except asyncio.CancelledError:
            counter.stop.set()
            raise
        finally:
            await counter.close()
    if bundle is None:
        bundle = await build(None)
    sources = [
        ContextSource(
            c.label,
            c.provenance.path,
            c.provenance.part,
            c.provenance.page_no,
            c.provenance.bates,
            c.provenance.sha256,
            c.text,
            message,
            start,
            end,
        )
        for c, (message, start, end) in zip(bundle.chunks, source_spans(bundle.chunks), strict=True)
    ]
    note += (
        f"; {len(sources)} pages chosen, {bundle.tokens} of {bundle.budget} tokens ({bundle.counted_by}); "
        f"{bundle.left_out} relevant pages did not fit; {len(bundle.refused)} refused as not primary"
    )
    return DrafterContext(bundle, sources, note)


async def _window(drafter: Backend | None, policy: Policy, rule: WindowRule) -> tuple[int, str, bool]:
    """(the window in tokens, how it was found, whether the drafter's server can count tokens).

    A server that counts tokens (llama-server) also says its window; one that does not (Ollama says
    it only while the model is loaded) is given the assumed window and the estimate.
    """
    window, note, can_count = rule.assumed_n_ctx, f"window {rule.assumed_n_ctx} tokens assumed", False
    if drafter is not None and adapter_class(drafter.kind).COUNTS_TOKENS:
        try:
            identity = await adapter_for(drafter, policy).identity()
            can_count = True
            if identity.n_ctx:
                window, note = identity.n_ctx, f"window {identity.n_ctx} tokens (the drafter's /props)"
        except (BackendError, PolicyRefusal) as exc:
            note = f"window {window} tokens assumed: the drafter's /props was unavailable ({exc.title})"
    if rule.cap is not None and rule.cap < window:
        window, note = rule.cap, f"{note}, capped at {rule.cap}"
    return window, note, can_count


class _ServerCounter:
    """The drafter's ``/tokenize`` as the plain function the evidence room counts with.

    The evidence room counts from a worker thread; each count is sent on the event loop that started
    the build, over one pooled connection, and the thread waits for it.
    """

    def __init__(self, drafter: Backend, policy: Policy, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.stop = threading.Event()  # set when the build is cancelled: the next count stops it
        self.http = async_client(NATIVE_TIMEOUT)
        checked = Endpoint.for_backend(drafter, policy).check()
        self.server = adapter_for(drafter, policy, http=self.http, checked=checked)

    def __call__(self, text: str) -> int:
        if self.stop.is_set():
            raise CountingStopped("The run was cancelled while its evidence was being chosen.")
        return asyncio.run_coroutine_threadsafe(self.server.count_tokens(text), self.loop).result()

    async def close(self) -> None:
        await self.http.aclose()
