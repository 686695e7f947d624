"""What the benchmarks share: a lawyer's vocabulary for generated text, and how a time is taken.

The benchmarks are modules, run from the repository root: ``python -m benchmarks.NAME``.
"""

from __future__ import annotations

import signal
import statistics
import time
from collections.abc import Callable
from types import FrameType

# Words of a commercial dispute, for generated pages, briefs and drafts.
DOMAIN_WORDS = [
    "agreement",
    "buyer",
    "seller",
    "warranty",
    "compressor",
    "freezer",
    "delivery",
    "invoice",
    "installation",
    "notice",
    "completion",
    "damages",
    "payment",
    "instalment",
    "technician",
    "schedule",
    "supplier",
    "panel",
    "temperature",
    "inspection",
    "breach",
    "cure",
    "remedy",
    "stock",
    "trailer",
    "county",
    "project",
    "manager",
    "director",
    "operations",
    "quay",
    "foundry",
    "harbor",
    "calder",
    "court",
    "held",
    "party",
    "contract",
    "clause",
    "liquidated",
    "delay",
    "shipment",
    "reasonable",
    "evidence",
    "record",
    "testimony",
    "deposition",
    "exhibit",
    "page",
    "motion",
    "summary",
    "judgment",
    "genuine",
    "dispute",
    "material",
    "fact",
    "plaintiff",
    "defendant",
    "counsel",
    "argued",
    "statute",
    "limitation",
    "equitable",
    "estoppel",
    "waiver",
    "section",
    "inventory",
    "spoiled",
    "claim",
    "witness",
    "order",
    "refund",
    "replacement",
    "report",
    "repair",
    "service",
    "defect",
    "failure",
    "liability",
    "indemnity",
    "termination",
]
# The short words that make prose prose (and that full-text search must cope with).
FUNCTION_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "that",
    "is",
    "was",
    "for",
    "on",
    "with",
    "as",
    "by",
    "at",
    "from",
    "this",
    "shall",
    "be",
    "it",
    "not",
    "or",
    "which",
]


def seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    return statistics.median(seconds(fn) for _ in range(runs))


def paired(first: Callable[[], object], second: Callable[[], object], runs: int) -> tuple[float, float]:
    """Medians of two measurements taken in turns, so a noisy neighbour slows both alike."""
    times = [(seconds(first), seconds(second)) for _ in range(runs)]
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def mark(ok: bool) -> str:
    """How a benchmark's line says whether its target was met."""
    return "PASS" if ok else "MISS"


def stop_on_sigterm() -> None:
    """End the benchmark on SIGTERM as on Ctrl-C, by an exception: each ``with`` block then closes what
    it opened (a llama-server child, a temporary folder) where the default action would leave the
    server running, orphaned, on its port."""
    signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)
