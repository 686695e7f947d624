"""PDF pages with PyMuPDF, and OCR for pages that are only a picture of text.

The file is opened from the bytes ingest already hashed, so the sha256 on
record is exactly what was indexed, and the file on disk is never opened for
writing. PyMuPDF's own error classes are RuntimeError subclasses (its
``FileNotFoundError`` is not the built-in one), hence the explicit catches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pymupdf

from evidence.documents import PageText, SourceDocument
from evidence.errors import UnreadableFile
from evidence.ocr import MISSING_TESSERACT, OCR_DPI, OCR_LANGUAGE

_PDF_DATE = re.compile(r"D:(\d{4})(\d{2})(\d{2})")
# A page with images and less text than this is a scan: its text layer is at most a Bates stamp or a
# header added after scanning, so the picture is OCR'd (and that text layer kept as it is).
SCAN_TEXT_CHARS = 100


def open_pdf(name: str, data: bytes, *, password: str | None = None) -> pymupdf.Document:
    """Open PDF bytes or raise UnreadableFile naming ``name`` and what to do."""
    if not data:
        raise UnreadableFile(name, f"{name} is empty (0 bytes). Replace it with a complete copy.")
    if b"%PDF" not in data[:1024]:
        raise UnreadableFile(
            name,
            f"{name} is named .pdf but is not a PDF (it starts with {data[:8]!r}). Find the original "
            "file, or rename it to what it really is.",
        )
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (pymupdf.FileDataError, RuntimeError) as exc:
        raise UnreadableFile(
            name, f"{name} is damaged and cannot be read as a PDF ({exc}). Ask for a fresh copy."
        ) from exc
    if doc.needs_pass and (password is None or not doc.authenticate(password)):
        doc.close()
        attempt = "the password given did not open it" if password else "it is password-protected"
        raise UnreadableFile(
            name,
            f"{name} was skipped: {attempt}. Run the ingest again with "
            f"--password '{name}=THE-PASSWORD' to read it.",
            kind="encrypted",
        )
    if doc.page_count == 0:
        doc.close()
        raise UnreadableFile(name, f"{name} has no pages. Ask for a complete copy of the document.")
    return doc


def read_pdf(
    name: str, data: bytes, *, part: str = "", password: str | None = None, tessdata: str | None
) -> SourceDocument:
    doc = open_pdf(name, data, password=password)
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
    )


def _pages(name: str, doc: pymupdf.Document, tessdata: str | None) -> Iterator[PageText]:
    try:
        for index in range(doc.page_count):
            try:
                page = doc.load_page(index)
                text = page.get_text()
            except RuntimeError as exc:
                raise UnreadableFile(
                    name,
                    f"{name}: page {index + 1} is damaged and cannot be read ({exc}). Ask for a fresh copy.",
                ) from exc
            if len(text.strip()) >= SCAN_TEXT_CHARS or not page.get_images():
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
    except RuntimeError as exc:
        return PageText(page_no=index + 1, text=page.get_text(), unread=f"OCR failed on this page ({exc}).")
    if not text.strip():
        return PageText(
            page_no=index + 1, text="", ocr=True, unread="OCR found no text on this scanned page."
        )
    return PageText(page_no=index + 1, text=text, ocr=True)
