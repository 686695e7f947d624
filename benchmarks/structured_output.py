"""Schema-constrained JSON against free decoding of the same length, on the same llama-server, in one run.

The constrained side is the gate's request exactly as chambers builds it (its messages from
``drafting.stages``, its schema, the pipeline's JSON-stage sampling over the demo backend's drafting
sampling) sent by chambers' own client; the free side is the same messages with no schema, held to
the same number of tokens (``ignore_eos``). Both speeds are the server's own decode figures
(``predicted_ms`` per token), taken in turns so a noisy neighbour slows both alike. Target: the
constrained answer decodes at no less than 0.7x the free rate.

Then, for the record, what makes constrained decoding slow in llama.cpp: it samples a token first and
checks only that one against the grammar; when the grammar refuses it, it runs the grammar over the
whole vocabulary and samples again. A logit bias that makes the model want a newline inside a JSON
string (where the grammar refuses it) forces that path at every token, with the strings bounded by
maxLength (as chambers' schemas are) and unbounded.

The server runs one decoding thread: on a machine whose cores are shared (this benchmark's own
client, other work), a pool of spinning threads measures the contention, not the decoding.

    python -m benchmarks.structured_output [--runs N] [--tokens N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from backends.chat import ChatClient, ChatRequest
from backends.events import Finished
from backends.local_server import LlamaServerProcess, ensure_demo_model, ensure_llama_server
from benchmarks.common import DOMAIN_WORDS, FUNCTION_WORDS
from drafting.pipeline import Pipeline
from drafting.runs import ContextSource, Run
from drafting.stages import gate
from drafting.tasks import GATE
from drafting.wiring import wire
from tui.demo import demo_config
from workspace.config import Sampling

TARGET = 0.7
SERVER_ARGS = ("--jinja", "-np", "1", "-t", "1")
NEWLINE_WANTED = {"logit_bias": [["\n", 30.0], ['"', -30.0]]}  # a newline refused inside every string


def gate_run(sources: int = 8, words: int = 70) -> Run:
    """A demand-letter run with numbered, Bates-stamped sources, as the gate is given them."""
    rng = random.Random(7)
    vocabulary = DOMAIN_WORDS + FUNCTION_WORDS
    chunks = [
        ContextSource(
            f"S{i}",
            f"production/doc-{i}.pdf",
            "",
            i,
            f"HPP-{i:06d}",
            "0" * 64,
            " ".join(rng.choice(vocabulary) for _ in range(words)),
        )
        for i in range(1, sources + 1)
    ]
    ask = "Demand that Calder pay for the spoiled stock and the late freezer, within 14 days."
    return Run(
        1,
        "2026-11-30T09:00:00Z",
        "harbor-point",
        "demand_letter",
        ask,
        "drafter",
        [],
        "created",
        sources=chunks,
    )


def decode_ms(finished: Finished) -> tuple[int, float]:
    timings = finished.timings
    if timings is None or timings.predicted_n <= 0:
        raise SystemExit("the server reported no timings; is it a llama-server?")
    return timings.predicted_n, timings.predicted_ms / timings.predicted_n


async def measure(
    client: ChatClient,
    messages: list[dict[str, Any]],
    sampling: Sampling,
    schema: dict[str, Any] | None,
    extra: dict[str, Any],
    seed: int,
) -> tuple[int, float, str]:
    request = ChatRequest(messages, sampling=sampling, extra={"seed": seed, **extra})
    request.json_schema = schema
    finished = await client.complete(request, role="gate")
    n, ms = decode_ms(finished)
    return n, ms, finished.text


async def main(runs: int, tokens: int) -> None:
    binary, model = ensure_llama_server(print), ensure_demo_model(print)
    with (
        tempfile.TemporaryDirectory() as tmp,
        LlamaServerProcess(binary, model, extra_args=SERVER_ARGS) as server,
    ):
        config = demo_config(server.url, "benchmark")
        backend = config.backends[0]
        pipe = Pipeline(wire(config, Path(tmp) / "chambers.sqlite3"))
        sampling = pipe.json_sampling(backend, GATE)
        messages = gate.STAGE.messages(gate_run(), None)
        schema = pipe.json_schema(GATE)
        client = ChatClient(backend, config.policy, None)
        print(
            f"llama-server {server.url}, demo model, 1 thread; gate prompt and schema as chambers sends them"
        )
        print(
            f"JSON-stage sampling sent: {sampling.as_dict()} over the backend's {backend.sampling.as_dict()}"
        )
        await measure(client, messages, sampling, schema, {}, 0)  # warm-up: the prompt enters the cache

        constrained: list[float] = []
        free: list[float] = []
        lengths: list[int] = []
        for seed in range(runs):
            n, ms, text = await measure(client, messages, sampling, schema, {}, seed)
            same = Sampling(max_tokens=n, repeat_penalty=sampling.repeat_penalty)
            n_free, ms_free, _ = await measure(client, messages, same, None, {"ignore_eos": True}, seed)
            constrained.append(ms)
            free.append(ms_free)
            lengths.append(n)
            print(
                f"  run {seed + 1}: JSON {n} tok at {1000 / ms:.1f} tok/s; free {n_free} tok at "
                f"{1000 / ms_free:.1f} tok/s   {text[:60]!r}"
            )
        ratio = statistics.median(free) / statistics.median(constrained)
        print(
            f"gate JSON, median {statistics.median(lengths):.0f} tok: {1000 / statistics.median(constrained):.1f} "
            f"tok/s against free decoding of the same length at {1000 / statistics.median(free):.1f} tok/s: "
            f"{ratio:.2f}x (target >= {TARGET}x) {'PASS' if ratio >= TARGET else 'MISS'}"
        )

        print(
            "\nWhat a refused token costs (a newline wanted inside every string, so each token is refused):"
        )
        bounded = {
            "type": "object",
            "properties": {"a": {"type": "string", "maxLength": 240}},
            "required": ["a"],
        }
        unbounded = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
        held = Sampling(max_tokens=tokens, temperature=0.0)
        rows: dict[str, list[float]] = {"free": [], "maxLength 240": [], "unbounded": []}
        for seed in range(runs):
            rows["free"].append((await measure(client, messages, held, None, {"ignore_eos": True}, seed))[1])
            for name, shape in (("maxLength 240", bounded), ("unbounded", unbounded)):
                rows[name].append((await measure(client, messages, held, shape, NEWLINE_WANTED, seed))[1])
        base = statistics.median(rows["free"])
        for name, values in rows.items():
            ms = statistics.median(values)
            extra = f", {ms - base:+.0f} ms a token for the whole-vocabulary pass" if name != "free" else ""
            print(f"  {name:<14} {ms:6.1f} ms a token ({1000 / ms:.1f} tok/s){extra}")
        await client.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=60, help="tokens held for the refused-token rows")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.tokens))
