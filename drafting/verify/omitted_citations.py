"""Quotations that say they leave out the citations their source gives there.

A brief writes "(cleaned up)", "(citations omitted)" or "(internal quotation marks and citation
omitted)" after a quotation whose source cites other authority between its words: "... the federal
government. 31 U.S.C. § 3730. In 2007, ..." is quoted as "... the federal government. In 2007, ...".
Only there may the quotation skip a stretch of its source, and only a stretch that is a citation: it
holds a reporter, code or Id. citation, ends as a citation ends (a page, a year, "omitted") and is no
longer than a string of citations runs. Words the quotation drops that are not a citation still make
it someone else's words.
"""

from __future__ import annotations

import re

_SAYS_OMITTED = re.compile(
    r"\([^()]{0,80}?\b(?:cleaned up|(?:citations?|footnotes?)\b[^()]{0,40}?\bomitted)\b[^()]{0,40}\)",
    re.IGNORECASE,
)
GAP_CHARS = 400  # the longest stretch of the source a quotation may skip: a string of a few citations
# In the source's normalised reading (parentheses and the section sign are spaces there).
_A_CITATION = re.compile(r"\b\d+ [a-z][a-z0-9.' ]{0,30}? \d+\b|\bid\.|\bsupra\b")
_ENDS_AS_A_CITATION = re.compile(r"(?:\b\d+|\bomitted)[\s.,;:]*$")
_ONLY_A_FOOTNOTE_CALL = re.compile(r"^[\s\d]+$")


def says_citations_omitted(after_citation: str) -> bool:
    """Whether the words after a quotation's citation (to its sentence's end) say it omits citations."""
    return bool(_SAYS_OMITTED.search(after_citation))


def _is_a_citation(gap: str) -> bool:
    if _ONLY_A_FOOTNOTE_CALL.match(gap):
        return True
    return bool(_A_CITATION.search(gap)) and bool(_ENDS_AS_A_CITATION.search(gap))


def _word_at(text: str, at: int, word: str) -> bool:
    """``word`` is at ``at``, whole: not the start of a longer word of the source."""
    end = at + len(word)
    return text.startswith(word, at) and not (end < len(text) and text[end].isalnum() and word[-1].isalnum())


def _follow(words: list[str], text: str, at: int) -> int | None:
    """Where ``words`` end, read from ``at`` on, past the citations the source gives between them."""
    cursor = at
    for index, word in enumerate(words):
        lead = " " + word if index else word
        if _word_at(text, cursor, lead):
            cursor += len(lead)
            continue
        if not index:
            return None
        gap_end = text.find(lead, cursor, cursor + GAP_CHARS + len(lead))
        while gap_end >= 0 and not (_word_at(text, gap_end, lead) and _is_a_citation(text[cursor:gap_end])):
            gap_end = text.find(lead, gap_end + 1, cursor + GAP_CHARS + len(lead))
        if gap_end < 0:
            return None
        cursor = gap_end + len(lead)
    return cursor


def spans_past_citations(parts: list[str], text: str, first_at: list[int]) -> list[tuple[int, int]]:
    """Each place from ``first_at`` where the quotation's parts follow in order, each whole but for the
    citations of the source it leaves out; the parts (split at ellipses) within a few pages."""
    out = []
    for start in first_at:
        end = _follow(parts[0].split(" "), text, start)
        for part in parts[1:]:
            if end is None:
                break
            words = part.split(" ")
            nxt = text.find(words[0], end, end + 20_000)
            end = _follow(words, text, nxt) if nxt >= 0 else None
        if end is not None:
            out.append((start, end))
    return out
