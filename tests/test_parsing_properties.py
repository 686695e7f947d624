"""Properties of the two readers every check leans on: Bates numbers (evidence/bates.py) and dates
(drafting/verify/dates.py), fuzzed with Hypothesis over what stamps and drafts really hold, and over
any text at all (neither reader may raise on it).
"""

from __future__ import annotations

import itertools
import re
import string
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drafting.verify.dates import find_dates
from evidence.bates import bates_on_page, parse_bates, parse_bates_range
from evidence.errors import EvidenceError

FUZZ = settings(max_examples=150, deadline=None, database=None)

# A prefix the reader takes: upper-case letters and digits, starting and ending with a letter.
prefix = st.from_regex(r"[A-Z][A-Z0-9]{0,8}[A-Z]", fullmatch=True)
separator = st.sampled_from(["-", "_", " ", ""])
width = st.integers(4, 9)


@st.composite
def stamp(draw: st.DrawFn) -> tuple[str, str, int]:
    p, w = draw(prefix), draw(width)
    n = draw(st.integers(0, 10**w - 1))
    return f"{p}{draw(separator)}{n:0{w}d}", p, n


@FUZZ
@given(stamp())
def test_a_stamp_reads_back_as_its_prefix_and_number(made: tuple[str, str, int]) -> None:
    text, p, n = made
    found = parse_bates(text)
    assert found is not None and (found.prefix, found.number, found.text) == (p, n, text)


@FUZZ
@given(st.text())
def test_any_text_is_read_as_a_stamp_or_not_without_raising(text: str) -> None:
    found = parse_bates(text)
    if found is not None:  # then the whole line was the stamp: its prefix, then its digits
        assert found.text == text.strip() and found.text.startswith(found.prefix)
        assert int(re.search(r"\d+$", found.text)[0]) == found.number  # type: ignore[index]


prose_line = st.lists(
    st.sampled_from(["the", "freezer", "was", "late", "invoice", "1102", "paid"]), min_size=1, max_size=9
).map(" ".join)


@FUZZ
@given(st.lists(prose_line, max_size=40), stamp())
def test_the_stamp_at_the_foot_of_a_page_of_prose_is_found(
    lines: list[str], made: tuple[str, str, int]
) -> None:
    text, p, n = made
    page = "\n".join([*lines, "", text, ""])
    found = bates_on_page(page)
    assert found is not None and (found.prefix, found.number) == (p, n)


@FUZZ
@given(prefix, st.integers(0, 999_999), st.integers(0, 999_999))
def test_a_range_has_its_ends_in_order_or_is_refused(p: str, a: int, b: int) -> None:
    value = f"{p}-{a:06d}..{p}-{b:06d}"
    if a <= b:
        start, end = parse_bates_range(value)
        assert (start.number, end.number) == (a, b)
    else:
        with pytest.raises(EvidenceError, match="is not a Bates range"):
            parse_bates_range(value)


@FUZZ
@given(st.text(alphabet=string.ascii_uppercase + string.digits + "-_. \n", max_size=40))
def test_any_range_text_gives_a_range_or_the_named_error(value: str) -> None:
    try:
        start, end = parse_bates_range(value)
    except EvidenceError as exc:
        assert value in exc.message
    else:
        assert start.prefix == end.prefix and start.number <= end.number


# --- dates ---

MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
day = st.dates(min_value=date(1900, 1, 1), max_value=date(2099, 12, 31))


def written(d: date, form: int) -> str:
    month = MONTH_NAMES[d.month - 1]
    return [
        f"{month} {d.day}, {d.year}",
        f"{month[:3]}. {d.day}, {d.year}",
        f"{d.day} {month} {d.year}",
        d.isoformat(),
        f"{d.month}/{d.day}/{d.year}",
        f"{d.month:02d}-{d.day:02d}-{d.year}",
    ][form]


@FUZZ
@given(day, st.integers(0, 5))
def test_a_date_in_any_us_form_is_found_once_as_its_iso_date(d: date, form: int) -> None:
    text = f"Calder was paid on {written(d, form)}, as the invoice shows."
    found = find_dates(text)
    assert [f.iso for f in found] == [d.isoformat()], (text, found)
    assert found[0].text == written(d, form)


@FUZZ
@given(st.integers(1900, 2099), st.sampled_from([(2, 30), (2, 31), (4, 31), (6, 31), (9, 31), (11, 31)]))
def test_a_day_the_calendar_does_not_have_is_never_reported(year: int, month_day: tuple[int, int]) -> None:
    month, d = month_day
    for text in (
        f"{MONTH_NAMES[month - 1]} {d}, {year}",
        f"{month}/{d}/{year}",
        f"{year}-{month:02d}-{d:02d}",
    ):
        assert all(f.day != d for f in find_dates(f"Delivered on {text}.")), text


@FUZZ
@given(st.text())
def test_any_text_gives_ordered_real_dates_without_raising(text: str) -> None:
    found = find_dates(text)
    ends = [(f.start, f.end) for f in found]
    assert ends == sorted(ends) and all(a[1] <= b[0] for a, b in itertools.pairwise(ends))
    for f in found:
        assert text[f.start : f.end] == f.text
        if f.iso is not None and f.day is not None:
            assert date.fromisoformat(f.iso).day == f.day


DATE_PIECES = [
    "May",
    "may",
    "Jan.",
    "January",
    "Sept",
    "JUNE",
    "Mayday",
    " ",
    "  ",
    "\n",
    ",",
    ".",
    "-",
    "/",
    "1",
    "2",
    "12",
    "15",
    "31",
    "2024",
    "1999",
    "24",
    "st",
    "x",
    "é",
    "_",
    "0",
    "to",
    "\u00a0",
]


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(st.sampled_from(DATE_PIECES), max_size=14).map("".join) | st.text())
def test_the_date_reader_tries_every_place_a_pattern_can_match(text: str) -> None:
    """It scans for digit runs and tries each pattern only there: what it finds is what a full scan finds."""
    from drafting.verify.dates import _PATTERNS, _matches

    everywhere = [(m.start(), m.end()) for pattern in _PATTERNS for m in pattern.finditer(text)]
    assert [(m.start(), m.end()) for m in _matches(text)] == everywhere
