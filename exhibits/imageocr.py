"""Pictures of text on pages that have text: each picture read on its own, enlarged, with Tesseract.

A page with a text layer is not OCR'd as a scan (find.py), yet a picture on it
can show an SSN: a pasted badge, a screenshot of a form. OCR of the page at
300 dpi reads a small picture's few pixels as they are, and Tesseract misreads
small glyphs ("51-44-9087" for 531-44-9087), so the pattern never matches.
So every picture big enough to hold a word is decoded and enlarged, to about
300 and 600 dpi as placed on the page, and each enlargement read by the
``tesseract`` program (words, boxes and confidences as TSV). The hits of all
readings are boxed where their words lie on the page. Where a word that could
be part of an identifier (three digits or more) is read with low confidence
and no box covers it, the attorney is told, with the rectangle that would box
the whole picture.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import pymupdf

from evidence.ocr import OCR_LANGUAGE
from exhibits.errors import ExhibitsError
from exhibits.find import Hit, RedactionRequest, needs_ocr
from exhibits.matching import Matcher
from exhibits.pagetext import PageText

TARGET_DPI = (300, 600)  # each picture is read enlarged to about these resolutions on the page
MAX_PIXELS = 12_000_000  # an enlargement past this is not made (a full-page scan is read as a page)
MIN_SIDE = 12  # pixels: a picture smaller than this holds no word
DOUBTFUL = 60.0  # Tesseract's confidence (0-100) below which a reading may be wrong
PAD = 2.0  # points round each word's box, as for the page OCR
OCR_TIMEOUT_S = 120

Word = tuple[str, float, int, int, tuple[float, float, float, float]]  # text, conf, line, reading, box 0..1


@dataclass(frozen=True)
class Doubt:
    """A picture OCR read with low confidence where an identifier may be, left unboxed."""

    page_no: int
    rect: tuple[float, float, float, float]  # the whole picture, visible coordinates (for --rect)
    confidence: float
    unread: bool = False  # the picture could not be decoded for OCR at all

    def describe(self) -> str:
        box = ",".join(f"{v:.0f}" for v in self.rect)
        what = (
            "could not be decoded for OCR"
            if self.unread
            else f"has digits OCR read with only {self.confidence:.0f}% confidence"
        )
        return (
            f"p.{self.page_no}: a picture at {box} {what}, so an identifier there may have been missed. "
            f"Look at it; to box the whole picture, run again with --rect {self.page_no}:{box}"
        )


def wanted(page: pymupdf.Page, mode: str) -> bool:
    """Pictures are read on their own on a text page (auto), or on every page (always)."""
    if mode == "never":
        return False
    return mode == "always" or not needs_ocr(page, page.get_text(), "auto")


def read_pictures(
    page: pymupdf.Page,
    request: RedactionRequest,
    tessdata: str | None,
    covered: Sequence[pymupdf.Rect] = (),
) -> tuple[list[Hit], list[Doubt]]:
    """The hits in the page's pictures, boxed on the page, and the pictures read with doubt."""
    if not wanted(page, request.ocr) or not page.get_images():
        return [], []
    return picture_hits(page, request.matcher(), tessdata, covered)


def picture_hits(
    page: pymupdf.Page, matcher: Matcher, tessdata: str | None, covered: Sequence[pymupdf.Rect] = ()
) -> tuple[list[Hit], list[Doubt]]:
    page_no = (page.number or 0) + 1
    hits: list[Hit] = []
    doubts: list[Doubt] = []
    doc = page.parent
    for info in page.get_image_info(xrefs=True, hashes=True):
        xref, bbox = info.get("xref") or 0, pymupdf.Rect(info["bbox"])
        if not xref or min(info["width"], info["height"]) < MIN_SIDE or bbox.is_empty:
            continue
        if tessdata is None:
            raise ExhibitsError(
                f"Page {page_no} shows a picture that may hold text, and reading it needs Tesseract, "
                "which is not installed. Install it (`apt-get install tesseract-ocr tesseract-ocr-eng`) "
                "or run with --ocr never; nothing was written.",
                title="OCR needed for redaction",
            )
        dpi = 72 * info["width"] / max(bbox.width, 1)
        visible = bbox * page.rotation_matrix
        rect = (visible.x0, visible.y0, visible.x1, visible.y1)
        try:
            words = _read(doc, xref, info["digest"], dpi, tessdata)
        except (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase):
            doubts.append(Doubt(page_no, rect, 0.0, unread=True))  # MuPDF cannot decode the picture
            continue
        matrix = pymupdf.Matrix(info["transform"])
        new = _located(page_no, words, matrix, matcher)
        hits += new
        boxes = [*covered, *(r for hit in new for r in hit.rects)]
        low = [w for w in words if w[1] < DOUBTFUL and sum(c.isdigit() for c in w[0]) >= 3]
        low = [w for w in low if not any(_page_rect(w[4], matrix).intersects(b) for b in boxes)]
        if low:
            doubts.append(Doubt(page_no, rect, min(w[1] for w in low)))
    return hits, doubts


