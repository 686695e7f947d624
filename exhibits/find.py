"""Finding what to redact on a page: search terms, patterns, rectangles, and text only OCR can see.

Terms and patterns are matched with matching.py's search, blind to spacing
and dashes, over the page's text read as drawn and by position; only a page
with a hit has its characters' boxes read (pagetext.py), and each hit is boxed
where its glyphs are. A scanned page has no text layer, so a pattern on it is
invisible to extraction; such pages are OCR'd (Tesseract through PyMuPDF, 300
dpi) and the hits located on the OCR text page, whose boxes lie over the
picture. Each hit keeps the string it stands for, so verification can look for
it afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import pymupdf

from evidence.ocr import OCR_DPI, OCR_LANGUAGE, find_tessdata
from evidence.pdf import SCAN_TEXT_CHARS
from exhibits.errors import ExhibitsError
from exhibits.matching import Matcher
from exhibits.pagetext import page_texts, text_by_position
from exhibits.patterns import Pattern

OCR_PAD = 2.0  # points added round an OCR box: glyph edges and anti-aliasing spill past Tesseract's box
OCR_MODES = ("auto", "always", "never")


@dataclass(frozen=True)
class PageRect:
    """A rectangle the attorney drew: 1-based page, visible coordinates in points from the top-left."""

    page_no: int
    rect: tuple[float, float, float, float]


@dataclass(frozen=True)
class PageChar:
    char: str
    rect: pymupdf.Rect | None  # None for the line breaks put between lines
    line: int


@dataclass(frozen=True)
class Hit:
    page_no: int  # 1-based
    rects: tuple[pymupdf.Rect, ...]  # unrotated page coordinates, ready for add_redact_annot
    reason: str  # "pattern ssn", "term 2", "rectangle"
    text: str  # what is removed (kept in memory for verification; the log holds only its keyed hash)
    ocr: bool


@dataclass(frozen=True)
class RedactionRequest:
    terms: tuple[str, ...] = ()
    patterns: tuple[Pattern, ...] = ()
    rects: tuple[PageRect, ...] = ()
    ocr: str = "auto"  # auto: OCR pages that are pictures; always: every page with an image; never
    scrub: bool = False
    known: tuple[tuple[str, str], ...] = ()  # values found anywhere in the file, with their reasons

    def matcher(self) -> Matcher:
        return Matcher(self.terms, self.patterns, dict(self.known))

    def describe(self) -> str:
        parts = [f"{len(self.terms)} term(s)"] if self.terms else []
        parts += [f"patterns {', '.join(p.name for p in self.patterns)}"] if self.patterns else []
        parts += [f"{len(self.rects)} rectangle(s)"] if self.rects else []
        return "; ".join(parts) or "nothing"


def needs_ocr(page: pymupdf.Page, text: str, mode: str) -> bool:
    if mode == "never" or not page.get_images():
        return False
    return mode == "always" or len(text.strip()) < SCAN_TEXT_CHARS


def ocr_textpages(page: pymupdf.Page, tessdata: str | None) -> list[pymupdf.TextPage]:
    """OCR text pages of a scanned page: one, or one per quarter turn when the page may be turned.

    Tesseract reads upright text only, and nothing tells which way a scan's picture is drawn: a
    picture drawn upright but shown turned (/Rotate), or drawn sideways, OCRs to noise that can
    even look like words (upside-down text read "JuaHed" for "Patient"). So a page shown turned,
    or whose upright reading yields few words, is read in all four turns, and every reading is
    searched and verified. Text page coordinates are unrotated whatever the turn, so the hits of
    each reading fit the page as it is.
    """
    if tessdata is None:
        raise ExhibitsError(
            f"Page {(page.number or 0) + 1} is a scan and needs OCR to find what to redact, but "
            "Tesseract is not installed. Install it (`apt-get install tesseract-ocr tesseract-ocr-eng`) "
            "and run the redaction again; nothing was written.",
            title="OCR needed for redaction",
        )
    shown = _ocr(page, tessdata)
    if page.rotation == 0 and _readable(shown) >= MIN_OCR_CHARS:
        return [shown]
    readings = [shown]
    rotation = page.rotation
    try:
        for turn in (0, 90, 180, 270):
            if turn != rotation:
                page.set_rotation(turn)
                readings.append(_ocr(page, tessdata))
    finally:
        page.set_rotation(rotation)
    return readings


MIN_OCR_CHARS = 20  # letters in words of 4+: below this a scan "read" as noise, so other turns are tried


def _ocr(page: pymupdf.Page, tessdata: str) -> pymupdf.TextPage:
    return page.get_textpage_ocr(language=OCR_LANGUAGE, dpi=OCR_DPI, full=False, tessdata=tessdata)


def _readable(textpage: pymupdf.TextPage) -> int:
    """How much reads as words: a turned page OCRs to noise ("Qos. a20 Um ep)") of short pieces."""
    return sum(len(word) for word in re.findall(r"[^\W_]{4,}", textpage.extractText()))


def find_on_page(
    page: pymupdf.Page, request: RedactionRequest, tessdata: str | None
) -> tuple[list[Hit], list[pymupdf.TextPage]]:
    """Every hit on ``page``, and the OCR readings made of it (none for a page with a text layer)."""
    page_no = (page.number or 0) + 1
    text = page.get_text()
    readings: list[pymupdf.TextPage] = []
    ocr = needs_ocr(page, text, request.ocr)
    if ocr:
        readings = ocr_textpages(page, tessdata)
    matcher = request.matcher()
    sources = readings if ocr else [None]
    wanted: dict[str, str] = {}
    for reading in sources:
        drawn = page.get_text(textpage=reading) if reading else text
        for quick in (drawn, text_by_position(page, reading)):
            for value, reason in matcher.find(quick).items():
                wanted.setdefault(value, reason)
    layers = [order for reading in sources for order in page_texts(page, reading)] if wanted else []
    hits = []
    for value, reason in wanted.items():
        found = [rect for layer in layers for rect in layer.locate(value)]
        rects = list({(r.x0, r.y0, r.x1, r.y1): r for r in found}.values())  # both orders box the same glyphs
        if ocr:
            rects = [
                pymupdf.Rect(r.x0 - OCR_PAD, r.y0 - OCR_PAD, r.x1 + OCR_PAD, r.y1 + OCR_PAD) for r in rects
            ]
        hits.append(Hit(page_no, tuple(rects), reason, value, ocr))
    for drawn in request.rects:
        if drawn.page_no == page_no:
            rect = pymupdf.Rect(drawn.rect) * page.derotation_matrix
            hits.append(Hit(page_no, (rect,), "rectangle", page.get_textbox(rect).strip(), ocr))
    return hits, readings


def check_rects(rects: Sequence[PageRect], page_count: int, name: str) -> None:
    for drawn in rects:
        if not 1 <= drawn.page_no <= page_count:
            raise ExhibitsError(
                f"{name} has {page_count} pages, so a rectangle on page {drawn.page_no} cannot be drawn. "
                "Check the page number (pages count from 1).",
                title="Rectangle off the document",
            )


def tessdata_for(request: RedactionRequest) -> str | None:
    return None if request.ocr == "never" else find_tessdata()
