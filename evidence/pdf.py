"""PDF pages with PyMuPDF, and OCR for pages that are only a picture of text.

The file is opened from the bytes ingest already hashed, so the sha256 on
record is exactly what was indexed, and the file on disk is never opened for
writing. A file MuPDF had to repair is marked so, and its pages that came out
empty are counted unread: a repair can lose a page's content silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pymupdf

from evidence.documents import PageText, SourceDocument
from evidence.errors import UnreadablePdf
from evidence.ocr import MISSING_TESSERACT, OCR_DPI, OCR_LANGUAGE
from evidence.pdf_open import MUPDF_ERRORS, load_page, open_pdf_bytes

_PDF_DATE = re.compile(r"D:(\d{4})(\d{2})(\d{2})")
# A page with images and less text than this is a scan: its text layer is at most a Bates stamp or a
# header added after scanning, so the picture is OCR'd (and that text layer kept as it is).
SCAN_TEXT_CHARS = 100


INGEST_LOCKED = "It was skipped: run the ingest again with --password '{name}=THE-PASSWORD' to read it."
INGEST_DAMAGED = "Ask for a fresh copy."
REPAIRED = (
    "MuPDF had to repair this damaged file, and this page gave no text: the repair may have lost what it "
    "held. Ask for a fresh copy of the file."
)


def open_pdf(name: str, data: bytes, *, password: str | None = None) -> pymupdf.Document:
    """Open PDF bytes for ingest or raise UnreadableFile naming ``name`` and what to do."""
    return open_pdf_bytes(
        name,
        data,
        password=password,
        locked_advice=INGEST_LOCKED.format(name=name),
        damaged_advice=INGEST_DAMAGED,
    )


def read_pdf(
    name: str, data: bytes, *, part: str = "", password: str | None = None, tessdata: str | None
) -> SourceDocument:
    doc = open_pdf(name, data, password=password)
    repaired = bool(doc.is_repaired)
    meta = doc.metadata or {}
    date = _PDF_DATE.match(meta.get("creationDate") or "")
    return SourceDocument(
        part=part,
        kind="pdf",
        title=(meta.get("title") or "").strip() or name.rsplit("/", 1)[-1],
        doc_date=f"{date[1]}-{date[2]}-{date[3]}" if date else None,
        page_count=doc.page_count,
        pages=_pages(name, doc, tessdata),
        creator=" ".join(filter(None, [meta.get("creator"), meta.get("producer")])) or None,
        repaired=repaired,
    )


def _pages(name: str, doc: pymupdf.Document, tessdata: str | None) -> Iterator[PageText]:
    try:
        for index in range(doc.page_count):
            page = load_page(doc, index, name, advice=INGEST_DAMAGED)
            try:
                text = page.get_text()
                images = page.get_images()
            except MUPDF_ERRORS as exc:
                raise UnreadablePdf(
                    name, f"{name}: page {index + 1} is damaged and cannot be read ({exc}). {INGEST_DAMAGED}"
                ) from exc
            if not text.strip() and not images and doc.is_repaired:
                yield PageText(page_no=index + 1, text=text, unread=REPAIRED)
            elif len(text.strip()) >= SCAN_TEXT_CHARS or not images:
                yield PageText(page_no=index + 1, text=text)
            elif tessdata is None:
                yield PageText(page_no=index + 1, text=text, unread=MISSING_TESSERACT)
            else:
                yield _ocr_page(name, page, index, tessdata)
    finally:
        doc.close()


def _ocr_page(name: str, page: pymupdf.Page, index: int, tessdata: str) -> PageText:
    try:
        # full=False: OCR the picture but keep the page's own text (a Bates stamp) exactly as it is.
        textpage = page.get_textpage_ocr(language=OCR_LANGUAGE, dpi=OCR_DPI, full=False, tessdata=tessdata)
        text = page.get_text(textpage=textpage)
    except MUPDF_ERRORS as exc:
        return PageText(page_no=index + 1, text=page.get_text(), unread=f"OCR failed on this page ({exc}).")
    if not text.strip():
        return PageText(
            page_no=index + 1, text="", ocr=True, unread="OCR found no text on this scanned page."
        )
    return PageText(page_no=index + 1, text=text, ocr=True)
