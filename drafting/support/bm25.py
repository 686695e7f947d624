"""BM25 ranking of an opinion's paragraphs against a claim: the locator's lexical support score."""

from __future__ import annotations

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


# The suffixes by their last letter, in their order: a word is tried only against those it can end in.
_BY_LAST = {last: tuple(s for s in _SUFFIXES if s[-1] == last) for last in {s[-1] for s in _SUFFIXES}}


def stem(word: str) -> str:
    """A light suffix strip, so "changes", "changed" and "change" count as one word."""
    for suffix in _BY_LAST.get(word[-1:], ()):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


class _Terms(dict[str, str]):
    """Each word's term, "" for a stop word: worked out once, as a brief's opinions share most words."""

    def __missing__(self, word: str) -> str:
        if len(self) >= MAX_WORDS_HELD:
            self.clear()
        term = self[word] = "" if word in _STOP else stem(word)
        return term


MAX_WORDS_HELD = 1 << 16
_TERMS = _Terms()


def terms(text: str) -> list[str]:
    # the reading drops hyphens ("oneyear", "petrolubricant"), so the claim's are dropped too
    text = text.lower().replace("-", "").replace("'", "")
    return list(filter(None, map(_TERMS.__getitem__, _WORD.findall(text))))


def features(text: str) -> list[str]:
    """The words, and each pair of neighbouring words: "single publication" counts beyond its parts."""
    words = terms(text)
    return words + list(map(" ".join, itertools.pairwise(words)))


class BM25:
    """The paragraphs' term counts, read once; a term's rarity is worked out when a claim first holds
    it, as a claim holds few of a library's terms."""

    def __init__(self, documents: list[str], word_pairs: bool = True) -> None:
        self.featurize = features if word_pairs else terms
        featured = [self.featurize(d) for d in documents]
        self.docs = [Counter(f) for f in featured]
        lengths = [len(f) for f in featured]
        average = (sum(lengths) / len(lengths)) if lengths else 0.0
        self.norms = [K1 * (1 - B + B * length / average) if average else K1 for length in lengths]
        self.held: dict[str, tuple[float, tuple[tuple[int, int], ...]]] = {}

    def _postings(self, term: str) -> tuple[float, tuple[tuple[int, int], ...]]:
        """The term's rarity, and each paragraph that holds it with its count there."""
        held = self.held.get(term)
        if held is None:
            posting = tuple((at, counts[term]) for at, counts in enumerate(self.docs) if term in counts)
            n, df = len(self.docs), len(posting)
            held = self.held[term] = (math.log(1 + (n - df + 0.5) / (df + 0.5)), posting)
        return held

    def scores(self, query: str) -> list[float]:
        out = [0.0] * len(self.docs)
        norms = self.norms
        for t in set(self.featurize(query)):
            idf, posting = self._postings(t)
            for at, tf in posting:
                out[at] += idf * tf * (K1 + 1) / (tf + norms[at])
        return out
