"""An opinion's text cut into paragraphs, each on one page of the citation it is read for.

The opinion's reading joins its lines (vendors print a paragraph to a line, courts' PDFs wrap
lines), so its paragraph breaks are not known: a paragraph here is up to three sentences and at most
``MAX_CHARS`` long, and it never runs across a page boundary, so each one has exactly one page. The
reading is lower-cased, so a sentence ends at a stop followed by a space whatever comes next, except
after an abbreviation or an initial.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from drafting.verify.authorities import Opinion
from drafting.verify.text import is_abbreviation

MAX_SENTENCES = 3
MAX_CHARS = 700
_STOP = re.compile(r"[.!?][\"”')\]]*\s+")


@dataclass(frozen=True)
class Paragraph:
    index: int
    start: int  # in the opinion's reading
    end: int
    page: int | None  # the reporter page (or ¶) it is on; None where the copy prints no pages
    text: str


def _boundaries(opinion: Opinion, key: str) -> tuple[list[int], list[int | None]]:
    series = opinion.reading.series.get(key)
    if series is None:
        return [0], [None]
    return [0, *series.offsets], [series.first, *series.numbers]


def paragraphs_of(opinion: Opinion, key: str) -> list[Paragraph]:
    """Every paragraph of ``opinion``, paged by the series of its citation ``key``."""
    text = opinion.reading.text
    offsets, numbers = _boundaries(opinion, key)
    out: list[Paragraph] = []
    for at, begin in enumerate(offsets):
        end = offsets[at + 1] if at + 1 < len(offsets) else len(text)
        if end <= begin:
            continue
        chunk_start = begin
        count = 0
        for stop in _cuts(text, begin, end):
            count += 1
            if count >= MAX_SENTENCES or stop - chunk_start >= MAX_CHARS:
                _add(out, text, chunk_start, stop, numbers[at])
                chunk_start, count = stop, 0
        _add(out, text, chunk_start, end, numbers[at])
    return out


def _cuts(text: str, begin: int, end: int) -> Iterator[int]:
    """Where a paragraph may end inside ``text[begin:end]``: after each sentence, and inside a sentence
    longer than ``MAX_CHARS`` (a run-on reading, a list) at the last space that keeps it under."""
    start = begin
    for match in _STOP.finditer(text, begin, end):
        if text[match.start()] == "." and is_abbreviation(text, match.start()):
            continue
        yield from _long_cuts(text, start, match.end())
        start = match.end()
    yield from _long_cuts(text, start, end, last=False)


def _long_cuts(text: str, start: int, stop: int, *, last: bool = True) -> Iterator[int]:
    while stop - start > MAX_CHARS:
        space = text.rfind(" ", start + 1, start + MAX_CHARS)
        start = space + 1 if space > start else start + MAX_CHARS
        yield start
    if last:
        yield stop


def _add(out: list[Paragraph], text: str, start: int, end: int, page: int | None) -> None:
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":  # a passage joins its paragraphs with one space
        end -= 1
    if end - start < 2:
        return
    out.append(Paragraph(len(out), start, end, page, text[start:end]))


def page_of(paragraphs: list[Paragraph], offset: int) -> int | None:
    starts = [p.start for p in paragraphs]
    at = max(0, bisect.bisect_right(starts, offset) - 1)
    return paragraphs[at].page if paragraphs else None
