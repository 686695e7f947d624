"""One opinion's text laid out again as other publishers and courts print it, its pages kept.

The reporter pages are read from the file's own markers for its first citation (``*758``,
``Page 584``, ``[447 N.J.Super. 394]``), and the text between them is printed again with those
boundaries in another form (``*N``, ``[*N]``, ``[N]``, a "Page N" line, a bracketed line, one
that splits a hyphenated word), or with the sheets of a court's copy around it: lines wrapped
at 72 columns (with words broken by a hyphen), a slip-page footer ("- 3 -", "3", "Page 3 of
12"), a running head (a "Cite as:" line, the parties, the court), an ECF stamp, form feeds, or
a real PDF made by PyMuPDF with a text layer. None of this changes a word of the opinion or the
page any word is on, so the verifier must reach the same verdicts on every layout.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pymupdf

from tests.verify_wide.generate import case_name

SHEET_LINES = 40
ECF_SINCE = 1996
WIDTH = 72


@dataclass(frozen=True)
class Paged:
    """An opinion as its pages: what comes before its first marker, then (page, text) in order."""

    volume: str
    reporter: str
    head: str
    pages: tuple[tuple[int, str], ...]


def _marker(volume: str, reporter: str, *, brackets_only: bool) -> re.Pattern[str]:
    squeezed = re.escape(reporter.replace(" ", "")).replace(r"\.", r"\.\s?")
    bracket = rf"^\[{volume}\s?{squeezed}\s(\d+)\]\n"
    if brackets_only:  # a second reporter's pages, once the first's are printed as stars
        return re.compile(rf"{bracket}|(?!)()|(?!)()", re.MULTILINE)
    return re.compile(rf"{bracket}|(?<!\*)\*(\d+)\b ?|^Page (\d+)\n", re.MULTILINE)


def split_pages(text: str, cite: str, *, brackets_only: bool = False) -> Paged:
    """The opinion's pages in the reporter of ``cite`` ("447 N.J. Super. 391"), by its own markers.
    A bracket of several reporters' pages ("[945 N.E.2d 485 , 920 N.Y.S.2d 292]") is left as it is."""
    volume, reporter, _ = re.fullmatch(r"(\d+) (.+?) (\d+)", cite).groups()  # type: ignore[union-attr]
    pieces = _marker(volume, reporter, brackets_only=brackets_only).split(text)
    head = pieces[0]
    pages: list[tuple[int, str]] = []
    for index in range(1, len(pieces) - 1, 4):
        number, body = next(g for g in pieces[index : index + 3] if g), pieces[index + 3]
        before = pages[-1][1] if pages else head
        split = re.search(r"[A-Za-z]+\Z", before)
        if split:  # the Caselaw Access Project's star inside the word the break split ("be*760 cause")
            before, body = before[: split.start()], split.group() + body
            if pages:
                pages[-1] = (pages[-1][0], before)
            else:
                head = before
        pages.append((int(number), body))
    return Paged(volume, reporter, head, tuple(pages))


def _mid_sentence(before: str) -> bool:
    """Whether a page breaks inside a sentence (the words before it end in a letter or a comma)."""
    return bool(re.search(r"[a-z,]\Z", before.rstrip()))


def _inline(form: str, *, split_word: bool = False) -> Callable[[Paged, int, str, str], str]:
    def join(paged: Paged, number: int, before: str, after: str) -> str:
        marker, rest = form.format(number), after.lstrip(" ")
        if split_word and re.match(r"[A-Za-z]{8,}(?=[ ,])", rest) and _mid_sentence(before):
            # the star inside the word the break split, then a space: "be*760 cause"
            return f"{before.rstrip()} {rest[:4]}{marker} {rest[4:]}"
        gap = "" if before.endswith("\n") or not before else " "
        return before.rstrip(" ") + gap + marker + " " + rest

    return join


