"""The deterministic locator: every paragraph of the cited opinion ranked by lexical support.

It records the best-supporting paragraph and warns where that paragraph is clearly elsewhere than
the cited page: outside the passage (the pin page and a paragraph either side) and scoring well
above the best paragraph inside it. A paraphrase is not an error, so the warning never blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from drafting.support.bm25 import BM25, terms
from drafting.support.paragraphs import Paragraph

CLEARLY = 1.5  # the best paragraph elsewhere must score this many times the passage's best
MIN_SCORE = 1.0  # below this nothing in the opinion speaks to the claim: no page is "closer"
# A paragraph elsewhere is a closer passage only where it holds at least half the claim's words;
# for a point the opinion never reaches, the best paragraph shares a few words and is no closer.
MIN_COVERAGE = 0.5


@dataclass(frozen=True)
class Located:
    best: Paragraph | None
    best_score: float
    passage_score: float  # the best score among the passage's paragraphs
    ranked: tuple[tuple[int, float], ...]  # (paragraph index, score), best first, the top few
    warning: str = ""


def coverage(claim: str, text: str) -> float:
    """The share of the claim's distinct words that ``text`` holds."""
    wanted = set(terms(claim))
    return len(wanted & set(terms(text))) / len(wanted) if wanted else 0.0


def _page_label(page: int | None, paragraph: bool) -> str:
    return f"¶ {page}" if paragraph else f"page {page}"


def locate(
    claim: str,
    paragraphs: list[Paragraph],
    passage: set[int],
    cited: str = "",
    paragraph_pins: bool = False,
    index: BM25 | None = None,
) -> Located:
    """Rank ``paragraphs`` for ``claim``; ``passage`` holds the indexes of the passage's paragraphs."""
    if not paragraphs or not claim.strip():
        return Located(None, 0.0, 0.0, ())
    scores = (index or BM25([p.text for p in paragraphs])).scores(claim)
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    best = paragraphs[order[0]]
    best_score = scores[order[0]]
    inside = max((scores[i] for i in passage), default=0.0)
    warning = ""
    if (
        passage
        and order[0] not in passage
        and best.page is not None
        and best_score >= MIN_SCORE
        and best_score >= CLEARLY * inside
        and coverage(claim, best.text) >= MIN_COVERAGE
    ):
        warning = (
            f"the closest passage to this sentence is on {_page_label(best.page, paragraph_pins)}; "
            f"you cite {cited}"
        )
    ranked = tuple((i, round(scores[i], 3)) for i in order[:5])
    return Located(best, best_score, inside, ranked, warning)
