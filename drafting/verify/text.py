"""Draft text as the checks see it: sections with whitespace collapsed, and spans mapped back.

eyecite loses a citation's court and year when a newline sits before its parenthetical
(eyecite issue #297), and quotations wrap across lines, so every check reads whitespace-collapsed
text. Spans in flags must index the draft as the attorney wrote it, so each cleaned section
keeps the original offset of every character. Sections end at blank lines and stay a few
thousand characters long, because eyecite rescans the rest of its input for each full citation.
"""

from __future__ import annotations

import bisect
import html
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from drafting.verify.case_names import ABBREVIATIONS

SECTION_CHARS = 6000
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
# Abbreviations whose period does not end a sentence in legal prose.
_ABBREVIATIONS = frozenset(
    [
        "v",
        "vs",
        "dep",
        "ex",
        "rel",  # "State ex rel. Cooper": the relator's name follows
        "exs",
        "exh",
        "id",
        "inc",
        "co",
        "corp",
        "ltd",
        "llc",
        "no",
        "nos",
        "cir",
        "app",
        "supp",
        "ms",
        "mr",
        "mrs",
        "dr",
        "st",
        "e.g",
        "i.e",
        "cf",
        "at",
        "p",
        "pp",
        "para",
        "sec",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "seq",
        "al",
        "ed",
        "rev",
        "stat",
        "ann",
        "elec",
        "int'l",
        "nat'l",
        "ass'n",
        "dep't",
        "gov't",
        "comm'n",
        "cal",
        "tex",
        "univ",
        "dist",
        "ct",
        "ed",
        "s",
        "u.s",
        "f",
        "n.y",
        "jr",
        "sr",
        "bros",
        "assn",
        "dept",
        "mfg",
        "sup",
        "reg'l",
        "ins",
        # Bluebook T6 words in case names
        "gen",
        "mgmt",
        "sys",
        "serv",
        "servs",
        "prods",
        "indus",
        "ctr",
        "hosp",
        "auth",
        "fed",
        "envtl",
        "mut",
        "sav",
        "fin",
        "cnty",
        "transp",
        "am",
        "bd",
        "educ",
        "comm",
        "admin",
        "pharm",
        "tech",
        "tel",
        "tex",
        "ariz",
        "colo",
        "conn",
        "fla",
        "ga",
        "ill",
        "ind",
        "kan",
        "ky",
        "la",
        "md",
        "mass",
        "mich",
        "minn",
        "miss",
        "mo",
        "mont",
        "neb",
        "nev",
        "okla",
        "or",
        "pa",
        "tenn",
        "va",
        "wash",
        "wis",
        "wyo",
    ]
) | frozenset(
    # every abbreviation of the Bluebook's tables T6 and T10 ("Int'l Fid. Ins. Co."), save those that
    # are also words a sentence ends on ("the court found.")
    word
    for word in ABBREVIATIONS
    if word not in ("all", "found", "equal", "rest", "coal", "bus", "sol", "rec", "ret", "res")
)
_SENTENCE_END = re.compile(r"[.!?][\"”')\]]*\s+(?=[\"“(]?[A-Z])")


@dataclass(frozen=True)
class Section:
    text: str  # whitespace collapsed
    base: int  # where text[0] is in the draft
    shift_at: tuple[int, ...]  # from these positions of ``text`` on...
    shift_by: tuple[int, ...]  # ...this many more draft characters lie before (collapsed whitespace)
    breaks: tuple[
        int, ...
    ] = ()  # where a blank line or a heading began: a sentence ends there whatever the punctuation

    def _draft_index(self, position: int) -> int:
        run = bisect.bisect_right(self.shift_at, position) - 1
        return self.base + position + (self.shift_by[run] if run >= 0 else 0)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """A span of the collapsed text as a span of the draft."""
        if end <= start:
            at = self._draft_index(start)
            return at, at
        return self._draft_index(start), self._draft_index(end - 1) + 1


def sections(draft: str, limit: int = SECTION_CHARS) -> Iterator[Section]:
    """The draft in sections of whole paragraphs (one over-long paragraph is one section)."""
    start = 0
    pieces: list[tuple[int, int]] = []
    for match in _PARAGRAPH.finditer(draft):
        pieces.append((start, match.start()))
        start = match.end()
    pieces.append((start, len(draft)))
    group_start, group_end = pieces[0]
    for piece_start, piece_end in pieces[1:]:
        if piece_end - group_start > limit:
            yield _clean(draft, group_start, group_end)
            group_start = piece_start
        group_end = piece_end
    yield _clean(draft, group_start, group_end)


# Whitespace other than one plain space: a run that starts with a space is odd only if more
# whitespace follows. Written to begin with ``\s`` so the scan jumps from space to space.
_ODD_SPACE = re.compile(r"\s(?:(?<! )|(?=\s))\s*")
_BREAK_BEFORE = "#-*|>"
_ODD_SPACE_OR_ENTITY = re.compile(_ODD_SPACE.pattern + r"|&(?:#\d{1,6}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});")


