"""bench waits for the server's slots to be idle before it times anything: a server still busy with an
abandoned request (an eval stopped with Ctrl+C) would share its compute with the timed calls."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from backends.adapters import LlamaCppServer
from backends.fleet.bench import Bench, BenchSettings
from workspace.config import Backend, Policy

pytestmark = pytest.mark.timeout(300)


async def busy_slots(backend: Backend) -> int:
    return sum(1 for s in await LlamaCppServer(backend, Policy()).slots() if s.is_processing)


async def test_bench_waits_until_no_slot_is_processing(llama_backend: Backend) -> None:
    body = {
        "messages": [{"role": "user", "content": "Write a long letter about refrigeration."}],
        "max_tokens": 48,
        "ignore_eos": True,
        "cache_prompt": False,
        "temperature": 0.0,
    }

    async def another_client() -> None:
        async with httpx.AsyncClient(timeout=250) as client:
            await client.post(f"{llama_backend.url}/v1/chat/completions", json=body)

    other = asyncio.create_task(another_client())
    deadline = time.monotonic() + 30
    while not await busy_slots(llama_backend):
        assert time.monotonic() < deadline, "the other client's request never started"
        await asyncio.sleep(0.05)
    waits: list[int] = []
    bench = Bench(
        llama_backend, Policy(), None, BenchSettings(lengths=(100,), warmup=0, runs=1, max_tokens=8)
    )
    waited = await bench.wait_for_idle(poll_s=0.1, on_wait=waits.append)
    assert waited > 0 and waits and waits[0] >= 1, "it saw the busy slot and waited for it"
    assert await busy_slots(llama_backend) == 0
    await other


async def test_a_slot_busy_past_the_limit_is_refused_naming_the_backend(llama_backend: Backend) -> None:
    from backends.errors import BackendError

    body = {"messages": [{"role": "user", "content": "Go on."}], "max_tokens": 48, "ignore_eos": True}

    async def another_client() -> None:
        async with httpx.AsyncClient(timeout=250) as client:
            await client.post(f"{llama_backend.url}/v1/chat/completions", json=body)

    other = asyncio.create_task(another_client())
    while not await busy_slots(llama_backend):
        await asyncio.sleep(0.05)
    bench = Bench(llama_backend, Policy(), None, BenchSettings(lengths=(100,), warmup=0, runs=1))
    with pytest.raises(BackendError, match=rf"Backend '{llama_backend.name}' still had 1 busy slot"):
        await bench.wait_for_idle(timeout_s=0.2, poll_s=0.1)
    await other
