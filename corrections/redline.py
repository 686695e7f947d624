"""The redline from the model's draft to the attorney's final text: one algorithm for every reader.

The TUI shows it, the exports and the capture store its figures, and the statistics average them, so
"how much did he change" means the same thing everywhere.

Two passes, because neither difflib pass alone is right for a brief:

1. Paragraphs (blocks separated by blank lines) are aligned by ``corrections.align``: whole
   paragraphs are cheap to compare, so a 50-page brief aligns in milliseconds, and its patience
   strategy keeps the popular lines of a brief ("Id.", headings) from either being junked (as
   ``autojunk`` would) or costing seconds (as ``SequenceMatcher`` without it would).
2. Only inside paragraphs that changed are words aligned, by rapidfuzz's ``Indel`` (the longest
   common subsequence, computed in C). A whole document word diff is right but takes seconds;
   restricted to the changed paragraphs it is fast. ``SequenceMatcher(autojunk=False)`` did this pass
   until a brief with every paragraph edited (only its page numbers equal) cost 30x a line diff: its
   cost grows with the square of a changed stretch, and such a brief is eleven-paragraph stretches.

The edit ratio is ``(words added + words removed) / (draft words + final words)``, which equals one
minus the longest-common-subsequence similarity of the two word lists: 0 is accepted as drafted, 1 is
rewritten from scratch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rapidfuzz.distance import Indel, Opcode

from corrections.align import align

EQUAL, INSERT, DELETE = "=", "+", "-"
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_WORD = re.compile(r"\s*\S+|\s+$")
# A "paragraph" this long that holds line breaks is a hard-wrapped or line-per-entry text: its lines
# become the units, so one edit does not send a whole chapter to the word pass.
MAX_UNIT_WORDS = 400


@dataclass(frozen=True)
class Segment:
    kind: str  # EQUAL, INSERT or DELETE
    text: str  # exactly as written, whitespace included


@dataclass(frozen=True)
class ParagraphPair:
    """A changed stretch of paragraphs: the model's version and the attorney's."""

    draft: str
    final: str


@dataclass(frozen=True)
class Redline:
    segments: tuple[Segment, ...]
    words_added: int
    words_removed: int
    draft_words: int
    final_words: int
    paragraph_pairs: tuple[ParagraphPair, ...]

    @property
    def edit_ratio(self) -> float:
        total = self.draft_words + self.final_words
        return (self.words_added + self.words_removed) / total if total else 0.0

    @property
    def unchanged(self) -> bool:
        return self.words_added == 0 and self.words_removed == 0


def split_units(text: str) -> list[str]:
    """Paragraphs with their trailing separator, so ``"".join(split_units(t)) == t``."""
    units: list[str] = []
    start = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        units.extend(_split_long(text[start : match.end()]))
        start = match.end()
    if start < len(text):
        units.extend(_split_long(text[start:]))
    return units


def _split_long(paragraph: str) -> list[str]:
    if "\n" not in paragraph.rstrip() or len(paragraph.split()) <= MAX_UNIT_WORDS:
        return [paragraph]
    return paragraph.splitlines(keepends=True)


def redline(draft: str, final: str) -> Redline:
    """The two-pass redline from ``draft`` to ``final``."""
    a, b = split_units(draft), split_units(final)
    segments: list[Segment] = []
    pairs: list[ParagraphPair] = []
    added = removed = 0
    for tag, i1, i2, j1, j2 in align([u.strip() for u in a], [u.strip() for u in b]):
        old, new = "".join(a[i1:i2]), "".join(b[j1:j2])
        if tag == "equal":
            segments.append(Segment(EQUAL, new))
        elif tag == "delete":
            segments.append(Segment(DELETE, old))
            removed += len(old.split())
        elif tag == "insert":
            segments.append(Segment(INSERT, new))
            added += len(new.split())
        else:
            words = word_diff(old, new)
            segments.extend(words.segments)
            added += words.words_added
            removed += words.words_removed
            pairs.extend(_pair_paragraphs(a[i1:i2], b[j1:j2]))
    return Redline(
        tuple(_merge(segments)), added, removed, len(draft.split()), len(final.split()), tuple(pairs)
    )


def word_diff(old: str, new: str) -> Redline:
    """A word-level redline of one changed stretch (whitespace travels with the word after it)."""
    a, b = _WORD.findall(old), _WORD.findall(new)
    old_words, new_words = old.split(), new.split()
    segments: list[Segment] = []
    added = removed = 0
    for tag, i1, i2, j1, j2 in _changes(Indel.opcodes(_keys(old_words, a), _keys(new_words, b))):
        if tag == "equal":
            segments.append(Segment(EQUAL, "".join(b[j1:j2])))
            continue
        if i2 > i1:
            gone = "".join(a[i1:i2])
            segments.append(Segment(DELETE, gone))
            removed += len(gone.split())
        if j2 > j1:
            came = "".join(b[j1:j2])
            segments.append(Segment(INSERT, came))
            added += len(came.split())
    return Redline(tuple(segments), added, removed, len(old_words), len(new_words), ())


def _keys(words: list[str], tokens: list[str]) -> list[str]:
    """What each token is compared by: its word (``str.split`` costs far less than stripping every token),
    and "" for the trailing whitespace that ``_WORD`` keeps as a token of its own."""
    return [*words, ""] if len(tokens) > len(words) else words


def _changes(opcodes: Iterable[Opcode]) -> Iterator[tuple[str, int, int, int, int]]:
    """Indel's opcodes with each run of inserts and deletes joined into one change, so that a replaced
    word reads as ``[-old-]{+new+}`` (removed first) as it did with ``SequenceMatcher``'s "replace"."""
    change: tuple[str, int, int, int, int] | None = None
    for op in opcodes:
        if op.tag != "equal":
            start = (op.src_start, op.dest_start) if change is None else (change[1], change[3])
            change = ("replace", start[0], op.src_end, start[1], op.dest_end)
            continue
        if change is not None:
            yield change
            change = None
        yield ("equal", op.src_start, op.src_end, op.dest_start, op.dest_end)
    if change is not None:
        yield change


def _pair_paragraphs(old: list[str], new: list[str]) -> list[ParagraphPair]:
    """One-to-one where the counts match (an edited paragraph), else the stretch as one pair."""
    if len(old) == len(new):
        return [
            ParagraphPair(o.strip(), n.strip())
            for o, n in zip(old, new, strict=True)
            if o.strip() != n.strip()
        ]
    return [ParagraphPair("".join(old).strip(), "".join(new).strip())]


def _merge(segments: list[Segment]) -> list[Segment]:
    """Adjacent segments of one kind become one, so the TUI draws fewer spans."""
    merged: list[Segment] = []
    for seg in segments:
        if not seg.text:
            continue
        if merged and merged[-1].kind == seg.kind:
            merged[-1] = Segment(seg.kind, merged[-1].text + seg.text)
        else:
            merged.append(seg)
    return merged


def redline_markup(line: Redline) -> str:
    """Plain-text redline for the command line and exports: [-removed-] and {+added+}."""
    marks = {EQUAL: "{}", DELETE: "[-{}-]", INSERT: "{{+{}+}}"}
    return "".join(marks[s.kind].format(s.text) for s in line.segments)