def _clean(draft: str, start: int, end: int) -> Section:
    """Collapse whitespace with C-speed regular expressions; only the odd runs are recorded.

    A Markdown draft's character references ("&amp;", "&lsquo;") are read as the one character
    they show, recorded like a collapsed run, so a flag's span still covers the draft as written.
    """
    raw = draft[start:end]
    stripped = raw.strip()
    base = start + (len(raw) - len(raw.lstrip()))
    raw = stripped
    shift_at: list[int] = []
    shift_by: list[int] = []
    breaks: list[int] = []
    removed = 0
    kept: list[str] = []  # the text between odd runs, each run then written as one space
    previous_end = 0
    pattern = _ODD_SPACE_OR_ENTITY if "&" in raw else _ODD_SPACE
    for match in pattern.finditer(raw):
        shown = " "
        if match.group()[0] == "&":
            shown = html.unescape(match.group())
            if len(shown) != 1:
                continue  # not a reference Markdown would show as one character: kept as written
        after = match.start() - removed + 1  # the first collapsed position after this run
        removed += match.end() - match.start() - 1
        shift_at.append(after)
        shift_by.append(removed)
        newlines = match.group().count("\n")
        if newlines > 1 or (newlines and raw[match.end() : match.end() + 1] in tuple(_BREAK_BEFORE)):
            breaks.append(after)
        kept += (raw[previous_end : match.start()], shown)
        previous_end = match.end()
    kept.append(raw[previous_end:])
    return Section("".join(kept), base, tuple(shift_at), tuple(shift_by), tuple(breaks))


def is_abbreviation(text: str, stop: int) -> bool:
    """Whether the period at ``text[stop]`` closes a legal abbreviation or an initial, not a sentence."""
    word = text[max(0, stop - 7) : stop].split(" ")[-1].lower().lstrip("(").replace("’", "'")
    return word in _ABBREVIATIONS or len(word) == 1 or "." in word


def sentence_bounds(text: str, breaks: tuple[int, ...] = ()) -> list[tuple[int, int]]:
    """Sentences of collapsed text; a period after a legal abbreviation or an initial does not end one."""
    ends = [(b - 1, b) for b in breaks]  # the space before a break closes the sentence
    for match in _SENTENCE_END.finditer(text):
        if text[match.start()] == "." and is_abbreviation(text, match.start()):
            continue
        ends.append((match.start() + 1, match.end()))
    bounds: list[tuple[int, int]] = []
    start = 0
    for end, next_start in sorted(set(ends)):
        if end > start:
            bounds.append((start, end))
            start = next_start
        else:
            start = max(start, next_start)
    bounds.append((start, len(text)))
    return bounds


_QUOTE_MAP = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u00ad": "\u00ad",
    }
)
_BRACKETED = re.compile(r"\[([a-zA-Z]{0,3})\]")
# A soft hyphen anywhere, or a hyphen at a line's end between letters, splits a word for layout only.
_LAYOUT_HYPHEN = re.compile(r"\u00ad\s*|(?<=[^\W\d_])-[ \t]*\r?\n\s*(?=[^\W\d_])")
# Inside a word a hyphen is dropped on both sides of a comparison: "pre-empts" and a source's
# "pre-\nempts" (joined above to "preempts") then read alike, whichever way a line broke.
_WORD_HYPHEN = re.compile(r"(?<=[a-z])-(?=[a-z])")


def join_layout(text: str) -> str:
    """Undo what page layout did to words: soft hyphens and line-end hyphenation ("ulti-\nmately")."""
    return _LAYOUT_HYPHEN.sub("", text)


# A single mark that is no apostrophe (none of its sides a letter or digit) is a nested quotation's:
# "cannot be 'clear'" in a brief is the source's "cannot be “clear”".
_QUOTE_MARK = re.compile(r"(?<![a-z0-9])'|'(?![a-z0-9])")


# Each run of other characters, whitespace included, becomes one space. A lone space already is one,
# so it is left unmatched: an opinion's words are mostly single spaces apart, and each match costs.
_NON_WORD_RUN = re.compile(r"[^a-z0-9$%.,;:'\-]{2,}|[^a-z0-9$%.,;:'\- ]")
# The quote map as single-character replacements: str.replace scans in C where translate looks up
# every character, and no replacement is another's key, so the order does not matter.
_QUOTE_PAIRS = tuple((chr(k), v) for k, v in _QUOTE_MAP.items() if chr(k) != v)


def normalize_for_match(text: str) -> str:
    """Lower case, plain quotes and dashes, layout hyphens joined, ligatures (NFKC) and alteration
    brackets undone, section signs and odd spaces to plain spaces, whitespace collapsed.

    Every opinion's every line passes through here, so each step is skipped where the character it
    needs is absent (the result is the same either way)."""
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        for odd, plain in _QUOTE_PAIRS:
            if odd in text:
                text = text.replace(odd, plain)
    if "\u00ad" in text or ("-" in text and "\n" in text):
        text = join_layout(text)
    if "[" in text:
        text = _BRACKETED.sub(r"\1", text)
    text = text.lower()
    if "-" in text:
        text = _WORD_HYPHEN.sub("", text)
    if "'" in text:
        text = _QUOTE_MARK.sub(" ", text)
    return _NON_WORD_RUN.sub(" ", text).strip()
