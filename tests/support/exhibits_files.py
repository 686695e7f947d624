"""Real PDFs for the exhibits tests, built with PyMuPDF in each test's tmp_path.

Rotated pages (0/90/180/270), mixed page sizes, pages with a photo-like image,
full-bleed text that leaves no margin, and scans: text rendered to pixels and
inserted as an image-only page, readable only by OCR.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pymupdf

LETTER = (612, 792)
A4 = (595, 842)
LEGAL = (612, 1008)


def text_pdf(
    path: Path,
    pages: Sequence[str],
    *,
    sizes: Sequence[tuple[float, float]] = (LETTER,),
    rotations: Sequence[int] = (0,),
    full_bleed: bool = False,
) -> Path:
    """One string per page; sizes and rotations cycle. ``full_bleed`` writes text to the very edges."""
    doc = pymupdf.open()
    for index, text in enumerate(pages):
        width, height = sizes[index % len(sizes)]
        page = doc.new_page(width=width, height=height)
        area = (
            pymupdf.Rect(4, 4, width - 4, height - 4) if full_bleed else pymupdf.Rect(72, 72, width - 72, 300)
        )
        page.insert_textbox(area, text, fontsize=11)
        if full_bleed:
            page.insert_text((width - 200, height - 8), "END OF PAGE TEXT RUNS HERE", fontsize=11)
        page.set_rotation(rotations[index % len(rotations)])
    return _save(doc, path)


def image_pdf(path: Path, text: str) -> Path:
    """A page of text with a coloured picture under it (an image that redaction must not bloat)."""
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 300, 200), False)
    pix.set_rect(pix.irect, (30, 120, 200))
    page.insert_image(pymupdf.Rect(72, 320, 372, 520), pixmap=pix)
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 300), text, fontsize=11)
    return _save(doc, path)


def scanned_pdf(path: Path, text: str, *, rotation: int = 0) -> Path:
    """An image-only page: ``text`` rendered at 200 dpi and placed as a picture, no text layer."""
    paper = pymupdf.open()
    page = paper.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 500), text, fontsize=16)
    pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scanned = scan.new_page()
    scanned.insert_image(scanned.rect, pixmap=pixmap)
    scanned.set_rotation(rotation)
    return _save(scan, path)


def _save(doc: pymupdf.Document, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def pdftotext(path: Path) -> str:
    """Text as poppler's pdftotext (a second, independent extractor) sees it."""
    exe = shutil.which("pdftotext")
    assert exe, "pdftotext is missing: apt-get install poppler-utils (make test does this)"
    return subprocess.run([exe, "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def pymupdf_text(path: Path) -> str:
    with pymupdf.open(path) as doc:
        return "\n".join(page.get_text() for page in doc)


def squeeze(text: str) -> str:
    """Text without spaces or line breaks, so a string split over lines is still found."""
    return "".join(text.split()).casefold()
