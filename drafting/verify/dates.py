"""Dates in the common US formats, normalized to ISO 8601.

The same reader serves the draft and the evidence, so "April 2, 2024" in a draft is found as
"04/02/2024", "2 Apr 2024" or "2024-04-02" in a source. A date written without a year ("on
June 12") takes the year of the nearest full date before it, or of its document, because that
is how a reader of the page understands it; when there is none, it is left undecided.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH = (
    r"(?P<{g}>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DAY = r"(?P<{g}>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?P<{g}>(?:19|20)\d\d)"

_MONTH_FIRST = "(?=[JFMASONDjfmasond])"  # a cheap look at the first letter before the costly alternation
_DIGIT_FIRST = r"(?=\d)"
_PATTERNS = [
    # January 15, 2024 / Jan. 15 2024 / January 15 (year from context)
    re.compile(
        _MONTH_FIRST
        + r"\b"
        + _MONTH.format(g="m")
        + r"\s+"
        + _DAY.format(g="d")
        + r"(?:,?\s+"
        + _YEAR.format(g="y")
        + r")?\b",
        re.IGNORECASE,
    ),
    # 15 January 2024 / Tue, 16 Apr 2024
    re.compile(
        _DIGIT_FIRST
        + r"\b"
        + _DAY.format(g="d")
        + r"\s+"
        + _MONTH.format(g="m")
        + r",?\s+"
        + _YEAR.format(g="y")
        + r"\b",
        re.I,
    ),
    # 2024-01-15
    re.compile(_DIGIT_FIRST + r"\b" + _YEAR.format(g="y") + r"-(?P<n>0[1-9]|1[0-2])-(?P<d>[0-2]\d|3[01])\b"),
    # 01/15/2024, 1/15/24, 01-15-2024
    re.compile(
        _DIGIT_FIRST
        + r"\b(?P<n>1[0-2]|0?[1-9])([/-])(?P<d>[12]\d|3[01]|0?[1-9])\2(?P<y>(?:19|20)\d\d|\d\d)\b"
    ),
    # May 2024 (month precision)
    re.compile(
        _MONTH_FIRST + r"\b" + _MONTH.format(g="m") + r",?\s+" + _YEAR.format(g="y") + r"\b", re.IGNORECASE
    ),
]
_ON_OR_ABOUT = re.compile(r"\b(?:on\s+or\s+about|on\s+or\s+around|approximately|around|circa)\s+$", re.I)
_RANGE_JOIN = re.compile(r"^\s*(?:-|–|—|to|through|until|and)\s*$", re.I)
_BETWEEN = re.compile(r"\b(?:between|from)\s+$", re.I)
Raw = tuple[int, int, int | None, int, int | None]


@dataclass(frozen=True)
class FoundDate:
    start: int
    end: int
    text: str
    iso: str | None  # YYYY-MM-DD, YYYY-MM for month precision, None when the year is unknown
    month: int
    day: int | None
    approximate: bool = False


def _valid(y: int, m: int, d: int) -> bool:
    try:
        date(y, m, d)
    except ValueError:
        return False
    return True


def _month_number(name: str) -> int:
    return MONTHS[name.lower().rstrip(".")[:3]]


def find_dates(text: str, default_year: int | None = None) -> list[FoundDate]:
    """Every date in ``text``, left to right, overlapping matches resolved by the earliest, longest."""
    raw: list[Raw] = []
    for m in _matches(text):
        groups = m.groupdict()
        month = _month_number(groups["m"]) if groups.get("m") else int(groups["n"])
        day = int(groups["d"]) if groups.get("d") else None
        year_text = groups.get("y")
        year = int(year_text) if year_text else None
        if year is not None and year < 100:
            year += 2000
        raw.append((m.start(), m.end(), year, month, day))
    raw.sort(key=lambda r: (r[0], -(r[1] - r[0])))
    raw = _years_from_range_ends(text, raw)
    found: list[FoundDate] = []
    last_end = -1
    year_context = default_year
    for start, end, year, month, day in raw:
        if start < last_end:
            continue
        if year is None:
            year = year_context
        elif day is not None:
            year_context = year
        if day is not None and year is not None and not _valid(year, month, day):
            continue
        if day is None:
            iso = f"{year:04d}-{month:02d}" if year else None
        else:
            iso = f"{year:04d}-{month:02d}-{day:02d}" if year else None
        approximate = bool(_ON_OR_ABOUT.search(text[max(0, start - 24) : start]))
        found.append(FoundDate(start, end, text[start:end], iso, month, day, approximate))
        last_end = end
    return found


_DIGIT_RUN = re.compile(r"\d+")
_OPENS_WITH_A_MONTH = (True, False, False, False, True)  # for each of _PATTERNS


def _matches(text: str) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` gives for each of ``_PATTERNS``, tried only where a date can start.

    Every date holds a digit, and digits are rare in prose, so one quick scan for digit runs
    finds every place worth trying: a date that opens with a number starts at a digit run, and
    one that opens with a month starts at the word before a digit run's whitespace ("May 5",
    "Jan., 2024"). Each pattern is then matched there, left to right and never inside its own
    previous match, as ``finditer`` would: one scan of a long text instead of five.
    """
    digit_starts = [m.start() for m in _DIGIT_RUN.finditer(text)]
    word_starts = [w for w in (_month_word_before(text, at) for at in digit_starts) if w >= 0]
    for pattern, opens_with_a_month in zip(_PATTERNS, _OPENS_WITH_A_MONTH, strict=True):
        last_end = -1
        for start in word_starts if opens_with_a_month else digit_starts:
            if start < last_end:
                continue
            match = pattern.match(text, start)
            if match:
                last_end = match.end()
                yield match


def _month_word_before(text: str, at: int) -> int:
    """Where the word before the whitespace (and an optional "." and ",") ahead of ``at`` starts; -1 if none."""
    i = at
    while i > 0 and text[i - 1].isspace():
        i -= 1
    if i == at:
        return -1
    i -= text[i - 1 : i] == ","
    i -= text[i - 1 : i] == "."
    end = i
    while i > 0 and text[i - 1].isascii() and text[i - 1].isalpha():
        i -= 1
    return i if i < end else -1


def _is_range(text: str, first_start: int, first_end: int, second_start: int) -> bool:
    joint = text[first_end:second_start]
    if not _RANGE_JOIN.match(joint):
        return False
    return joint.strip().lower() != "and" or bool(
        _BETWEEN.search(text[max(0, first_start - 12) : first_start])
    )


def _years_from_range_ends(text: str, raw: list[Raw]) -> list[Raw]:
    """ "May 1 to May 24, 2024": the first end of a range takes the year written on the second."""
    out = list(raw)
    for i in range(len(out) - 1):
        start, end, year, month, day = out[i]
        nxt = out[i + 1]
        if year is None and nxt[2] is not None and _is_range(text, start, end, nxt[0]):
            out[i] = (start, end, nxt[2], month, day)
    return out


def date_ranges(text: str, dates: list[FoundDate]) -> Iterator[tuple[FoundDate, FoundDate]]:
    """Pairs written as a range ("May 1 to May 24, 2024", "between April 2 and April 19")."""
    for first, second in itertools.pairwise(dates):
        if _is_range(text, first.start, first.end, second.start):
            yield first, second
