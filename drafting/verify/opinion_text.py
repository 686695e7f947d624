"""An opinion's text as one reading, and where each of its reporter pages (or paragraphs) begins.

Vendors and courts print page boundaries in many ways: a bracketed parallel-page line
(``[148 A.3d 443]``, or ``[945 N.E.2d 485 , 920 N.Y.S.2d 292]`` where two break together), star pages (``*484``, ``**291``: one star per reporter, in the order the
citations are given; Lexis brackets them, ``[*484]``), bare bracketed pages (``[484]``), "Page 587" lines, and paragraph numbers (``¶ 37``) in public-domain
opinions. Courts' PDFs add running heads and footers to every page ("- 12 -", "Cite as:", ECF
stamps). None of these is part of the opinion's words, so a quotation that runs across one must
still be found: they are taken out of the text, and each page marker is kept as a boundary, so
a pin can be checked against the opinion's page range and a quotation placed on its page.

A copy with no marker of a reporter's pages (a slip opinion) has no known range in that
reporter: its pins cannot be checked, which the verifier says instead of guessing.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field

from drafting.verify.sources import Page
from drafting.verify.text import normalize_for_match

_BRACKET = re.compile(r"\[\s*(\d{1,4})\s+([A-Z][A-Za-z0-9.' ]{0,25}?)\s*(\d{1,5})\s*\]")
# Parallel pages that break at one place, in one bracket: "[945 N.E.2d 485 , 920 N.Y.S.2d 292]".
_ONE_PAGE = r"\d{1,4}\s+[A-Z][A-Za-z0-9.' ]{0,25}?\s*\d{1,5}"
_BRACKETS = re.compile(rf"\[\s*{_ONE_PAGE}(?:\s*[,;]\s*{_ONE_PAGE})+\s*\]")
_PAGE_IN_GROUP = re.compile(r"(\d{1,4})\s+([A-Z][A-Za-z0-9.' ]{0,25}?)\s*(\d{1,5})(?=\s*[,;\]])")
# A star may follow a letter: the Caselaw Access Project prints it where the page break split a
# word, then a space ("be*760 cause"), so the word is joined again around it.
_STAR = re.compile(r"(?<![\d*])(\*{1,3})(\d{1,5})\b")
_SPLIT_BY_STAR = re.compile(r"(?<=[a-z])\*{1,3}\d{1,5} (?=[a-z])")
# A star after "at" in a citation is a pin into another court's unpaged opinion, not this copy's page:
# "2009 WL 1259963, at *1-2", "Id. at *19", "supra, at **3". A page break that falls after the word
# "at" in a sentence ("looked at *23 the evidence") has no comma or "Id." before it.
_PIN_STAR = re.compile(r"(?:,|\b[Ii]d\.|\b(?:WL|LEXIS)\s+\d+)\s*at\s+$")
PIN_STAR_LOOKBACK = 24
# A bare bracketed number ("[12]", as some reprints print a page) is also how footnote calls and New
# York's citation years ("[2009]") are printed, so it is a page marker only where such numbers run
# through the copy as a reporter's pages do (see _bare_pages).
_BARE = re.compile(r"\[(\d{1,5})\]")
_PAGE_LINE = re.compile(r"^[ \t]*Page[ \t]+(\d{1,5})[ \t]*$", re.M)
_PARAGRAPH = re.compile(r"^[ \t]*¶[ \t]*(\d{1,4})\b", re.M)
# Running heads and footers that need no repetition to be known: slip-page numbers ("- 12 -",
# a bare number, "Page 3 of 20"), "Cite as:" heads, and the ECF stamp of every page of a filed
# document. A short order prints each only once or twice, too few times to tell by repetition.
_HEAD_LINE = re.compile(
    r"^[ \t]*(?:-[ \t]*\d{1,4}[ \t]*-|\d{1,4}|Page[ \t]+\d{1,4}[ \t]+of[ \t]+\d{1,4}|Cite as:.*|"
    r"Case:?[ \t]+\S+.*Document:?.*|"
    r"(?:Appellate )?Case:?[ \t]+\d.*Page:?[ \t]*\d+.*)[ \t]*$",
    re.M,
)
_DIGITS = re.compile(r"\d+")
_SPLIT_WORD = re.compile(r"[a-z]-$")
REPEATED_HEAD = 3  # a short line printed this often is a running head, not the opinion's words
HEAD_LINE_CHARS = 90
MAX_REPORTER_PAGES = 1500
MAX_FIRST_GAP = 12


@dataclass
class Series:
    """One reporter's pages in this copy: the page each boundary opens, at its offset in ``text``."""

    first: int
    offsets: list[int] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)

    @property
    def last(self) -> int:
        return max([self.first, *self.numbers])

    def page_at(self, offset: int) -> int:
        at = bisect.bisect_right(self.offsets, offset) - 1
        return self.first if at < 0 else self.numbers[at]

    def unmarked_to(self, offset: int) -> int:
        """The last page the text at ``offset`` may lie on: before a first marker that comes pages after
        the first ("*64" in 620 F.3d 62, a vendor's skipped headnotes), any page up to the marker's."""
        if self.offsets and offset < self.offsets[0]:
            return max(self.first, self.numbers[0] - 1)
        return self.page_at(offset)