def _page_rect(box: tuple[float, float, float, float], matrix: pymupdf.Matrix) -> pymupdf.Rect:
    corners = [pymupdf.Point(x, y) * matrix for x in (box[0], box[2]) for y in (box[1], box[3])]
    rect = pymupdf.Rect(corners[0], corners[0])
    for corner in corners[1:]:
        rect |= corner
    return pymupdf.Rect(rect.x0 - PAD, rect.y0 - PAD, rect.x1 + PAD, rect.y1 + PAD)


def _located(page_no: int, words: list[Word], matrix: pymupdf.Matrix, matcher: Matcher) -> list[Hit]:
    """The hits of every reading, each boxed over the words it spans."""
    hits: dict[str, Hit] = {}
    for reading in sorted({w[3] for w in words}):
        text = PageText()
        mine = [w for w in words if w[3] == reading]
        for index, word in enumerate(mine):
            rect = _page_rect(word[4], matrix)
            last = index + 1 == len(mine) or mine[index + 1][2] != word[2]
            text.chars += [*word[0], "\n" if last else " "]
            text.boxes += [(rect.x0, rect.y0, rect.x1, rect.y1)] * len(word[0]) + [None]
            text.lines += [word[2]] * (len(word[0]) + 1)
        for value, reason in matcher.find(text.text).items():
            rects = text.locate(value)
            if rects:
                old = hits.get(value)
                merged = tuple(dict.fromkeys((*old.rects, *rects) if old else rects, None))
                hits[value] = Hit(page_no, merged, reason, value, True)
    return list(hits.values())


_READ: OrderedDict[tuple[bytes, tuple[int, ...], str], list[Word]] = OrderedDict()
CACHED = 256


def _read(doc: pymupdf.Document, xref: int, digest: bytes, dpi: float, tessdata: str) -> list[Word]:
    """Every word Tesseract reads in each enlargement of the picture (cached by the picture's digest:
    a logo on every page is read once)."""
    factors = tuple(sorted({max(1, math.ceil(target / max(dpi, 1))) for target in TARGET_DPI}))
    key = (digest, factors, tessdata)
    if key in _READ:
        _READ.move_to_end(key)
        return _READ[key]
    pix = _plain(pymupdf.Pixmap(doc, xref))
    words: list[Word] = []
    for reading, factor in enumerate(f for f in factors if pix.width * pix.height * f * f <= MAX_PIXELS):
        big = pymupdf.Pixmap(pix, pix.width * factor, pix.height * factor, None) if factor > 1 else pix
        words += _tesseract(big.tobytes("png"), big.width, big.height, reading, tessdata)
    _READ[key] = words
    if len(_READ) > CACHED:
        _READ.popitem(last=False)
    return words


_INVERTED = bytes(range(255, -1, -1))


def _plain(pix: pymupdf.Pixmap) -> pymupdf.Pixmap:
    """The picture as grey or RGB without alpha, what Tesseract reads: a stencil mask (a bitonal scan
    has no colours, only the mask) becomes black ink on white."""
    if pix.colorspace is None:
        ink = pix.samples[pix.n - 1 :: pix.n] if pix.n > 1 else pix.samples
        return pymupdf.Pixmap(pymupdf.csGRAY, pix.width, pix.height, ink.translate(_INVERTED), False)
    if pix.alpha:
        pix = pymupdf.Pixmap(pix, 0)
    if pix.colorspace.n not in (1, 3):
        pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
    return pix


def _tesseract(png: bytes, width: int, height: int, reading: int, tessdata: str) -> list[Word]:
    exe = shutil.which("tesseract") or "tesseract"
    env = {**os.environ, "TESSDATA_PREFIX": tessdata, "OMP_THREAD_LIMIT": "1"}
    command = [exe, "stdin", "stdout", "-l", OCR_LANGUAGE, "--psm", "11", "--dpi", "300", "tsv"]
    out = subprocess.run(command, input=png, capture_output=True, env=env, timeout=OCR_TIMEOUT_S, check=False)
    if out.returncode != 0:
        raise ExhibitsError(
            f"Tesseract could not read a picture ({out.stderr.decode(errors='replace').strip()[:200]}). "
            "Check the Tesseract installation (`tesseract --version`); nothing was written.",
            title="OCR failed during redaction",
        )
    words: list[Word] = []
    for row in out.stdout.decode("utf-8", "replace").splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or not cols[11].strip():
            continue
        left, top, w, h = (int(c) for c in cols[6:10])
        line = int(cols[2]) * 10_000 + int(cols[3]) * 100 + int(cols[4])  # block, paragraph, line
        box = (left / width, top / height, (left + w) / width, (top + h) / height)
        words.append((cols[11].strip(), float(cols[10]), line, reading, box))
    return words