def _own_line(form: str, *, split_word: bool = False) -> Callable[[Paged, int, str, str], str]:
    def join(paged: Paged, number: int, before: str, after: str) -> str:
        marker = form.format(volume=paged.volume, reporter=paged.reporter.replace(" ", ""), page=number)
        word = re.match(r"([A-Za-z]{8,})(?=[ ,])", after.lstrip(" "))
        if split_word and word and _mid_sentence(before):
            # the break inside a word, as a printed page splits it: "consti-" / "tutional"
            rest = after.lstrip(" ")
            return f"{before.rstrip()} {rest[:4]}-\n{marker}\n{rest[4:]}"
        return before.rstrip(" ").rstrip("\n") + "\n" + marker + "\n" + after.lstrip(" ")

    return join


MARKERS: dict[str, Callable[[Paged, int, str, str], str]] = {
    "star": _inline("*{}"),
    "star-in-word": _inline("*{}", split_word=True),
    "second-star": _inline("**{}"),
    "lexis-star": _inline("[*{}]"),
    "lexis-second-star": _inline("[**{}]"),
    "bare-bracket": _inline("[{}]"),
    "page-line": _own_line("Page {page}"),
    "bracket-line": _own_line("[{volume} {reporter} {page}]"),
    "bracket-split-word": _own_line("[{volume} {reporter} {page}]", split_word=True),
}


def with_markers(paged: Paged, form: str) -> str:
    """The opinion with each page boundary printed in ``form`` (a key of MARKERS)."""
    join = MARKERS[form]
    text = paged.head
    for number, body in paged.pages:
        text = join(paged, number, text, body)
    return text


def wrapped(text: str, width: int = WIDTH, *, hyphenate: bool = False) -> list[str]:
    """Lines at most ``width`` wide; with ``hyphenate``, a long word at a line's end is broken by a hyphen."""
    out: list[str] = []
    for line in text.splitlines():
        words, current = line.split(), ""
        if not words:
            continue
        for word in words:
            if current and len(current) + 1 + len(word) > width:
                room = width - len(current) - 2
                if hyphenate and word.isalpha() and room >= 3 and len(word) - room >= 3:
                    out.append(f"{current} {word[:room]}-")
                    current = word[room:]
                    continue
                out.append(current)
                current = word
            else:
                current = f"{current} {word}" if current else word
        out.append(current)
    return out


@dataclass(frozen=True)
class Sheets:
    """A court's printed pages: the running heads over every sheet, the footer under it."""

    heads: tuple[str, ...] = ()  # each may hold {sheet} and {sheets}
    footer: str = ""
    first_head: bool = True  # courts often leave the first page's running head off
    separator: str = "\n"
    lines: int = SHEET_LINES  # 0: sheets end only at ``cuts``
    cuts: tuple[int, ...] = ()  # more sheet ends: after these lines (inside quoted sentences)

    def sheets(self, lines: list[str]) -> list[list[str]]:
        ends = set(range(self.lines, len(lines), self.lines)) if self.lines else set()
        ends |= {cut + 1 for cut in self.cuts if 0 <= cut < len(lines) - 1}
        bounds = [0, *sorted(ends), len(lines)]
        chunks = [lines[a:b] for a, b in itertools.pairwise(bounds)]
        out = []
        for index, chunk in enumerate(chunks, start=1):
            fill = {"sheet": index, "sheets": len(chunks)}
            heads = [h.format(**fill) for h in self.heads] if index > 1 or self.first_head else []
            foot = [self.footer.format(**fill)] if self.footer else []
            out.append([*heads, *chunk, *foot])
        return out

    def text(self, lines: list[str]) -> str:
        return self.separator.join("\n".join(sheet) for sheet in self.sheets(lines)) + "\n"


def cuts_inside(lines: list[str], sentences: Sequence[str]) -> tuple[int, ...]:
    """The line after which each of ``sentences`` continues on the next line: a sheet that ends there
    puts its footer, and the next sheet's heads, inside the sentence."""
    joined, starts = "", []
    for line in lines:
        if joined.endswith("-") and joined[-2:-1].isalpha() and line[:1].isalpha():
            joined = joined[:-1]  # a word the wrap broke reads whole, as the verifier reads it
        elif joined:
            joined += " "
        starts.append(len(joined))
        joined += line
    cuts = []
    for sentence in sentences:
        at = joined.find(sentence)
        if at < 0:
            continue
        first = max(i for i, start in enumerate(starts) if start <= at)
        if first + 1 < len(starts) and starts[first + 1] < at + len(sentence):
            cuts.append(first)
    return tuple(sorted(set(cuts)))


