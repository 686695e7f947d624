"""The support check's speed: a 20-page brief of 100 citations on a real llama-server with 4 slots.

Three figures, each against a baseline measured in the same run:

- chambers' time outside model calls, as a share of the run (extraction, pairing, the judgement's
  span checks, the audit trail, the stored pairs): the run's wall time in which no model call was in
  flight, from the audit trail's own start and finish of every call (target < 5%);
- the total decode rate of the support check on the server's 4 slots against the server's own at
  that concurrency: the very requests the check sent (read back from its audit trail), replayed
  four at a time straight to a second server, started and warmed as the first was (the first holds
  the check's prompts in its cache), with no chambers in between (target within 0.9x);
- the locator alone, in CPU seconds, for a brief of 100 citations spread over a 100-opinion
  library (the wide corpus), against the verifier's extraction of the same brief (target < 1 s).

The keyed set's claims (tests/support_keyed) are the brief's: cycled to the number of citations,
each with a sentence of argument after it, so the brief runs to about 20 pages (275 words a page).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from drafting.support.judge import NO_EVIDENCE, judge_pairs
from drafting.support.pairs import pair_citations
from drafting.support.paragraphs import paragraphs_of
from drafting.support.store import save_pairs
from drafting.verify.authorities import Opinion
from drafting.verify.verifier import extract, load_library
from workspace.audit import AuditLog, AuditRecord
from workspace.config import Backend, Config, Policy, Sampling

SLOTS = 4
WORDS_A_PAGE = 275
CLAIM_WORDS = 40
OVERHEAD_TARGET, DECODE_TARGET, LOCATOR_CPU_TARGET = 0.05, 0.9, 1.0
WIDE_OPINIONS = Path("/work/corpus_wide/opinions")
ARGUMENT = "That holding governs here, where the record shows the same events and the same conduct."


def brief(items: list[dict[str, Any]], citations: int) -> str:
    """The keyed claims, cycled to ``citations``, each followed by a sentence of argument."""
    chosen = [items[n % len(items)] for n in range(citations)]
    return "\n\n".join(f"{i['claim']}. See {i['cite']}. {ARGUMENT}" for i in chosen) + "\n"


def pages_of(text: str) -> float:
    return len(text.split()) / WORDS_A_PAGE


class TimedAudit(AuditLog):
    """The real audit trail, which also keeps each call's start, finish and decoded tokens in memory."""

    def __init__(self, database_file: Path) -> None:
        super().__init__(database_file)
        self.calls: list[AuditRecord] = []

    def record(self, rec: AuditRecord) -> int:
        self.calls.append(rec)
        return super().record(rec)

    def spans(self) -> list[tuple[float, float]]:
        return [
            (
                datetime.fromisoformat(r.started_at).timestamp(),
                datetime.fromisoformat(r.finished_at).timestamp(),
            )
            for r in self.calls
            if r.finished_at
        ]

    def tokens(self) -> int:
        return sum(_decoded({"usage": r.usage, "timings": r.timings}) for r in self.calls)


def covered(spans: list[tuple[float, float]], low: float, high: float) -> float:
    """Seconds of [low, high] in which at least one span was open."""
    total, reach = 0.0, low
    for start, end in sorted(spans):
        start, end = max(start, reach), min(end, high)
        if end > start:
            total += end - start
            reach = end
    return total


@dataclass
class CheckRun:
    wall: float
    outside_calls: float
    tokens: int
    calls: int
    no_evidence: int
    errors: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)  # what was sent, to replay


def backend(url: str, max_tokens: int) -> tuple[Backend, Config]:
    chosen = Backend(
        name="reviewer",
        kind="llamacpp",
        url=url,
        roles=("reviewer", "support"),
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=max_tokens),
    )
    return chosen, Config(file="benchmark", policy=Policy(), boards=(), backends=(chosen,))


def run_check(
    db: Path, matter: str, draft: str, library: Any, record: Any, url: str, max_tokens: int
) -> CheckRun:
    """The support check as ``verify --support`` runs it: extract, pair, judge on every slot, store."""
    chosen, config = backend(url, max_tokens)
    audit = TimedAudit(db)
    low = time.time()
    found = extract(draft, record.prefixes, library.opinions)
    pairs = pair_citations(draft, found, library.opinions, record)
    asked = [(p.claim, p.passage) for p in pairs]
    judgements = asyncio.run(judge_pairs(asked, chosen, config, slots=SLOTS, audit=audit))
    stored = [{**p.to_json(), "judgement": j.to_json()} for p, j in zip(pairs, judgements, strict=True)]
    save_pairs(db, matter, "benchmark", stored)
    high = time.time()
    wall = high - low
    requests = [{**r.request, "messages": r.messages} for r in audit.calls if r.outcome == "completed"]
    return CheckRun(
        wall,
        wall - covered(audit.spans(), low, high),
        audit.tokens(),
        len(audit.calls),
        sum(j.label == NO_EVIDENCE for j in judgements),
        sorted({j.error for j in judgements if j.error}),
        requests,
    )


