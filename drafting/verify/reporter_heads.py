"""A bound reporter's running head as the opinion's citation: "202  140 UNITED STATES TAX COURT REPORTS  (200)".

Official reports set by the Government Publishing Office head each even page with its page
number, the volume and the reports' title in words, and the opinion's first page in
parentheses (the odd pages carry "(200)  SHENK v. COMMISSIONER  201"). A copy of such a volume
prints its citation nowhere else, so the head is read as one: the title is matched to the
reporter whose reporters-db name has the same words ("Reports of the United States Tax Court"
is T.C.), never to one that only shares some of them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from drafting.verify.sources import Page, cite_key

_HEAD = re.compile(
    r"(?:^|[ \t]{2,})(?P<page>\d{1,4})[ \t]+(?P<volume>\d{1,4})[ \t]+"
    r"(?P<title>(?:[A-Z][A-Z.'&]*[ \t]+){1,8}REPORTS?)[ \t]+\((?P<first>\d{1,5})\)",
    re.M,
)
_FILLER = frozenset(["of", "the", "and", "for"])
MAX_PAGES = 1500


def _title_words(title: str) -> frozenset[str]:
    title = re.sub(r"\([^)]*\)", " ", title.lower())  # "(United States)": which reports, not their title
    return frozenset(w for w in re.findall(r"[a-z]+", title) if w not in _FILLER)


@lru_cache(maxsize=1)
def _reporters_by_title() -> dict[frozenset[str], str]:
    """Each reporters-db title's words -> its abbreviation, for titles no two reporters share."""
    from reporters_db import REPORTERS

    seen: dict[frozenset[str], set[str]] = {}
    for abbreviation, variants in REPORTERS.items():
        for reporter in variants:
            seen.setdefault(_title_words(reporter["name"]), set()).add(abbreviation)
    return {words: next(iter(names)) for words, names in seen.items() if len(names) == 1}


def head_citations(pages: list[Page], head_pages: int, head_chars: int) -> list[str]:
    """The citation keys the running heads of the first pages print, in the order first seen."""
    found: list[str] = []
    for page in pages[:head_pages]:
        text = page.text[:head_chars]
        if "REPORT" not in text:
            continue  # the cheap look first: most copies have no such head
        for m in _HEAD.finditer(text):
            number, first = int(m["page"]), int(m["first"])
            if not first < number <= first + MAX_PAGES:
                continue  # the head of a later page of the same opinion, or no head at all
            reporter = _reporters_by_title().get(_title_words(m["title"]))
            if reporter is None:
                continue
            key = cite_key(m["volume"], reporter, str(first))
            if key not in found:
                found.append(key)
    return found