@dataclass
class OpinionText:
    text: str  # normalized, markers and running heads taken out, pages joined
    series: dict[str, Series]  # citation key -> its pages, where this copy prints them
    pdf_offsets: list[int]  # where each of the file's pages begins in ``text``

    def pdf_page(self, offset: int) -> int:
        return max(0, bisect.bisect_right(self.pdf_offsets, offset) - 1)


def _squash(reporter: str) -> str:
    return re.sub(r"\s+", "", reporter)


def _running_heads(shapes: list[str]) -> set[str]:
    """Short lines repeated through the document (digits aside): its running heads and footers.
    ``shapes`` are its lines, stripped, with each run of digits as "#"."""
    if len(shapes) <= 40:
        return set()
    seen = Counter(line for line in shapes if 2 < len(line) <= HEAD_LINE_CHARS)
    return {line for line, n in seen.items() if n >= REPEATED_HEAD}


def read_opinion(pages: list[Page], citations: tuple[str, ...]) -> OpinionText:
    """The opinion's text, and the page series of each of ``citations`` that the copy prints."""
    lines, tops = _sheets(pages)
    shapes = [[_DIGITS.sub("#", line.strip()) for line in page_lines] for page_lines in lines]
    first_lines = lines[0][:OPENING_LINES] if lines else []
    opening = {_head_key(line) for line in first_lines if 2 < len(line.strip()) <= HEAD_LINE_CHARS}
    heads = _running_heads([shape for page_shapes in shapes for shape in page_shapes])
    bare = _bare_pages(pages, citations)
    pieces: list[str] = []
    pdf_offsets: list[int] = []
    markers: list[tuple[int, str, int, str]] = []  # (offset, kind, number, key-or-stars)
    line_starts: set[int] = set()  # the offsets of the markers that open their line
    length = 0
    for page_lines, page_shapes, page_tops in zip(lines, shapes, tops, strict=True):
        pdf_offsets.append(length)
        for index, (line, line_shape) in enumerate(zip(page_lines, page_shapes, strict=True)):
            stripped = line.strip()
            if not stripped:
                continue
            line, found = _take_markers(line, bare)
            head = line_shape in heads or _HEAD_LINE.fullmatch(stripped)
            if not found and (head or (index in page_tops and _sheet_head(stripped, opening))):
                continue
            for kind, number, label, at in found:
                offset = length + len(normalize_for_match(line[:at])) + (1 if length else 0)
                markers.append((offset, kind, number, label))
                if not line[:at].strip():
                    line_starts.add(offset)
            norm = normalize_for_match(line)
            if not norm:
                continue
            # only the piece's end can hold the split, so only its end is searched (pieces run long)
            if pieces and _SPLIT_WORD.search(pieces[-1][-2:]) and norm[0].isalpha():
                pieces[-1] = pieces[-1][:-1]  # "consti-" before a page marker, "tutional" after it
                length -= 1
            elif pieces:
                pieces.append(" ")
                length += 1
            pieces.append(norm)
            length += len(norm)
    text = "".join(pieces)
    return OpinionText(text, _series(markers, citations, line_starts), pdf_offsets)


_CASE_HEAD = re.compile(
    r"\s(?:v\.|V\.|vs\.|VS\.)\s|^(?:In re|IN RE|In the Matter of|IN THE MATTER OF|Matter of|MATTER OF|"
    r"Appeal of|APPEAL OF|Estate of|ESTATE OF|Ex parte|EX PARTE)\s"
)
_SMALL_WORDS = frozenset(["v.", "vs.", "ex", "rel.", "of", "and", "the", "for", "in", "re", "on", "at", "&"])
HEAD_WORDS = 12
OPENING_LINES = 40


def _head_key(line: str) -> str:
    return re.sub(r"[^a-z#]+", " ", _DIGITS.sub("#", line).lower()).strip()


def _sheet_head(line: str, opening: set[str]) -> bool:
    """Whether the first line of a page after the first is its running head: a title-like line (no
    word in lower case but the small ones) that names the case ("PETRO-LUBRICANT v. ADELMAN", "In re
    Eady") or repeats a line the first page opens with (the court's name). A two-page order prints
    it once, too few times to tell by repetition; prose at a page's top has words in lower case."""
    words = line.split()
    if not 0 < len(words) <= HEAD_WORDS or any(w[0].islower() and w not in _SMALL_WORDS for w in words):
        return False
    key = _head_key(line)
    return bool(_CASE_HEAD.search(line)) or (sum(c.isalpha() for c in key) >= 3 and key in opening)


