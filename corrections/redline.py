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
   restricted to the changed paragraphs it is fast. ``SequenceMatcher(autojunk=False)`` is not used
   here: on a brief with every paragraph edited (only its page numbers equal) it cost 30x a line diff,
   since its cost grows with the square of a changed stretch, and such a brief is eleven-paragraph
   stretches.

The edit ratio is ``(words added + words removed) / (draft words + final words)``, which equals one
minus the longest-common-subsequence similarity of the two word lists: 0 is accepted as drafted, 1 is
rewritten from scratch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

from rapidfuzz.distance import Indel

from corrections.align import align
from drafting.redline_marks import DELETE, INSERT, KEEP, marked

EQUAL = KEEP  # a run both texts share
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_WORD = re.compile(r"\s*\S+")
# A "paragraph" this long that holds line breaks is a hard-wrapped or line-per-entry text: its lines
# become the units, so one edit does not send a whole chapter to the word pass.
MAX_UNIT_WORDS = 400


class Segment(NamedTuple):
    """A run of kept, inserted or deleted text. A tuple, not a frozen dataclass: a 50-page brief with a
    tenth of its words edited makes some 5,000, and a dataclass's slower construction was a fifth of
    the redline's time."""

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
    added = removed = draft_words = final_words = 0  # counted per stretch: each text is split once
    for tag, i1, i2, j1, j2 in align([u.strip() for u in a], [u.strip() for u in b]):
        old, new = "".join(a[i1:i2]), "".join(b[j1:j2])
        if tag == "equal":
            _extend(segments, [Segment(EQUAL, new)])
            count = len(new.split())
            draft_words += count
            final_words += count
        elif tag == "delete":
            _extend(segments, [Segment(DELETE, old)])
            count = len(old.split())
            removed += count
            draft_words += count
        elif tag == "insert":
            _extend(segments, [Segment(INSERT, new)])
            count = len(new.split())
            added += count
            final_words += count
        else:
            words = word_diff(old, new)
            _extend(segments, words.segments)
            added += words.words_added
            removed += words.words_removed
            draft_words += words.draft_words
            final_words += words.final_words
            pairs.extend(_pair_paragraphs(a[i1:i2], b[j1:j2]))
    return Redline(tuple(segments), added, removed, draft_words, final_words, tuple(pairs))


def _extend(segments: list[Segment], more: Sequence[Segment]) -> None:
    """Append ``more``, joining the first to the last one of its kind: a stretch's segments alternate
    kinds already, so only where two stretches meet can two of one kind be adjacent."""
    if more and segments and segments[-1].kind == more[0].kind:
        segments[-1] = Segment(more[0].kind, segments[-1].text + more[0].text)
        more = more[1:]
    segments.extend(more)


def word_diff(old: str, new: str) -> Redline:
    """A word-level redline of one changed stretch (whitespace travels with the word after it).

    Every token is one word with the whitespace before it, and a stretch's trailing whitespace is one
    token more (compared as ""), so the words a change adds or removes are counted from its indices.
    With a tenth of a brief's words edited this loop runs some 10,000 times, hence its plain shape.
    """
    a, b = _tokens(old), _tokens(new)
    old_words, new_words = old.split(), new.split()
    a_words, b_words = len(old_words), len(new_words)
    opcodes = cast(
        list[tuple[str, int, int, int, int]],
        Indel.opcodes(_keys(old_words, a), _keys(new_words, b)).as_list(),
    )
    opcodes.append(("equal", len(a), len(a), len(b), len(b)))  # ends the last change, if any
    segments: list[Segment] = []
    added = removed = 0
    gone_from = came_from = -1  # the start of the change being gathered (a run of inserts and deletes)
    for tag, i1, _i2, j1, j2 in opcodes:
        if tag != "equal":
            if gone_from < 0:
                gone_from, came_from = i1, j1
            continue
        if gone_from >= 0:  # the change ends here: removed first, then added, as "[-old-]{+new+}" reads
            if i1 > gone_from:
                segments.append(Segment(DELETE, "".join(a[gone_from:i1])))
                removed += min(i1, a_words) - min(gone_from, a_words)
            if j1 > came_from:
                segments.append(Segment(INSERT, "".join(b[came_from:j1])))
                added += min(j1, b_words) - min(came_from, b_words)
            gone_from = -1
        if j2 > j1:
            segments.append(Segment(EQUAL, "".join(b[j1:j2])))
    return Redline(tuple(segments), added, removed, a_words, b_words, ())


def _tokens(text: str) -> list[str]:
    tokens = _WORD.findall(text)
    tail = len(text) - len(text.rstrip())
    if tail and tail < len(text):
        tokens.append(text[-tail:])  # the trailing whitespace, a token of its own
    elif tail:
        tokens = [text]  # only whitespace
    return tokens


def _keys(words: list[str], tokens: list[str]) -> list[str]:
    """What each token is compared by: its word (``str.split`` costs far less than stripping every token),
    and "" for the trailing whitespace kept as a token of its own."""
    return [*words, ""] if len(tokens) > len(words) else words


def _pair_paragraphs(old: list[str], new: list[str]) -> list[ParagraphPair]:
    """One-to-one where the counts match (an edited paragraph), else the stretch as one pair."""
    if len(old) == len(new):
        return [
            ParagraphPair(o.strip(), n.strip())
            for o, n in zip(old, new, strict=True)
            if o.strip() != n.strip()
        ]
    return [ParagraphPair("".join(old).strip(), "".join(new).strip())]


def redline_markup(line: Redline) -> str:
    """Plain-text redline for the command line and exports: [-removed-] and {+added+}."""
    return "".join(marked(s.kind, s.text) for s in line.segments)
