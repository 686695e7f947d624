"""The adversarial reviewer's findings, anchored to the draft, and the one list of marks.

A reviewer model quotes the draft to point at a problem, and models misquote:
they change a space, a capital, a word. Each finding is anchored exactly where
possible, then after normalising whitespace and case, then fuzzily (difflib);
a finding that cannot be anchored is kept in a list of its own, never dropped,
because the problem it names may be real even when the quote is not.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from drafting.verify.model import Flag, Kind, Severity

ReviewSeverity = Literal["high", "medium", "low"]
SEVERITIES: tuple[ReviewSeverity, ...] = get_args(ReviewSeverity)
FUZZY_THRESHOLD = 0.8
MIN_FUZZY_CHARS = 12  # a short quote ("the", "$5") anchors only exactly: fuzzily it would land anywhere


@dataclass(frozen=True)
class Finding:
    quote: str
    problem: str
    severity: ReviewSeverity
    fix: str
    start: int | None = None
    end: int | None = None
    anchored: str = "none"  # exact | normalized | fuzzy | none
    score: float = 0.0  # 1.0 for exact; the difflib ratio for fuzzy

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Mark:
    """One flag on the draft, from the verifier or the reviewer, at a span of the draft."""

    start: int
    end: int
    source: Literal["verifier", "reviewer"]
    severity: Severity | ReviewSeverity
    kind: Kind | Literal["review"]  # the verifier's kind (date, bates...), or the reviewer's finding
    text: str  # the draft's text at the span
    message: str
    fix: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def anchor_findings(draft: str, findings: list[Finding]) -> list[Finding]:
    out = []
    for f in findings:
        start, end, how, score = anchor(draft, f.quote)
        out.append(Finding(f.quote, f.problem, f.severity, f.fix, start, end, how, score))
    return out


def anchor(draft: str, quote: str) -> tuple[int | None, int | None, str, float]:
    """Where ``quote`` sits in ``draft``: (start, end, how, score); (None, None, 'none', best) if nowhere."""
    needle = quote.strip().strip("\"'“”‘’").strip()
    if not needle:
        return None, None, "none", 0.0
    at = draft.find(needle)
    if at >= 0:
        return at, at + len(needle), "exact", 1.0
    flat, index = _normalized(draft)
    flat_needle, _ = _normalized(needle)
    at = flat.find(flat_needle)
    if at >= 0 and flat_needle:
        return index[at], index[at + len(flat_needle) - 1] + 1, "normalized", 1.0
    if len(flat_needle) < MIN_FUZZY_CHARS:
        return None, None, "none", 0.0
    start, end, score = _best_window(flat, flat_needle)
    if score >= FUZZY_THRESHOLD:
        return index[start], index[end - 1] + 1, "fuzzy", round(score, 3)
    return None, None, "none", round(score, 3)


def _normalized(text: str) -> tuple[str, list[int]]:
    """Lower-cased text with runs of whitespace as one space, and each character's index in ``text``."""
    chars: list[str] = []
    index: list[int] = []
    for match in re.finditer(r"\s+|\S", text):
        chars.append(" " if match.group().isspace() else match.group().lower())
        index.append(match.start())
    return "".join(chars), index


def _best_window(hay: str, needle: str) -> tuple[int, int, float]:
    """The window of ``hay`` most like ``needle`` (coarse stride, then refined around the best)."""
    size = len(needle)
    if size >= len(hay):
        return 0, len(hay), difflib.SequenceMatcher(None, hay, needle, autojunk=False).ratio()
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(needle)

    def score(start: int, length: int) -> float:
        matcher.set_seq1(hay[start : start + length])
        return matcher.ratio() if matcher.real_quick_ratio() >= FUZZY_THRESHOLD * 0.9 else 0.0

    stride = max(1, size // 8)
    best = max(range(0, len(hay) - size + 1, stride), key=lambda s: score(s, size))
    lo, hi = max(0, best - stride), min(len(hay) - size, best + stride)
    candidates = [(s, n) for s in range(lo, hi + 1) for n in {size - size // 10, size, size + size // 10}]
    start, length = max(candidates, key=lambda c: score(*c))
    return start, min(len(hay), start + length), score(start, length)


def merge_marks(draft: str, flags: Sequence[Flag], findings: Sequence[Finding]) -> list[Mark]:
    """The verifier's flags and the anchored findings as one list, ordered by position in the draft."""
    marks = [
        Mark(f.start, f.end, "verifier", f.severity, f.kind, f.text, f.message)
        for f in flags
        if f.severity != "ok"
    ]
    for f in findings:
        if f.start is not None and f.end is not None:
            marks.append(
                Mark(
                    f.start, f.end, "reviewer", f.severity, "review", draft[f.start : f.end], f.problem, f.fix
                )
            )
    return sorted(marks, key=lambda m: (m.start, m.end, m.source))