def pdf_bytes(sheets: list[list[str]], *, numbered: bool = False) -> bytes:
    """A PDF with one page per sheet and a text layer (every character, curly quotes included),
    each page as wide as its longest line needs; ``numbered``: on pleading paper, each line's
    number in the left margin, as California's courts print their orders."""
    doc = pymupdf.open()
    font = pymupdf.Font("cour")
    for sheet in sheets:
        width = max(612, 108 + 5.4 * max((len(line) for line in sheet), default=0))
        page = doc.new_page(width=width, height=max(792, 80 + 16 * len(sheet)))
        writer = pymupdf.TextWriter(page.rect)
        for row, line in enumerate(sheet):
            writer.append((54, 40 + row * 16), line, font=font, fontsize=9)
            if numbered and 0 < row < len(sheet) - 1:
                writer.append((18, 40 + row * 16), f"{row:>2}", font=font, fontsize=9)
        writer.write_text(page)
    data = doc.tobytes()
    doc.close()
    return bytes(data)


def ocr_spaced(text: str, every: int = 9) -> str:
    """Every ``every``-th long word broken by a space, as a scan's text layer breaks it ("rpea tedly")."""
    count = 0

    def brk(m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        word = m.group()
        return f"{word[:3]} {word[3:]}" if count % every == 0 else word

    return re.sub(r"(?<![\w*\[])[a-z]{9,}(?![\w\]])", brk, text)


def ecf_stamp(year: str) -> str:
    """The header CM/ECF prints on every page of a filed document, dated in the decision's year."""
    return f"Case 1:{year[-2:]}-cv-01234-ABC   Document 25   Filed 03/04/{year[-2:]}   Page {{sheet}} of {{sheets}}"


def write_layout(folder: Path, name: str, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _parallel_stars(text: str, cites: list[str], first: str, second: str) -> str | None:
    """Both reporters' pages as stars, one star for the first and two for the second (as the
    Caselaw Access Project prints parallel pages); None where the copy prints only one reporter's."""
    if len(cites) < 2 or not re.fullmatch(r"\d+ .+ \d+", cites[1]):
        return None
    paged = split_pages(text, cites[0])
    starred = with_markers(paged, first)
    again = split_pages(starred, cites[1], brackets_only=True)
    return with_markers(again, second) if paged.pages and again.pages else None


def _short_name(name: str) -> str:
    """The running head's short form of a case name: each side's first word ("PETRO-LUBRICANT v. ADELMAN")."""
    plaintiff, _, defendant = name.partition(" v. ")
    sides = [side.split()[0].strip(",").upper() for side in (plaintiff, defendant) if side.split()]
    return " v. ".join(sides) if len(sides) == 2 else name.split(",")[0].upper()


def layouts(entry: dict, text: str, quoted: Sequence[str] = ()) -> dict[str, str | bytes]:
    """The opinion of manifest ``entry`` (its file's ``text``) in every layout, by name; a PDF as bytes.
    A court's sheets end every SHEET_LINES lines and inside each of the ``quoted`` sentences."""
    cites = [c for c in entry["cites"] if re.fullmatch(r"\d+ .+ \d+", c)]
    paged = split_pages(text, cites[0]) if cites else Paged("", "", text, ())
    out: dict[str, str | bytes] = {"original": text}
    for form in MARKERS:
        if "second" not in form:
            out[form] = with_markers(paged, form) if paged.pages else text
    for name, first, second in (
        ("parallel-stars", "star", "second-star"),
        ("lexis-parallel", "lexis-star", "lexis-second-star"),
    ):
        out[name] = _parallel_stars(text, cites, first, second) or text
    out["ocr-spacing"] = ocr_spaced(text)
    # The caption and the citation lines are printed as the file has them; the opinion is wrapped.
    head, body = (paged.head, text[len(paged.head) :]) if paged.pages else ("", text)
    lines = head.splitlines() + wrapped(body, hyphenate=True)
    out["wrapped"] = "\n".join(head.splitlines() + wrapped(body)) + "\n"
    out["wrapped-hyphen"] = "\n".join(lines) + "\n"
    out["wrapped-caption"] = "\n".join(wrapped(text)) + "\n"  # a court's PDF wraps its caption too
    year = str(entry.get("year") or "2000")
    cite = (cites or entry["cites"] or ["1 U.S. 1"])[0]
    name = case_name(entry)
    # CM/ECF stamps a filed document's every page; an opinion from before it has none
    stamp = (ecf_stamp(year),) if int(year) >= ECF_SINCE else ()
    cuts = cuts_inside(lines, quoted)
    sheets = {
        "footer-dash": Sheets(footer="- {sheet} -", cuts=cuts),
        "footer-bare": Sheets(footer="{sheet}", cuts=cuts),
        "footer-of": Sheets(footer="Page {sheet} of {sheets}", cuts=cuts),
        # a text copy of a court's PDF separates its pages by form feeds, as pdftotext writes them
        "head-cite": Sheets(heads=(f"Cite as: {cite}",), first_head=False, cuts=cuts, separator="\f"),
        "head-parties": Sheets(heads=(name.upper(),), first_head=False, cuts=cuts, separator="\f"),
        "head-court": Sheets(
            heads=(str(entry["court"]).upper(),), first_head=False, cuts=cuts, separator="\f"
        ),
        "ecf": Sheets(heads=stamp, cuts=cuts),
        "form-feeds": Sheets(
            heads=(*stamp, f"Cite as: {cite}"),
            footer="- {sheet} -",
            separator="\f",
            cuts=cuts,
        ),
        # a short order: two sheets, so its footer is printed twice, too few times to tell by repetition
        "two-sheets-footer-of": Sheets(footer="Page {sheet} of {sheets}", lines=0, cuts=cuts[:1]),
    }
    for key, layout in sheets.items():
        out[key] = layout.text(lines)
    court = Sheets(heads=(*stamp, f"Cite as: {cite}"), footer="- {sheet} -", cuts=cuts)
    out["pdf"] = pdf_bytes(court.sheets(lines))
    for key, form in (("pdf-star", "star"), ("pdf-split-word", "bracket-split-word")):
        marked = with_markers(paged, form) if paged.pages else text
        cut = len(head.rstrip())  # a marker's line may have taken the head's last line break
        marked_lines = marked[:cut].splitlines() + wrapped(marked[cut:], hyphenate=True)
        out[key] = pdf_bytes(replace(court, cuts=cuts_inside(marked_lines, quoted)).sheets(marked_lines))
    out["pdf-pleading-paper"] = pdf_bytes(court.sheets(lines), numbered=True)
    # a two-page order whose second page is headed by the parties' names, printed that once
    parties = Sheets(
        heads=(_short_name(name if " v. " in name else str(entry["what"])),),
        first_head=False,
        lines=0,
        cuts=cuts[:1],
    )
    out["pdf-two-pages-parties"] = pdf_bytes(parties.sheets(lines))
    return out


_QUOTABLE = re.compile(r"[A-Z][A-Za-z0-9 ,;:'’()\-.]{40,400}[.]")


def crossing_sentences(text: str, cite: str, most: int = 3) -> list[tuple[int, int, str]]:
    """Sentences the page break runs through: (page it starts on, page it ends on, the sentence),
    read from the file's own markers, so a quotation of one is on both pages."""
    paged = split_pages(text, cite)
    first = int(cite.rsplit(" ", 1)[1])
    out: list[tuple[int, int, str]] = []
    before, page = paged.head, first
    for number, body in paged.pages:
        lines, after = before.rstrip().splitlines(), body.lstrip().splitlines()
        if _mid_sentence(before) and lines and after and first <= page < number:
            tail = re.split(r"(?<=[.!?])\s+", lines[-1])[-1]
            head = re.match(r".*?[.!?](?=\s|$)", after[0])
            sentence = f"{tail.strip()} {head.group().strip()}" if head else ""
            citing = " v. " in sentence or len(re.findall(r"\d", sentence)) > 4  # a citation in it
            if _QUOTABLE.fullmatch(sentence) and not citing and text.count(tail) == 1:
                out.append((page, number, sentence))
        before, page = body, number
    return out[:most]