async def replay(url: str, requests: list[dict[str, Any]]) -> tuple[float, int]:
    """The same requests, streamed as they were sent, straight to the server ``SLOTS`` at a time:
    (seconds, tokens decoded)."""
    gate = asyncio.Semaphore(SLOTS)
    tokens = 0
    # A connection per streamed answer, as chambers' chat client sends them (its llama.cpp adapter's
    # STREAM_HEADERS): llama-server closes the connection when a streamed answer ends, though its
    # headers offer keep-alive, so a pooled connection reused after it fails mid-replay.
    async with httpx.AsyncClient(timeout=600, headers={"Connection": "close"}) as client:

        async def one(body: dict[str, Any]) -> None:
            nonlocal tokens
            async with gate, client.stream("POST", url + "/v1/chat/completions", json=body) as answer:
                answer.raise_for_status()
                decoded = 0
                async for line in answer.aiter_lines():
                    if line.startswith("data: {"):
                        decoded = _decoded(json.loads(line[6:])) or decoded
                tokens += decoded

        start = time.perf_counter()
        await asyncio.gather(*(one(b) for b in requests))
        return time.perf_counter() - start, tokens


def _decoded(event: dict[str, Any]) -> int:
    """Tokens decoded, as the server says on its last chunk (usage, or llama-server's timings)."""
    usage, timings = event.get("usage") or {}, event.get("timings") or {}
    return int(usage.get("completion_tokens") or timings.get("predicted_n") or 0)


def print_speed(
    check: CheckRun, raw_wall: float, raw_tokens: int, say: Callable[[str], None] = print
) -> None:
    share = check.outside_calls / check.wall if check.wall else float("nan")
    say(
        f"  chambers outside model calls: {check.outside_calls:.2f} s of {check.wall:.1f} s = {share:.2%} "
        f"(target < {OVERHEAD_TARGET:.0%}: {'PASS' if share < OVERHEAD_TARGET else 'MISS'})"
    )
    ours = check.tokens / check.wall if check.wall else 0.0
    theirs = raw_tokens / raw_wall if raw_wall else 0.0
    ratio = ours / theirs if theirs else float("nan")
    say(
        f"  decode rate on {SLOTS} slots, the support check over the server's own for the same requests: "
        f"{ratio:.2f}x ({ours:.1f} vs {theirs:.1f} tok/s; {check.tokens} vs {raw_tokens} tokens, "
        f"{check.wall:.1f} vs {raw_wall:.1f} s) (target >= {DECODE_TARGET}x: "
        f"{'PASS' if ratio >= DECODE_TARGET else 'MISS'})"
    )
    say(f"  {check.calls} model calls; {check.no_evidence} answers shown as '{NO_EVIDENCE}'")
    for error in check.errors[:3]:
        say(f"  a call failed: {error}")


def wide_brief(opinions: dict[str, Opinion], citations: int) -> str:
    """One citation of each opinion in turn, pinned to one of its pages, with words of that page as the claim."""
    distinct = list({id(o): (key, o) for key, o in opinions.items()}.values())
    usable = [
        (key, o, [p for p in paragraphs_of(o, key) if p.page is not None and _plain(p.text)])
        for key, o in distinct
    ]
    usable = [u for u in usable if u[2]]
    lines: list[str] = []
    turn = 0
    while len(lines) < citations and usable:
        for key, opinion, paragraphs in usable[: citations - len(lines)]:
            chosen = paragraphs[(turn * 7) % len(paragraphs)]
            claim = " ".join(_plain(chosen.text)[:CLAIM_WORDS])
            year = opinion.year or "2000"
            lines.append(
                f"{claim}. See {_case_name(opinion)}, {key}, {chosen.page} ({year}). That rule governs here."
            )
        turn += 1
    return "\n\n".join(lines) + "\n"


def _plain(text: str) -> list[str]:
    """A paragraph's words where there are enough and none has a digit: a claim that cites nothing itself."""
    words = [w for w in (w.strip(".,;:()[]") for w in text.split()) if w]
    head = words[:CLAIM_WORDS]
    return words if len(head) == CLAIM_WORDS and not any(c.isdigit() for w in head for c in w) else []


def _case_name(opinion: Opinion) -> str:
    """A short case name the extractor reads as one ("Baron v. Commissioner"), from the caption's words."""
    words = [w.strip(".,;:()") for w in opinion.caption.split() if w[:1].isalpha() and len(w) > 3]
    first = words[0].capitalize() if words else "Doe"
    return f"{first} v. State"


def locator_cpu(
    database_file: Path, library_name: str, citations: int, say: Callable[[str], None] = print
) -> None:
    """The locator alone, CPU seconds, for ``citations`` citations spread over the whole library."""
    library = load_library(database_file, library_name)
    distinct = len({id(o) for o in library.opinions.values()})
    draft = wide_brief(library.opinions, citations)
    library = load_library(database_file, library_name)  # cold again: the brief's making read every opinion
    start = time.process_time()
    found = extract(draft, frozenset(), library.opinions)
    extract_cpu = time.process_time() - start
    start = time.process_time()
    pairs = pair_citations(draft, found, library.opinions, None)
    cpu = time.process_time() - start
    with_passage = sum(bool(p.passage) for p in pairs)
    cited = len({p.source for p in pairs if p.source})
    say(
        f"  locator alone: {cpu:.3f} s CPU for {len(pairs)} citations ({with_passage} with a passage) of "
        f"{cited} opinions, in a "
        f"library of {distinct} indexed opinions ({pages_of(draft):.0f}-page brief): {cpu / max(extract_cpu, 1e-9):.2f}x "
        f"the verifier's extraction of the same brief (target < {LOCATOR_CPU_TARGET:g} s: "
        f"{'PASS' if cpu < LOCATOR_CPU_TARGET else 'MISS'})"
    )
