"""How much the chambers streaming client costs on top of the stream itself.

Two measurements:

1. Client overhead. A fake SSE server (``tests.support.stream_server.StreamServer``, a stand-in
   that replays llama-server's ``/v1/chat/completions`` chunk format) streams 20,000
   tokens a run as fast as it can, with no sleeps. The same stream is read by a
   bare httpx loop (the floor: ``aiter_lines`` + ``json.loads``) and by
   ``ChatClient.stream()``, alternating, after a warm-up. The difference is what
   chambers adds: the throughput ratio (target >= 0.95) and the added latency per
   token (target < 1 ms). A third row reads the bytes without parsing them, to
   show how much of either is the transport.
2. Client fidelity. A real llama-server with the demo model answers a drafting
   prompt of about 2,000 tokens (max_tokens 256, temperature 0). Does the decode
   rate the client sees match the server's own ``predicted_per_second`` (target
   >= 0.95), and how far does time-to-first-token exceed the server's
   ``prompt_ms`` (target < 50 ms)? (``benchmarks.stream_fidelity``)

Why: the drafting room shows tokens as they arrive and the decode-speed check
compares the observed rate with the backend's ``min_decode_tok_s``. A client
that falls behind the server makes a fast model look slow, and the check then
blames the server. Known traps this guards against:

- parsing every line as JSON breaks on SSE comment pings (``:`` lines), which
  real servers and proxies send; the fake server interleaves one every 200
  tokens, and both clients must survive them;
- checking for disconnects on every token capped other clients at about 11
  frames/s; any per-token work that waits on something shows up here as added
  latency per token and as a client/server decode ratio below 1.

Benchmarks report; they do not fail on noisy machines. Each target prints PASS
or MISS and the exit status is 0 either way. Run from the repo root::

    python -m benchmarks.stream_overhead [--tokens N] [--reps R] [--skip-real]

``$CHAMBERS_LLAMA_SERVER`` may point at an existing llama-server binary;
otherwise ``ensure_llama_server()`` uses its cache (or builds one, which takes
minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

import httpx

from backends.chat import DEFAULT_TIMEOUT, ChatClient, ChatRequest
from backends.events import ContentDelta, Finished
from benchmarks.common import mark
from benchmarks.stream_fidelity import REAL_MAX_TOKENS, measure_real, report_real
from tests.support.stream_server import FAST_TOKENS, PING_EVERY, StreamServer
from workspace.config import Backend, Policy, Sampling

TARGET_RATIO = 0.95
TARGET_ADDED_MS_PER_TOKEN = 1.0


# --------------------------------------------------------------------------------------
# Part 1: client overhead against the fake server


@dataclass
class Run:
    seconds: float
    tokens: int
    text_len: int


async def run_bytes_only(url: str, body: dict[str, Any]) -> Run:
    """The transport floor: httpx reads and de-chunks the body, nothing is parsed."""
    started = time.perf_counter()
    size = 0
    async with (
        httpx.AsyncClient(timeout=DEFAULT_TIMEOUT, trust_env=False) as client,
        client.stream("POST", f"{url}/v1/chat/completions", json=body) as response,
    ):
        response.raise_for_status()
        async for data in response.aiter_bytes():
            size += len(data)
    return Run(time.perf_counter() - started, 0, size)


async def run_bare(url: str, body: dict[str, Any]) -> Run:
    """(a) The bare loop: the least a client can do.

    It is the floor, not a model of a correct client: ``aiter_lines()`` splits on
    every ``str.splitlines()`` boundary (``\x85``, ``\u2028``, ...), which would cut
    a JSON event whose text holds one of them raw. chambers (backends/sse.py)
    splits on ``\r\n``, ``\r`` and ``\n`` only, as the SSE spec says.
    """
    started = time.perf_counter()
    pieces: list[str] = []
    async with (
        httpx.AsyncClient(timeout=DEFAULT_TIMEOUT, trust_env=False) as client,
        client.stream("POST", f"{url}/v1/chat/completions", json=body) as response,
    ):
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue  # blank event separators and ":" comment pings
            data = line[5:].strip()
            if data == "[DONE]":
                break
            chunk = json.loads(data)
            choices = chunk.get("choices")
            if choices:
                piece = (choices[0].get("delta") or {}).get("content")
                if piece:
                    pieces.append(piece)
    return Run(time.perf_counter() - started, len(pieces), len("".join(pieces)))


async def run_chambers(client: ChatClient, request: ChatRequest) -> Run:
    """(b) The chambers client, as the drafting room uses it (audit off)."""
    started = time.perf_counter()
    tokens = 0
    text_len = -1
    async for event in client.stream(request):
        if isinstance(event, ContentDelta):
            tokens += 1
        elif isinstance(event, Finished):
            text_len = len(event.text)
    return Run(time.perf_counter() - started, tokens, text_len)


async def measure_overhead(n_tokens: int, reps: int) -> dict[str, Any]:
    with StreamServer() as server:
        backend = Backend(name="bench-fake", kind="llamacpp", url=server.url)
        chat = ChatClient(backend, Policy(), audit=None)  # one client, reused, as the app does
        request = ChatRequest(
            messages=[
                {"role": "system", "content": "You draft legal memoranda."},
                {"role": "user", "content": "Summarise the facts of the dispute."},
            ],
            sampling=Sampling(temperature=0.0, max_tokens=n_tokens),
        )
        body = chat.build_body(request)  # the bare loop sends exactly what chambers sends
        expected_len = n_tokens * len("tok ")

        runners = {
            "floor": lambda: run_bytes_only(server.url, body),
            "bare": lambda: run_bare(server.url, body),
            "chambers": lambda: run_chambers(chat, request),
        }
        for runner in runners.values():  # warm-up: imports, first connection, /props
            await runner()
        results: dict[str, list[Run]] = {name: [] for name in runners}
        for _ in range(reps):
            for name, runner in runners.items():  # alternate, so drift hits all alike
                gc.collect()
                run = await runner()
                if name != "floor" and (run.tokens != n_tokens or run.text_len != expected_len):
                    raise RuntimeError(
                        f"{name} read {run.tokens} tokens ({run.text_len} chars); "
                        f"expected {n_tokens} ({expected_len} chars)"
                    )
                results[name].append(run)
        await chat.aclose()
    return {"tokens": n_tokens, "reps": reps, "results": results}


def report_overhead(data: dict[str, Any]) -> list[tuple[bool, str]]:
    n_tokens, reps, results = data["tokens"], data["reps"], data["results"]
    labels = {
        "floor": "httpx bytes only (floor)",
        "bare": "(a) bare httpx loop",
        "chambers": "(b) chambers ChatClient",
    }
    print(
        f"\n== 1. Client overhead: fake llama-server stream, {n_tokens:,} tokens a run, "
        f"ping every {PING_EVERY}, {reps} runs each after 1 warm-up =="
    )
    print(f"  {'client':<26} {'median s':>9} {'min s':>8} {'max s':>8} {'tokens/s (median)':>18}")
    medians: dict[str, float] = {}
    for name, label in labels.items():
        times = [r.seconds for r in results[name]]
        medians[name] = statistics.median(times)
        rate = n_tokens / medians[name]
        print(f"  {label:<26} {medians[name]:>9.4f} {min(times):>8.4f} {max(times):>8.4f} {rate:>18,.0f}")
    ratio = medians["bare"] / medians["chambers"]  # (N/t_b) / (N/t_a)
    added_ms = (medians["chambers"] - medians["bare"]) / n_tokens * 1000.0
    ok_ratio = ratio >= TARGET_RATIO
    ok_added = added_ms < TARGET_ADDED_MS_PER_TOKEN
    print(f"  throughput ratio b/a: {ratio:.3f} (target >= {TARGET_RATIO})  {mark(ok_ratio)}")
    print(
        f"  added latency per token: {added_ms * 1000.0:.2f} us = {added_ms:.4f} ms "
        f"(target < {TARGET_ADDED_MS_PER_TOKEN:g} ms)  {mark(ok_added)}"
    )
    return [
        (
            ok_ratio,
            f"fake stream: throughput ratio chambers/bare = {ratio:.3f} (target >= {TARGET_RATIO})",
        ),
        (
            ok_added,
            f"fake stream: added latency per token = {added_ms * 1000.0:.2f} us "
            f"(target < {TARGET_ADDED_MS_PER_TOKEN:g} ms)",
        ),
    ]


# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=FAST_TOKENS, help="tokens per fake-stream run")
    parser.add_argument("--reps", type=int, default=5, help="measured runs per client (fake stream)")
    parser.add_argument("--real-runs", type=int, default=5, help="measured runs against llama-server")
    parser.add_argument("--real-warmups", type=int, default=2, help="warm-up runs against llama-server")
    parser.add_argument("--skip-real", action="store_true", help="skip the real llama-server part")
    args = parser.parse_args(argv)

    python = sys.version.split()[0]
    print(f"chambers stream overhead benchmark (Python {python}, httpx {httpx.__version__})")
    summary = report_overhead(asyncio.run(measure_overhead(args.tokens, args.reps)))
    if not args.skip_real:
        print(
            f"\n== 2. Fidelity: real llama-server, demo model, ~2,000-token drafting prompt, "
            f"max_tokens {REAL_MAX_TOKENS}, temperature 0, {args.real_warmups} warm-ups, "
            f"{args.real_runs} runs ==",
            flush=True,
        )
        summary += report_real(measure_real(args.real_warmups, args.real_runs))

    print("\n== Summary ==")
    for ok, line in summary:
        print(f"  [{mark(ok)}] {line}")
    return 0  # a benchmark reports; it does not fail


if __name__ == "__main__":
    sys.exit(main())
