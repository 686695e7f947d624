"""Matching what to redact in any text, however it is spaced: the search every place of a PDF shares.

A hostile or careless document spreads a secret out: ``5 3 1 - 4 4 - 9 0 8 7``
(letter-spaced), ``Nigh tjar`` (a word drawn in pieces, so extraction puts a
space inside it), ``531–44–9087`` (en dashes). So text is *folded*: whitespace
and dashes are dropped and the rest is case-folded, and a needle is searched in
the folded text. Each folded character remembers the character (and so the
box) it came from, which is how a hit on a page maps back to glyph boxes.

Dropping every gap would also find ``cat`` in "publi**c at**torney". So a
match may cross a gap the needle does not have only where one side of that gap
is a whole piece of text inside the match: a letter-spaced glyph, or a word
split in two. Nor is a number a hit inside a longer number.

Patterns (``\\d{3}-\\d{2}-\\d{4}``) cannot be folded, so they are run over
three views of the text: as written, with letter-spaced runs (three or more
single characters in a row) closed up, and with dashes read as spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from exhibits.patterns import Pattern

DASHES = frozenset("-\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d")
_BROKEN_AT_DASH = re.compile(r"-[^\S\n]*\n\s*")  # "531-44-" at a line's end, "9087" on the next
_SPACED_RUN = re.compile(r"(?<!\S)(?:\S[^\S\n]+){2,}\S(?!\S)")


def is_gap(char: str) -> bool:
    return char.isspace() or char in DASHES


_PLAIN_DASHES = str.maketrans(dict.fromkeys(DASHES, "-"))
_GAPS = re.compile(r"[\s" + re.escape("".join(sorted(DASHES))) + "]+")


def fold(text: str) -> str:
    """``text`` without whitespace or dashes, case-folded: the form every needle is compared in."""
    return _GAPS.sub("", text).casefold()


@dataclass
class FoldedText:
    """Folded text whose every character knows its source index and which piece of text it belongs to."""

    text: str = ""
    source: list[int] = field(default_factory=list)  # index of the original character
    piece: list[int] = field(default_factory=list)  # pieces are runs of text between gaps

    @classmethod
    def of(cls, chars: Iterable[str]) -> FoldedText:
        folded = cls()
        parts: list[str] = []
        piece, gap = 0, False
        for index, char in enumerate(chars):
            if is_gap(char) or not char:
                gap = True
                continue
            if gap:
                piece, gap = piece + 1, False
            for out in char.casefold():
                parts.append(out)
                folded.source.append(index)
                folded.piece.append(piece)
        folded.text = "".join(parts)
        return folded

    def find(self, needle: str) -> list[tuple[int, int]]:
        """Spans (start, end) of the folded text where ``needle`` is, by the gap rule above."""
        target = fold(needle)
        if not target:
            return []
        own_gaps = _gap_offsets(needle)
        found = []
        start = self.text.find(target)
        while start >= 0:
            end = start + len(target)
            if self._gaps_allowed(start, end, own_gaps) and not self._inside_number(start, end):
                found.append((start, end))
            start = self.text.find(target, start + 1)
        return found

    def _gaps_allowed(self, start: int, end: int, own_gaps: set[int]) -> bool:
        for at in range(start + 1, end):
            if self.piece[at] == self.piece[at - 1] or (at - start) in own_gaps:
                continue
            left_whole = self._piece_start(at - 1) >= start
            right_whole = self._piece_end(at) <= end
            if not (left_whole or right_whole):
                return False
        return True

    def _inside_number(self, start: int, end: int) -> bool:
        """A number found inside a longer one (123-45-6789 in invoice 1234567890123) is not a hit."""
        before = start > 0 and self.piece[start - 1] == self.piece[start] and self.text[start - 1].isdigit()
        after = end < len(self.text) and self.piece[end] == self.piece[end - 1] and self.text[end].isdigit()
        return (before and self.text[start].isdigit()) or (after and self.text[end - 1].isdigit())

    def _piece_start(self, at: int) -> int:
        while at > 0 and self.piece[at - 1] == self.piece[at]:
            at -= 1
        return at

    def _piece_end(self, at: int) -> int:
        while at + 1 < len(self.piece) and self.piece[at + 1] == self.piece[at]:
            at += 1
        return at + 1


def _gap_offsets(needle: str) -> set[int]:
    """Offsets in the folded needle where the needle itself has a space or a dash."""
    offsets, count, gap = set(), 0, False
    for char in needle:
        if is_gap(char):
            gap = True
            continue
        if gap:
            offsets.add(count)
            gap = False
        count += len(char.casefold())
    return offsets


def pattern_views(text: str) -> list[str]:
    """The text as written (dashes made plain, lines broken at a dash joined), with letter-spaced runs
    closed up, and with dashes as spaces.

    The last view finds an identifier glued to more text by a dash (a page label "531-44-9087-1"),
    which the patterns, wary of longer numbers, refuse as written.
    """
    written = text.translate(_PLAIN_DASHES)
    plain = _BROKEN_AT_DASH.sub("-", written)
    closed = _SPACED_RUN.sub(lambda m: "".join(m.group(0).split()), plain)
    views = [written, plain, closed, plain.replace("-", " ")]
    return list(dict.fromkeys(views))


def _one_per_fold(wanted: dict[str, str]) -> list[tuple[str, str]]:
    """The first of values that fold alike ("123-45-6789" and "123 45 6789" are one hit, not two)."""
    seen: set[str] = set()
    kept = []
    for value, reason in wanted.items():
        if fold(value) not in seen:
            seen.add(fold(value))
            kept.append((value, reason))
    return kept


@dataclass(frozen=True)
class Matcher:
    """What to look for: the attorney's terms, the patterns, and every string already removed."""

    terms: Sequence[str] = ()
    patterns: Sequence[Pattern] = ()
    known: dict[str, str] = field(default_factory=dict)  # removed string -> its reason

    def find(self, text: str) -> dict[str, str]:
        """Every value to remove from ``text``, with its reason ("term 1", "pattern ssn")."""
        if not text.strip():
            return {}
        flat = fold(text)
        named = [(term, f"term {number}") for number, term in enumerate(self.terms, start=1)]
        terms = [(v, r) for v, r in named if fold(v) and fold(v) in flat]
        known = [(v, r) for v, r in self.known.items() if fold(v) and fold(v) in flat]
        folded = FoldedText.of(text) if terms or known else FoldedText()  # the exact check, only when likely
        wanted = {value: reason for value, reason in terms if folded.find(value)}
        for view in pattern_views(text):
            for pattern in self.patterns:
                for value in pattern.find(view):
                    wanted.setdefault(value, f"pattern {pattern.name}")
        for value, reason in known:
            if value not in wanted and folded.find(value):
                wanted[value] = reason
        return {value: reason for value, reason in _one_per_fold(wanted)}

    def reasons(self, text: str) -> list[str]:
        """Why ``text`` still holds something to remove (never the text itself)."""
        return sorted(set(self.find(text).values()))

    def with_known(self, known: dict[str, str]) -> Matcher:
        return Matcher(self.terms, self.patterns, {**self.known, **known})
