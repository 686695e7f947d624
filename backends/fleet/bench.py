"""``chambers bench``: prefill (PP) and generation (TG) speed as the field measures it.

Per backend and prompt length (about 500, 4k and 16k tokens by default, each
capped by the server's context), a few warm-up calls are made first (the first
runs fluctuate), then N counted runs. Speeds are the server's own ``timings``,
not wall-clock guesses. Every call goes through ``ChatClient`` so it lands in
the audit trail like any other model call. Results are appended to a list the
caller owns as each run finishes, so an interrupted bench keeps what it has.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from backends.adapters import adapter_class, adapter_for
from backends.chat import ChatClient, ChatRequest
from backends.errors import BackendError
from backends.fleet.bench_prompts import CHARS_PER_TOKEN, drafting_prompt
from workspace.audit import AuditLog
from workspace.config import Backend, Policy, Sampling

DEFAULT_LENGTHS = (500, 4000, 16000)
CONTEXT_MARGIN = 96  # chat template and the answer's first tokens
IDLE_TIMEOUT_S = 180.0  # an abandoned long prompt on a slow server can take minutes to read
# llama-server looks for a client that went away only after a second in which no task's answer came (a
# /slots answer counts): polled faster than that, the server would never notice the abandoned request
# this waits on, and would read its prompt to the end.
IDLE_POLL_S = 2.5
UNKNOWN_CTX = 4096  # Ollama's usual default; a longer prompt would be silently truncated


@dataclass(frozen=True)
class BenchSettings:
    lengths: tuple[int, ...] = DEFAULT_LENGTHS
    warmup: int = 3
    runs: int = 10
    max_tokens: int = 128


@dataclass(frozen=True)
class RunResult:
    prompt_n: int
    cache_n: int
    pp_tok_s: float
    predicted_n: int
    tg_tok_s: float
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompt_n": self.prompt_n,
            "cache_n": self.cache_n,
            "pp_tok_s": self.pp_tok_s,
            "predicted_n": self.predicted_n,
            "tg_tok_s": self.tg_tok_s,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class Stats:
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    median: float | None = None

    @classmethod
    def of(cls, values: list[float]) -> Stats:
        if not values:
            return cls()
        return cls(min(values), max(values), statistics.fmean(values), statistics.median(values))


@dataclass
class LengthResult:
    backend: str
    url: str
    model: str | None
    build: str | None
    target_tokens: int
    warmup: int
    runs_wanted: int
    started_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    runs: list[RunResult] = field(default_factory=list)
    interrupted: bool = False
    capped_from: int | None = None  # the length asked for, where n_ctx cut it down

    @property
    def prompt_tokens(self) -> int:
        return int(statistics.median(r.prompt_n for r in self.runs)) if self.runs else 0

    @property
    def total_s(self) -> float:
        return sum(r.seconds for r in self.runs)

    def pp_stats(self) -> Stats:
        return Stats.of([r.pp_tok_s for r in self.runs])

    def tg_stats(self) -> Stats:
        return Stats.of([r.tg_tok_s for r in self.runs])

    def as_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "model": self.model,
            "build": self.build,
            "target_tokens": self.target_tokens,
            "capped_from": self.capped_from,
            "prompt_tokens": self.prompt_tokens,
            "warmup": self.warmup,
            "runs_wanted": self.runs_wanted,
            "runs_done": len(self.runs),
            "interrupted": self.interrupted,
            "pp_tok_s": self.pp_stats().__dict__,
            "tg_tok_s": self.tg_stats().__dict__,
            "total_s": self.total_s,
            "runs": [r.as_dict() for r in self.runs],
        }


@dataclass(frozen=True)
class Progress:
    backend: str
    target_tokens: int
    phase: str  # "warm-up", "run", or "waiting for idle slots" before the first call
    done: int  # calls finished for this backend, warm-ups included
    total: int


def plan_lengths(
    lengths: tuple[int, ...], n_ctx: int | None, max_tokens: int
) -> list[tuple[int, int | None]]:
    """(length, asked-for length if capped) per length, capped by the context; duplicates dropped."""
    limit = (n_ctx or UNKNOWN_CTX) - max_tokens - CONTEXT_MARGIN
    out: list[tuple[int, int | None]] = []
    for asked in lengths:
        length = min(asked, limit)
        if length > 0 and length not in [x for x, _ in out]:
            out.append((length, asked if length < asked else None))
    return out


class Bench:
    """Benchmarks one backend. ``results`` grows as runs finish, even if the bench is interrupted."""

    def __init__(
        self, backend: Backend, policy: Policy, audit: AuditLog | None, settings: BenchSettings
    ) -> None:
        self.backend = backend
        self.policy = policy
        self.settings = settings
        self.client = ChatClient(backend, policy, audit)
        self.results: list[LengthResult] = []
        self._chars_per_token = CHARS_PER_TOKEN
        self._seed = time.time_ns() % 10**8  # unique across sessions, so the cache never helps

    async def _identity(self) -> tuple[str | None, int | None, str | None]:
        who = await adapter_for(self.backend, self.policy).identity()
        return who.model, who.n_ctx, who.build

    async def _measure_ratio(self, length: int) -> None:
        """Fit characters-per-token to this model's tokenizer (where the server counts tokens over HTTP)."""
        server = adapter_for(self.backend, self.policy, timeout=httpx.Timeout(30.0))
        if not server.COUNTS_TOKENS:
            return
        text = drafting_prompt(length, self._seed)
        try:
            tokens = await server.count_tokens(text)
        except (BackendError, ValueError, AttributeError):
            return  # keep the rough ratio; the server's timings still report the real count
        if tokens > 0:
            self._chars_per_token = len(text) / tokens

    async def wait_for_idle(
        self,
        *,
        timeout_s: float = IDLE_TIMEOUT_S,
        poll_s: float = IDLE_POLL_S,
        on_wait: Callable[[int], None] | None = None,
    ) -> float:
        """Wait until the server decodes nothing (where it says: llama-server's ``/slots``); returns the
        seconds waited. A server still reading an abandoned prompt (an eval stopped with Ctrl+C, another
        client) would share its compute with the timed calls and make them slow or time out.

        Raises:
            BackendError: a slot is still busy after ``timeout_s``.
        """
        server = adapter_for(self.backend, self.policy, timeout=httpx.Timeout(10.0))
        if not server.REPORTS_SLOTS:
            return 0.0
        start = time.monotonic()
        while True:
            busy = await server.busy_slots()
            waited = time.monotonic() - start
            if busy is None:
                return waited  # /slots is off (no --slots): nothing to wait on
            if not busy:
                return waited
            if waited >= timeout_s:
                raise BackendError(
                    f"Backend '{self.backend.name}' still had {busy} busy slot(s) after {timeout_s:.0f} s, "
                    "so its speed cannot be measured alone. Another client is using it (perhaps a request "
                    "stopped midway whose prompt the server is still reading); wait, or restart that server.",
                    backend=self.backend.name,
                    url=self.backend.url,
                )
            if on_wait is not None:
                on_wait(busy)
            await asyncio.sleep(poll_s)

    async def run(self, on_progress: Callable[[Progress], None] | None = None) -> list[LengthResult]:
        try:
            return await self._run(on_progress)
        finally:
            await self.client.aclose()

    async def _run(self, on_progress: Callable[[Progress], None] | None) -> list[LengthResult]:
        s = self.settings
        model, n_ctx, build = await self._identity()
        plan = plan_lengths(s.lengths, n_ctx, s.max_tokens)
        if plan:
            await self._measure_ratio(plan[-1][0])
        total, done = len(plan) * (s.warmup + s.runs), 0
        if plan and on_progress is not None:
            first = plan[0][0]
            await self.wait_for_idle(
                on_wait=lambda _: on_progress(
                    Progress(self.backend.name, first, "waiting for idle slots", 0, total)
                )
            )
        elif plan:
            await self.wait_for_idle()
        for length, capped_from in plan:
            result = LengthResult(
                self.backend.name,
                self.backend.url,
                model,
                build,
                length,
                s.warmup,
                s.runs,
                capped_from=capped_from,
            )
            self.results.append(result)
            try:
                for i in range(s.warmup + s.runs):
                    run = await self._one(length)
                    done += 1
                    if i >= s.warmup:
                        result.runs.append(run)
                    if on_progress is not None:
                        phase = "warm-up" if i < s.warmup else "run"
                        on_progress(Progress(self.backend.name, length, phase, done, total))
            except BaseException:
                result.interrupted = True
                raise
        return self.results

    async def _one(self, length: int) -> RunResult:
        self._seed += 1
        prompt = drafting_prompt(length, self._seed, chars_per_token=self._chars_per_token)
        request = ChatRequest(
            messages=[{"role": "user", "content": prompt}],
            sampling=Sampling(max_tokens=self.settings.max_tokens, seed=self._seed),
            extra=adapter_class(self.backend.kind).bench_fields(),
        )
        start = time.perf_counter()
        finished = await self.client.complete(request, role="bench")
        seconds = time.perf_counter() - start
        t = finished.timings
        if t is None:
            raise BackendError(
                f"Backend '{self.backend.name}' sent no timings, so its speed cannot be measured from the "
                "server's own figures.",
                backend=self.backend.name,
                url=self.backend.url,
            )
        return RunResult(
            t.prompt_n, t.cache_n, t.prompt_per_second, t.predicted_n, t.predicted_per_second, seconds
        )
