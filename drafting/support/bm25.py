"""BM25 ranking of an opinion's paragraphs against a claim: the locator's lexical support score."""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    re.split(
        " ",
        "a an and are as at be been but by for from had has have he her his i if in into is it its of on "
        "or our so such that the their them then there these they this to was we were which who will "
        "with would not no any all also than",
    )
)
_SUFFIXES = ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "ed", "es", "ly", "s")


@functools.lru_cache(maxsize=1 << 16)  # a brief's opinions share most of their words: strip each once
def stem(word: str) -> str:
    """A light suffix strip, so "changes", "changed" and "change" count as one word."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    # the reading drops hyphens ("oneyear", "petrolubricant"), so the claim's are dropped too
    text = text.lower().replace("-", "").replace("'", "")
    return [stem(w) for w in _WORD.findall(text) if w not in _STOP]


def features(text: str) -> list[str]:
    """The words, and each pair of neighbouring words: "single publication" counts beyond its parts."""
    words = terms(text)
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]


class BM25:
    def __init__(self, documents: list[str], word_pairs: bool = True) -> None:
        self.featurize = features if word_pairs else terms
        self.docs = [Counter(self.featurize(d)) for d in documents]
        self.lengths = [sum(c.values()) for c in self.docs]
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        frequency: Counter[str] = Counter()
        for counts in self.docs:
            frequency.update(counts.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}

    def scores(self, query: str) -> list[float]:
        wanted = set(self.featurize(query))
        out = []
        for counts, length in zip(self.docs, self.lengths, strict=True):
            norm = K1 * (1 - B + B * length / self.average) if self.average else K1
            score = 0.0
            for t in wanted:
                tf = counts.get(t, 0)
                if tf:
                    score += self.idf[t] * tf * (K1 + 1) / (tf + norm)
            out.append(score)
        return out
