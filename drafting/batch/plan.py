"""``chambers batch run --plan``: the servers a batch will use, their slots, and what batching measurably gains.

The gain is read from the batch jobs already run on each server, which record how many jobs the
server held while each ran: the throughput of k jobs at once is k times the mean speed of a job that
ran among k (its tokens over its wall time), and the gain is that over the speed of jobs that ran
alone. Nothing is guessed: a server without both measurements says so and how to get them. Where the
gain from the last doubling of slots is small (an MoE wakes different experts for each sequence; a
server at its memory limit), the plan says that more slots would not help.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from drafting.batch.servers import Server
from drafting.batch.store import BatchStore

SMALL_GAIN = 1.15  # below this, more sequences at once are not worth the slots' memory


@dataclass(frozen=True)
class ServerPlan:
    server: Server
    jobs_at_once: int
    gains: dict[int, float]  # concurrency: measured throughput over one at a time
    advice: str

    def lines(self) -> list[str]:
        s = self.server
        out = [
            f"{s.url} ({', '.join(s.backends)}): {s.slots} slot(s), {s.said}; "
            f"up to {self.jobs_at_once} job(s) at once"
        ]
        if self.gains:
            out.append(
                "  measured: " + ", ".join(f"{k} at once {g:.2f}x" for k, g in sorted(self.gains.items()))
            )
        out.append(f"  {self.advice}")
        return out


def plan_for(store: BatchStore, server: Server, jobs_at_once: int) -> ServerPlan:
    measured = store.measured(server.url)
    if not any(concurrency == 1 for concurrency, _, _ in measured):
        return ServerPlan(
            server,
            jobs_at_once,
            {},
            (
                "no measurement of one job at a time on this server yet: run a batch with --one-at-a-time "
                "(or benchmarks/batch.py) to see what batching gains here"
            ),
        )
    gains = gains_for(store, server.url)
    if not gains:
        return ServerPlan(server, jobs_at_once, {}, "no batched measurement on this server yet")
    return ServerPlan(server, jobs_at_once, gains, _advice(gains))


def _advice(gains: dict[int, float]) -> str:
    top = max(gains)
    best = gains[top]
    if best < SMALL_GAIN:
        return (
            f"batching gains little here ({best:.2f}x at {top}): more slots would not help; "
            "--one-at-a-time loses almost nothing and repeats exactly"
        )
    below = [k for k in gains if k < top]
    if below:
        prev = max(below)
        step = best / gains[prev]
        if step < SMALL_GAIN:
            return (
                f"{prev} at once already gives {gains[prev]:.2f}x and {top} only {best:.2f}x: "
                "more slots would not help"
            )
    return f"batching pays: {best:.2f}x the throughput of one at a time with {top} at once"


def gains_for(store: BatchStore, url: str) -> dict[int, float]:
    """The measured throughput at each concurrency over one at a time on ``url`` (empty: not measured)."""
    speeds: dict[int, list[float]] = defaultdict(list)
    for concurrency, tokens, seconds in store.measured(url):
        speeds[concurrency].append(tokens / seconds)
    if 1 not in speeds:
        return {}
    alone = sum(speeds[1]) / len(speeds[1])
    return {k: k * (sum(v) / len(v)) / alone for k, v in speeds.items() if k > 1}
