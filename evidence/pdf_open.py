"""The one way chambers opens a PDF: every MuPDF failure becomes an error naming the file and what to do.

Ingest opens the bytes it has already hashed; the exhibits room opens the
file on disk. Both come here, so a damaged PDF reads the same everywhere and
no MuPDF exception escapes as a traceback. MuPDF raises two families: its
``FzErrorBase`` classes (a cycle in the page tree, say) and ``RuntimeError``
subclasses (an invalid page count; PyMuPDF's ``FileDataError`` is one, and
its ``FileNotFoundError`` is not the built-in one). A document's page tree is
read lazily, so a file that opens may still fail on a page: :func:`load_page`
and :func:`check_pages` turn that into the same error. MuPDF silently
repairs a file whose cross-reference table is broken (a truncated download,
say); ``is_repaired`` tells the caller, which must not take the pages such a
repair lost for blank ones.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from evidence.errors import EncryptedPdf, UnreadablePdf
from evidence.walk import path_key

MUPDF_ERRORS: tuple[type[Exception], ...] = (RuntimeError, pymupdf.mupdf.FzErrorBase)
# What working on one bad PDF can raise, caught where a file's failure becomes its notice. PyMuPDF
# reports a broken cross-reference met while writing (setting the metadata of a file whose info
# dictionary is damaged, as in qpdf's issue-99.pdf) as a ValueError ("bad xref").
PDF_FAILURES: tuple[type[Exception], ...] = (UnreadablePdf, *MUPDF_ERRORS, ValueError)
PDF_HEAD = 1024  # the "%PDF" header may follow some junk; MuPDF looks this far too

LOCKED_ADVICE = "Open it with its password and save an unprotected copy (or ask the producing party for one), then try again."
DAMAGED_ADVICE = "Ask for a fresh copy, or leave it out."


def open_pdf_bytes(
    name: str,
    data: bytes,
    *,
    password: str | None = None,
    locked_advice: str = LOCKED_ADVICE,
    damaged_advice: str = DAMAGED_ADVICE,
) -> pymupdf.Document:
    """Open PDF bytes or raise UnreadablePdf / EncryptedPdf naming ``name`` and what to do."""
    if not data:
        raise UnreadablePdf(name, f"{name} is empty (0 bytes). Replace it with a complete copy.")
    _check_head(name, data[:PDF_HEAD])
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except MUPDF_ERRORS as exc:
        raise UnreadablePdf(
            name, f"{name} is damaged and cannot be read as a PDF ({exc}). {damaged_advice}"
        ) from exc
    return _checked(name, doc, password, locked_advice, damaged_advice)


def open_pdf(
    path: Path,
    *,
    password: str | None = None,
    locked_advice: str = LOCKED_ADVICE,
    damaged_advice: str = DAMAGED_ADVICE,
) -> pymupdf.Document:
    """Open the PDF file at ``path`` for reading, or raise an error naming it and what to do."""
    name = path_key(path)  # a name that is not UTF-8 shows its odd bytes escaped
    try:
        with open(path, "rb") as fh:
            head = fh.read(PDF_HEAD)
    except FileNotFoundError:
        raise UnreadablePdf(name, f"{name} does not exist. Check the path, or pick the file again.") from None
    except IsADirectoryError:
        raise UnreadablePdf(name, f"{name} is a folder, not a PDF. Give the PDF files in it.") from None
    except OSError as exc:
        raise UnreadablePdf(
            name, f"{name} could not be read ({exc.strerror}). Check its permissions."
        ) from exc
    if not head:
        raise UnreadablePdf(name, f"{name} is empty (0 bytes). Replace it with a complete copy.")
    if name != str(path):  # the index reads it (as bytes); a copy made from it would carry the bad name on
        raise UnreadablePdf(
            name,
            f"{name} has a name that is not UTF-8 (\\xNN marks the bytes that are not), so chambers cannot "
            "write a copy under it. It is indexed as it is; rename it to stamp, bind or redact it.",
        )
    _check_head(name, head)
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except MUPDF_ERRORS as exc:
        raise UnreadablePdf(
            name, f"{name} is damaged and cannot be read as a PDF ({exc}). {damaged_advice}"
        ) from exc
    return _checked(name, doc, password, locked_advice, damaged_advice)


def _check_head(name: str, head: bytes) -> None:
    if b"%PDF" not in head:
        raise UnreadablePdf(
            name,
            f"{name} is named .pdf but is not a PDF (it starts with {head[:8]!r}). Find the original "
            "file, or rename it to what it really is.",
        )


def _checked(
    name: str, doc: pymupdf.Document, password: str | None, locked_advice: str, damaged_advice: str
) -> pymupdf.Document:
    try:
        if doc.needs_pass and (password is None or not doc.authenticate(password)):
            attempt = ", and the password given did not open it" if password else ""
            raise EncryptedPdf(name, f"{name} is password-protected{attempt}. {locked_advice}")
        count = doc.page_count
    except MUPDF_ERRORS as exc:
        doc.close()
        raise UnreadablePdf(
            name, f"{name} is damaged: its page count cannot be read ({exc}). {damaged_advice}"
        ) from exc
    except EncryptedPdf:
        doc.close()
        raise
    if count == 0:
        doc.close()
        raise UnreadablePdf(name, f"{name} has no pages. Ask for a complete copy of the document.")
    return doc


def load_page(doc: pymupdf.Document, index: int, name: str, *, advice: str = DAMAGED_ADVICE) -> pymupdf.Page:
    """Page ``index`` (0-based), or UnreadablePdf naming the file and the page."""
    try:
        return doc.load_page(index)
    except MUPDF_ERRORS as exc:
        raise UnreadablePdf(
            name, f"{name}: page {index + 1} is damaged and cannot be read ({exc}). {advice}"
        ) from exc


def check_pages(doc: pymupdf.Document, name: str) -> None:
    """Load every page once, so a broken page tree is found before any work (and any number) is spent."""
    for index in range(doc.page_count):
        load_page(doc, index, name)
