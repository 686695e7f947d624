"""Bates numbers: read from the stamp on a page, and parsed from what the attorney types.

A stamp is a line of its own at the foot (or head) of the page, like
``HPP-000123``: a short upper-case prefix and a zero-padded number. Only a
line that is nothing but the stamp counts, so an invoice number inside a
sentence is never mistaken for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evidence.errors import EvidenceError

# The prefix ends with a letter: in ``ABC0001234`` (no separator, the common form) it is "ABC",
# never "ABC000" with the zeros taken from the number.
_STAMP_LINE = re.compile(r"^\s*([A-Z][A-Z0-9]{0,10}[A-Z])[-_ ]?(\d{4,9})\s*$")


@dataclass(frozen=True)
class Bates:
    prefix: str
    number: int
    text: str  # as stamped


def parse_bates(value: str) -> Bates | None:
    match = _STAMP_LINE.match(value)
    if not match:
        return None
    return Bates(prefix=match[1], number=int(match[2]), text=value.strip())


def bates_on_page(text: str) -> Bates | None:
    """The stamp on a page: its last three non-empty lines are searched first, then its first two.

    Only the head and foot of the page can hold a stamp, so only those are split into lines (a
    line cut at the window's edge is dropped: a cut line is not a whole stamp line).
    """
    if len(text) > 400:
        head_lines, foot_lines = text[:200].splitlines()[:-1], text[-200:].splitlines()[1:]
    else:
        head_lines = foot_lines = text.splitlines()
    head = [line for line in head_lines if line.strip()][:2]
    foot = [line for line in foot_lines if line.strip()][-3:]
    for line in [*reversed(foot), *head]:
        found = parse_bates(line)
        if found:
            return found
    return None


def parse_bates_range(value: str) -> tuple[Bates, Bates]:
    """``HPP-000010..HPP-000020`` (or one number) into its two ends, with a clear error otherwise."""
    first, sep, last = value.partition("..")
    start, end = parse_bates(first), parse_bates(last if sep else first)
    if start is None or end is None or start.prefix != end.prefix or start.number > end.number:
        raise EvidenceError(
            f"'{value}' is not a Bates range. Write it as PREFIX-000010..PREFIX-000020 "
            "(same prefix, lower number first).",
            title="Bates range not understood",
        )
    return start, end
