"""How faithfully the chambers streaming client sees a real llama-server's stream.

A real llama-server with the demo model answers a drafting prompt of about 2,000
tokens (max_tokens 256, temperature 0). Does the decode rate the client sees
match the server's own ``predicted_per_second`` (target >= 0.95), and how far
does time-to-first-token exceed the server's ``prompt_ms`` (target < 50 ms)? A
bare httpx loop on a reused client gives the same gap for reference: what is
left of it is the server's work outside ``prompt_ms`` and the loopback trip.

``benchmarks.stream_overhead`` runs this as its second part.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import dataclass
from typing import Any

import httpx

from backends.chat import DEFAULT_TIMEOUT, ChatClient, ChatRequest
from backends.events import ContentDelta, Finished, Timings
from benchmarks.common import mark
from workspace.config import Backend, Policy, Sampling

TARGET_DECODE_RATIO = 0.95
TARGET_TTFT_GAP_MS = 50.0
REAL_SERVER_ARGS = ("--metrics", "--slots", "--jinja", "-np", "2")
REAL_MAX_TOKENS = 256


_PARTIES = [
    ("Harrow Logistics Ltd", "Blakemore Components plc"),
    ("Northgate Facilities LLP", "Caldera Systems Inc."),
    ("Ferris & Lowe Builders", "Ostrander Steel Supply"),
]
_FACT_TEMPLATES = [
    "On {date}, {buyer} (the Buyer) and {seller} (the Seller) signed a supply agreement under "
    "which the Seller undertook to deliver {qty} units of model {model} control assemblies in "
    "monthly instalments, at a unit price of {price}, with delivery to the Buyer's warehouse in "
    "{city}. Clause 4.2 made time of delivery of the essence, and clause 9 capped either party's "
    "liability at the price paid in the preceding twelve months, save for fraud or wilful default.",
    "The first two instalments arrived on time. The third, due on {date}, arrived nineteen days "
    "late, and {defects} of its units failed the Buyer's incoming inspection because the housings "
    "were cracked. The Buyer's quality manager, Ms {person}, wrote to the Seller the same week, "
    "listing the serial numbers and asking for replacements within ten working days under "
    "clause 7.3. The Seller acknowledged the letter but did not replace the units.",
    "The Buyer says it lost a downstream contract worth {loss} with a hospital group because it "
    "could not fit the assemblies in time. The Seller says the cracks were caused by the Buyer's "
    "own forklift handling, points to photographs taken by its driver at delivery, and argues "
    "that clause 9 limits any claim to the price of the defective units. Neither side has yet "
    "instructed an independent expert, and the photographs carry no reliable timestamps.",
    "On {date}, the Buyer withheld payment of {withheld} on the fourth invoice, citing a right of "
    "set-off under clause 11. The Seller treated the non-payment as a repudiatory breach, "
    "suspended all further deliveries, and issued a statutory demand. The Buyer disputes the "
    "demand on the ground that the debt is genuinely disputed on substantial grounds, and has "
    "asked us whether an injunction restraining presentation of a winding-up petition is needed.",
    "The correspondence file holds {emails} emails between the commercial teams. In one, dated "
    "{date}, the Seller's account manager, Mr {person}, wrote that the plant had 'known issues "
    "with the moulding line this quarter' and that he would 'make it right on the next run'. The "
    "Seller's solicitors say this was a courtesy and not an admission, and that the account "
    "manager had no authority to vary the agreement under clause 15 (entire agreement; variations "
    "only in writing signed by a director).",
]
_DATES = ["3 March 2023", "14 April 2023", "2 June 2023", "21 July 2023", "9 October 2023"]
_PEOPLE = ["Okafor", "Lindqvist", "Brennan", "Marchetti", "Haddad"]
_CITIES = ["Leeds", "Rotterdam", "Columbus", "Lyon"]


def drafting_messages(case_no: int, paragraphs: int = 15) -> list[dict[str, str]]:
    """A plausible drafting prompt of about 2,000 tokens (SmolLM2 tokenizer).

    The case number comes first, in the system message, so that each run's prompt
    differs from the previous ones from its first tokens on. ChatRequest has no
    ``cache_prompt`` field, and llama-server reuses the longest cached prefix of a
    slot; without this, runs after the first would prefill almost nothing and
    ``prompt_ms`` would be tiny.
    """
    facts = []
    for i in range(paragraphs):
        buyer, seller = _PARTIES[i % len(_PARTIES)]
        facts.append(
            f"{i + 1}. "
            + _FACT_TEMPLATES[i % len(_FACT_TEMPLATES)].format(
                date=_DATES[(i + case_no) % len(_DATES)],
                buyer=buyer,
                seller=seller,
                qty=1200 + 150 * i,
                model=f"KX-{40 + i}",
                price=f"GBP {18 + i}.50",
                city=_CITIES[i % len(_CITIES)],
                defects=30 + 7 * i,
                person=_PEOPLE[(i + case_no) % len(_PEOPLE)],
                loss=f"GBP {240 + 35 * i},000",
                withheld=f"GBP {61 + 4 * i},250",
                emails=140 + 11 * i,
            )
        )
    system = (
        f"Matter {case_no:05d}-CV. You are a careful drafting assistant in a commercial litigation "
        "practice. Write in plain, precise English, cite the clauses you rely on, and never invent "
        "facts that are not in the instructions."
    )
    user = (
        "Below are the facts of a contract dispute, as set out in our client's instructions.\n\n"
        + "\n\n".join(facts)
        + "\n\nDraft the opening section of an internal memorandum to the supervising partner: "
        "summarise the dispute, identify the three strongest points for our client (the Buyer), "
        "and list the documents we still need."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


@dataclass
class RealRun:
    ttft_ms: float
    first_to_last_s: float
    n_deltas: int
    timings: Timings

    @property
    def client_rate(self) -> float:
        return (self.n_deltas - 1) / self.first_to_last_s if self.first_to_last_s > 0 else 0.0

    @property
    def decode_ratio(self) -> float:
        server = self.timings.predicted_per_second
        return self.client_rate / server if server > 0 else 0.0

    @property
    def ttft_gap_ms(self) -> float:
        return self.ttft_ms - self.timings.prompt_ms


async def real_run(client: ChatClient, case_no: int) -> RealRun:
    request = ChatRequest(
        messages=drafting_messages(case_no),
        sampling=Sampling(temperature=0.0, max_tokens=REAL_MAX_TOKENS, seed=1),
    )
    t_first = t_last = None
    n_deltas = 0
    timings: Timings | None = None
    started = time.perf_counter()
    async for event in client.stream(request):
        if isinstance(event, ContentDelta):
            now = time.perf_counter()
            if t_first is None:
                t_first = now
            t_last = now
            n_deltas += 1
        elif isinstance(event, Finished):
            timings = event.timings
    if t_first is None or t_last is None or timings is None:
        raise RuntimeError("llama-server sent no content or no timings")
    return RealRun((t_first - started) * 1000.0, t_last - t_first, n_deltas, timings)


async def bare_ttft_gap_ms(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> float:
    """TTFT - prompt_ms for the floor: a bare loop on a reused httpx client.

    What is left is the server's own work outside ``prompt_ms`` (templating and
    tokenizing the prompt, picking a slot) plus the loopback round trip; the part
    of chambers' gap above this is the client's.
    """
    started = time.perf_counter()
    ttft_ms: float | None = None
    prompt_ms: float | None = None
    async with client.stream("POST", f"{url}/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            chunk = json.loads(data)
            choices = chunk.get("choices")
            if ttft_ms is None and choices and (choices[0].get("delta") or {}).get("content"):
                ttft_ms = (time.perf_counter() - started) * 1000.0
            if "timings" in chunk:
                prompt_ms = float(chunk["timings"].get("prompt_ms", 0.0))
    if ttft_ms is None or prompt_ms is None:
        raise RuntimeError("llama-server sent no content or no timings to the bare loop")
    return ttft_ms - prompt_ms


async def new_client_ms(samples: int = 7) -> float:
    """Median cost of opening and closing an httpx.AsyncClient, as a ChatClient does once
    (with chambers' shared TLS context; without it each new client costs ~20 ms more)."""
    from backends.endpoint import tls_context as _tls_context

    times = []
    for _ in range(samples):
        started = time.perf_counter()
        async with httpx.AsyncClient(timeout=DEFAULT_TIMEOUT, trust_env=False, verify=_tls_context()):
            pass
        times.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(times)


@dataclass
class RealResult:
    runs: list[RealRun]
    bare_gaps_ms: list[float]
    new_client_ms: float


def measure_real(warmups: int, runs: int) -> RealResult | str:
    """Runs against a real llama-server, or the reason they could not happen."""
    from backends.local_server import LlamaServerProcess, ensure_demo_model, ensure_llama_server
    from workspace.errors import ChambersError

    def progress(message: str) -> None:
        print(f"  .. {message}", flush=True)

    try:
        binary = ensure_llama_server(progress)
        model = ensure_demo_model(progress)
        print(f"  llama-server: {binary}\n  model: {model}", flush=True)
        with LlamaServerProcess(binary, model, extra_args=REAL_SERVER_ARGS) as server:
            backend = Backend(name="bench-llama", kind="llamacpp", url=server.url)
            chat = ChatClient(backend, Policy(), audit=None)

            def bare_body(case_no: int) -> dict[str, Any]:
                # Only TTFT matters for the reference, so a short answer saves time.
                sampling = Sampling(temperature=0.0, max_tokens=8, seed=1)
                return chat.build_body(ChatRequest(drafting_messages(case_no), sampling))

            async def go() -> RealResult:
                async with httpx.AsyncClient(timeout=DEFAULT_TIMEOUT, trust_env=False) as bare:
                    for i in range(warmups):
                        await real_run(chat, 90_000 + i)
                    await bare_ttft_gap_ms(bare, server.url, bare_body(95_000))
                    measured, bare_gaps = [], []
                    for i in range(runs):  # alternate; every prompt is new to the server
                        measured.append(await real_run(chat, 10_000 + i))
                        bare_gaps.append(await bare_ttft_gap_ms(bare, server.url, bare_body(20_000 + i)))
                await chat.aclose()
                return RealResult(measured, bare_gaps, await new_client_ms())

            return asyncio.run(go())
    except (ChambersError, OSError, RuntimeError) as exc:
        return f"{type(exc).__name__}: {exc}"


def report_real(data: RealResult | str) -> list[tuple[bool, str]]:
    if isinstance(data, str):
        print(f"  SKIPPED: {data}")
        return []
    result = data.runs
    print(
        f"  {'run':>3} {'prompt_n':>8} {'cache_n':>7} {'prompt_ms':>9} {'ttft_ms':>8} "
        f"{'gap_ms':>7} "
        f"{'deltas':>6} {'pred_n':>6} {'client tok/s':>12} {'server tok/s':>12} {'ratio':>6}"
    )
    for i, r in enumerate(result, 1):
        t = r.timings
        print(
            f"  {i:>3} {t.prompt_n:>8} {t.cache_n:>7} {t.prompt_ms:>9.1f} {r.ttft_ms:>8.1f} "
            f"{r.ttft_gap_ms:>7.1f} {r.n_deltas:>6} {t.predicted_n:>6} {r.client_rate:>12.1f} "
            f"{t.predicted_per_second:>12.1f} {r.decode_ratio:>6.3f}"
        )
    ratios = [r.decode_ratio for r in result]
    gaps = [r.ttft_gap_ms for r in result]
    ok_ratio = statistics.mean(ratios) >= TARGET_DECODE_RATIO
    ok_gap = statistics.mean(gaps) < TARGET_TTFT_GAP_MS
    ratio_text = f"min {min(ratios):.3f} / mean {statistics.mean(ratios):.3f} / max {max(ratios):.3f}"
    gap_text = f"min {min(gaps):.1f} / mean {statistics.mean(gaps):.1f} / max {max(gaps):.1f} ms"
    print(f"  client decode / server predicted_per_second: {ratio_text}  {mark(ok_ratio)}")
    print(f"  time-to-first-token - server prompt_ms:      {gap_text}  {mark(ok_gap)}")
    bare = data.bare_gaps_ms
    print(
        f"    for reference, the same gap for a bare httpx loop on a reused client: "
        f"min {min(bare):.1f} / mean {statistics.mean(bare):.1f} / max {max(bare):.1f} ms"
    )
    share = statistics.mean(gaps) - statistics.mean(bare)
    print(f"    so chambers' own share is about {share:.1f} ms; opening a new httpx.AsyncClient, which a")
    print(f"    ChatClient does once (its calls share it), costs {data.new_client_ms:.1f} ms by itself")
    return [
        (
            ok_ratio,
            f"real server: client/server decode rate {ratio_text} (target mean >= {TARGET_DECODE_RATIO})",
        ),
        (
            ok_gap,
            f"real server: TTFT - prompt_ms {gap_text} (target mean < {TARGET_TTFT_GAP_MS:g} ms)",
        ),
    ]