# A bracketed page a printed line's end broke in two: "... only an [58 Va.App." / "250] authentication".
_OPEN_BRACKET = re.compile(r"\[\s*\d{1,4}\s+[A-Z][A-Za-z0-9.' ]{0,25}$")
_CLOSE_BRACKET = re.compile(r"^\s*\d{1,5}\s*\]")


def _rejoin_brackets(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        # a pleading paper's line number may come between the halves
        at = len(out) - 2 if len(out) >= 2 and out[-1].strip().isdigit() else len(out) - 1
        if at >= 0 and _CLOSE_BRACKET.match(line) and _OPEN_BRACKET.search(out[at].rstrip()):
            out[at] = f"{out[at].rstrip()} {line.lstrip()}"
        else:
            out.append(line)
    return out


def _sheets(pages: list[Page]) -> tuple[list[list[str]], list[set[int]]]:
    """Each page's lines, and which of them opens a printed page after the document's first: a PDF
    page, or a sheet of a text whose pages a form feed separates (as pdftotext writes them)."""
    lines: list[list[str]] = []
    tops: list[set[int]] = []
    for number, page in enumerate(pages):
        page_lines: list[str] = []
        page_tops: set[int] = set()
        for sheet, text in enumerate(page.text.split("\f")):
            sheet_lines = _rejoin_brackets(text.splitlines())
            first = next((i for i, line in enumerate(sheet_lines) if line.strip()), None)
            if first is not None and (number or sheet):
                page_tops.add(len(page_lines) + first)
            page_lines += sheet_lines
        lines.append(page_lines)
        tops.append(page_tops)
    return lines, tops


def _bare_pages(pages: list[Page], citations: tuple[str, ...]) -> bool:
    """Whether the copy's bare bracketed numbers are its pages: most of them rise in order, from
    a page just after a citation's first. Footnote calls start at [1], which no page marker marks."""
    numbers = [int(m[1]) for page in pages if "[" in page.text for m in _BARE.finditer(page.text)]
    run = _in_order(list(enumerate(numbers)))
    if len(run) < 2 or run[0][1] < 2:
        return False
    firsts = [int(key.rsplit(" ", 1)[1]) for key in citations if key.rsplit(" ", 1)[-1].isdigit()]
    return any(first <= run[0][1] <= first + MAX_FIRST_GAP for first in firsts)


def _take_markers(line: str, bare: bool = False) -> tuple[str, list[tuple[str, int, str, int]]]:
    """The line without its page markers, and each marker: kind, page, label, where it stood."""
    found: list[tuple[str, int, str, int]] = []
    # Each marker holds a character most lines lack; a line without it is not searched for that marker.
    page_line = _PAGE_LINE.fullmatch(line) if "Page" in line else None
    if page_line:
        return "", [("page", int(page_line[1]), "", 0)]
    paragraph = _PARAGRAPH.match(line) if "¶" in line else None
    if paragraph:
        found.append(("para", int(paragraph[1]), "", 0))
        line = line[paragraph.end() :]
    if "[" not in line and "*" not in line:
        return line, found
    out: list[str] = []
    last = 0
    markers = [*_BRACKETS.finditer(line), *_BRACKET.finditer(line), *_STAR.finditer(line)]
    if bare:
        markers += _BARE.finditer(line)
    for m in sorted(markers, key=lambda m: m.start()):
        if m.start() < last:
            continue
        if m.re is _STAR and _PIN_STAR.search(line, max(0, m.start() - PIN_STAR_LOOKBACK), m.start()):
            continue  # the words of a citation, which stay in the text
        out.append(line[last : m.start()])
        at = len("".join(out))
        if m.re is _BRACKETS:
            for page in _PAGE_IN_GROUP.finditer(m.group()):
                found.append(("bracket", int(page[3]), f"{page[1]} {_squash(page[2])}", at))
        elif m.re is _BRACKET:
            found.append(("bracket", int(m[3]), f"{m[1]} {_squash(m[2])}", at))
        elif m.re is _BARE:
            found.append(("bare", int(m[1]), "", at))
        else:
            found.append(("star", int(m[2]), m[1], at))
        last = m.end() + (m.re is _STAR and bool(_SPLIT_BY_STAR.match(line, m.start())))  # "be*760 cause"
    out.append(line[last:])
    return "".join(out), found


def _letters(reporter: str) -> str:
    return re.sub(r"[^a-z0-9]", "", reporter.lower())


def _same_slot(label: str, slot: str) -> bool:
    """ "134 Hawai'i" and "134 Haw.", "447 N.J.Super." and "447 N.J. Super.": one volume, one reporter."""
    (volume, _, reporter), (volume2, _, reporter2) = label.partition(" "), slot.partition(" ")
    a, b = _letters(reporter), _letters(reporter2)
    return volume == volume2 and len(a) >= 2 and len(b) >= 2 and (a.startswith(b) or b.startswith(a))


def _in_order(run: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of markers whose pages only rise (a judges' line or a footnote's star
    out of place is left out); nothing when most are out of order, which is no page run at all."""
    tails: list[int] = []  # tails[k]: index of the smallest last page of an ordered run of length k+1
    before: list[int] = [-1] * len(run)
    for i, (_, n) in enumerate(run):
        k = bisect.bisect_left([run[t][1] for t in tails], n)  # strictly rising: a page starts once
        before[i] = tails[k - 1] if k else -1
        tails[k : k + 1] = [i]
    chain: list[int] = []
    at = tails[-1] if tails else -1
    while at >= 0:
        chain.append(at)
        at = before[at]
    kept = [run[i] for i in reversed(chain)]
    return kept if len(kept) * 10 >= len(run) * 6 else []


def _end_notes(
    whole: list[tuple[int, int]], run: list[tuple[int, int]], line_starts: frozenset[int] | set[int]
) -> list[tuple[int, int]]:
    """The footnotes a copy prints after the opinion's last page, each opening with the star of the page
    it stands on ("*633 2 Prior to modification, ..." after "*634"): their words lie on that page.

    Only a star that opens its line, after the run's last page and within its pages, is one: a star
    out of order in the body is a judges' line or a footnote call, and stays out."""
    if not run:
        return []
    end, low, high = run[-1][0], run[0][1], run[-1][1]
    return [(o, n) for o, n in whole if o > end and o in line_starts and low <= n <= high]


def _series(
    markers: list[tuple[int, str, int, str]],
    citations: tuple[str, ...],
    line_starts: frozenset[int] | set[int] = frozenset(),
) -> dict[str, Series]:
    """Each citation's page series: bracket markers by volume and reporter; star, "Page" and ¶ runs
    by the citation whose first page they follow."""
    out: dict[str, Series] = {}
    parsed = [(key, *key.rsplit(" ", 1)) for key in citations]
    for key, slot, first in parsed:
        if not first.isdigit():
            continue
        start = int(first)
        # a bracketed citation of another case in the same volume ("[15 F.3d 1161]") is no page of this
        # one: its pages run from the first, as a star run's do
        own = [
            (o, n)
            for o, kind, n, label in markers
            if kind == "bracket" and _same_slot(label, slot) and start <= n < start + MAX_REPORTER_PAGES
        ]
        if own and own[0][1] <= start + MAX_FIRST_GAP:
            out[key] = Series(start, [o for o, _ in own], [n for _, n in own])
    runs: dict[str, list[tuple[int, int]]] = {}
    for offset, kind, number, label in markers:
        if kind in ("star", "page", "bare"):
            runs.setdefault(f"{kind}{label}", []).append((offset, number))
    for name, whole in sorted(runs.items()):
        run = _in_order(whole)
        if not run:
            continue  # not a run of pages: footnote stars, a list
        numbers = [n for _, n in run]
        # a vendor's first star may come pages after the first (headnotes, a syllabus skipped)
        fits = sorted(
            (numbers[0] - int(first), key)
            for key, _, first in parsed
            if key not in out
            and first.isdigit()
            and int(first) <= numbers[0] <= int(first) + MAX_FIRST_GAP
            and numbers[-1] - int(first) < MAX_REPORTER_PAGES
        )
        if fits:
            stars = len(name) - len("star") if name.startswith("star") else 1
            key = fits[0][1] if len(fits) < stars else [k for _, k in fits][stars - 1]
            paged = run + _end_notes(whole, run, line_starts) if name.startswith("star") else run
            out[key] = Series(int(key.rsplit(" ", 1)[1]), [o for o, _ in paged], [n for _, n in paged])
    paragraphs = [(o, n) for o, kind, n, _ in markers if kind == "para"]
    if len(paragraphs) >= 2:
        for key, slot, _ in parsed:
            if _is_neutral(slot) and key not in out:
                out[key] = Series(1, [o for o, _ in paragraphs], [n for _, n in paragraphs])
    return out


_NEUTRAL_SLOT = re.compile(r"^(?:19|20)\d\d ")


def _is_neutral(slot: str) -> bool:
    """A public-domain citation's slot: its volume is the year ("2018 WI", "2022 NCSC")."""
    return bool(_NEUTRAL_SLOT.match(slot))
