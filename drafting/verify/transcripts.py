"""Deposition transcripts as court reporters lay them out, read into printed pages and numbered lines.

"Dep. 45:3-4" means the page the reporter numbered 45, lines 3 and 4 as numbered in its margin,
not the 45th page of the file nor its 3rd line of text. Reporters print the page number at the
top or the bottom, or as a "Page 45" header; condensed transcripts put four pages on a sheet,
each under its own "Page N" header; an errata sheet at the end has no numbered lines. Where a
file shows none of this, its pages and non-empty lines are counted as they come.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from drafting.verify.sources import Page

LINES_PER_PAGE = 25
MIN_NUMBERED = 5  # fewer numbered lines than this and the page is not in transcript layout
_PAGE_HEADER = re.compile(r"^\s*Page\s+(\d{1,4})\s*$", re.I | re.M)
_LONE_NUMBER = re.compile(r"^\s*(?:-\s*)?(\d{1,4})(?:\s*-)?\s*$")
_NUMBERED_LINE = re.compile(r"^\s*(\d{1,2})(?:\s+(.*?))?\s*$")
_ERRATA = re.compile(r"\bERRATA\b", re.I)


@dataclass(frozen=True)
class TranscriptPage:
    number: int  # as the reporter printed it
    page: Page  # the file page it is on (for pointers)
    lines: dict[int, str] = field(default_factory=dict)  # line number -> its text, number removed

    def span(self, first: int, last: int) -> list[str]:
        return [self.lines[n] for n in range(first, last + 1) if n in self.lines]

    @property
    def count(self) -> int:
        return max(self.lines, default=0)


def read_transcript(pages: list[Page]) -> dict[int, TranscriptPage]:
    """Printed page number -> that page, for one transcript file."""
    out: dict[int, TranscriptPage] = {}
    for page in pages:
        for number, text in _segments(page):
            lines = _numbered(text)
            if lines is None:
                if _ERRATA.search(text) and number is None:
                    continue  # the errata sheet: corrections, not testimony
                plain = [line.strip() for line in text.splitlines() if line.strip()]
                lines = {i + 1: line for i, line in enumerate(plain)}
            out.setdefault(
                number if number is not None else page.page_no,
                TranscriptPage(number if number is not None else page.page_no, page, lines),
            )
    return out


def _segments(page: Page) -> list[tuple[int | None, str]]:
    """The reporter's pages on one file page: split at "Page N" headers, else one with its printed number."""
    headers = list(_PAGE_HEADER.finditer(page.text))
    if headers:
        return [
            (
                int(h[1]),
                page.text[h.end() : headers[i + 1].start() if i + 1 < len(headers) else len(page.text)],
            )
            for i, h in enumerate(headers)
        ]
    lines = [line for line in page.text.splitlines() if line.strip()]
    numbered = [line for line in lines if _numbered_text(line)]
    if len(numbered) >= MIN_NUMBERED:
        for edge in (lines[0], lines[-1]):  # the page number, at the top or the bottom
            lone = _LONE_NUMBER.match(edge)
            if lone and not _numbered_text(edge):
                rest = [line for line in lines if line is not edge]
                return [(int(lone[1]), "\n".join(rest))]
    return [(None, page.text)]


def _numbered_text(line: str) -> bool:
    match = _NUMBERED_LINE.match(line)
    return bool(match and match[2] and 1 <= int(match[1]) <= LINES_PER_PAGE)


def _numbered(text: str) -> dict[int, str] | None:
    """Line number -> text where the margin numbers the lines; None where it does not."""
    lines: dict[int, str] = {}
    for line in text.splitlines():
        match = _NUMBERED_LINE.match(line)
        if match and 1 <= int(match[1]) <= LINES_PER_PAGE:
            lines.setdefault(int(match[1]), match[2] or "")
    return lines if len([t for t in lines.values() if t]) >= MIN_NUMBERED else None
