"""Proof that redacted text is gone: read the finished file back everywhere text can be, and look.

Black boxes over text that is still there are the classic failure (a 2019
filing in the Manafort prosecution); the second is a redacted page in a file
whose author field, bookmark or attachment still says it. So the saved bytes
are opened afresh and read in every place:

- every page with PyMuPDF, as shown and with hidden layers and off-page text;
  with OCR on the pages OCR'd to find their hits; with poppler's ``pdftotext``
  when it is installed (a second, independent extractor);
- every non-page place (places.py, unlisted.py): metadata, XMP, bookmarks,
  annotations and popups, form fields, links, attachments, layer names, page
  labels, the catalog's other entries (scripts, named destinations, the
  structure tree), marked-content strings;
- every object's strings (literal, hex, UTF-16) and names, web addresses
  URL-decoded, every decompressed stream with its comments, every JPEG's
  own metadata, and every attached file in its own format: a PDF inside
  read the same way, recursively, and by pdftotext too (rawscan.py,
  unpack.py); an attached file nothing here can read is a leak;
- on pages where OCR found a hit, each picture again, enlarged (imageocr.py).

The search is matching.py's, blind to spacing and dashes, for the terms, the
patterns and every string removed. Any hit is a leak, and the caller writes
nothing. What was read is returned too, so the attorney sees what was checked.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from exhibits.filespecs import attached_streams
from exhibits.find import ocr_textpages
from exhibits.hidden import hidden_text
from exhibits.imageocr import picture_hits
from exhibits.matching import Matcher
from exhibits.pagetext import text_by_position
from exhibits.places import KINDS
from exhibits.rawscan import PDF_ERRORS, raw_texts
from exhibits.unlisted import every_place
from exhibits.unpack import MAX_DEPTH, nested_pdfs

PDFTOTEXT_BASE_S, PDFTOTEXT_PER_PAGE_S = 60.0, 1.0  # generous: a 2,000-page file reads in seconds


@dataclass(frozen=True)
class Leak:
    where: str  # "page 3 (PyMuPDF)", "metadata author", "stream 12 (content)", "pdftotext"
    reason: str  # the hit's reason ("pattern ssn"); never the text itself


@dataclass
class Verification:
    leaks: list[Leak] = field(default_factory=list)
    readers: list[str] = field(default_factory=list)  # "PyMuPDF", "OCR", "pdftotext"
    checked: Counter[str] = field(default_factory=Counter)  # what was read, by kind

    def scan(self, matcher: Matcher, text: str, where: str, kind: str) -> None:
        self.checked[kind] += 1
        self.leaks.extend(Leak(where, reason) for reason in matcher.reasons(text))

    def summary(self) -> str:
        """What was read, for the attorney: "pages as shown: 2, ..., attachment: 0, objects: 41, ..."."""
        return ", ".join(f"{kind}: {count}" for kind, count in self.checked.items())


def verify_file(
    path: Path,
    matcher: Matcher,
    ocr_pages: set[int],
    tessdata: str | None,
    cleared: Iterable[tuple[int, pymupdf.Rect]] = (),
) -> Verification:
    """Leaks in the file at ``path``, and what was read to find them.

    ``matcher`` holds the terms, the patterns, and each removed string with its reason: an
    identifier that matches a pattern but was never located is a leak too. ``cleared`` are the
    rectangles the attorney drew (page, unrotated rect): no text may remain inside them.
    """
    result = Verification(readers=["PyMuPDF"] + (["OCR"] if ocr_pages else []))
    result.checked.update(dict.fromkeys(["pages as shown", "pages by position", *KINDS], 0))
    # The redaction's own output, just saved: not a source, so not through evidence's opener, whose
    # messages ask for a fresh copy. The caller reports a failure here against the source file.
    with pymupdf.open(path) as doc:
        page_count = doc.page_count
        for index in range(doc.page_count):
            page = doc.load_page(index)
            result.scan(matcher, page.get_text(), f"page {index + 1} (PyMuPDF)", "pages as shown")
            where = f"page {index + 1} by position (PyMuPDF)"
            result.scan(matcher, text_by_position(page), where, "pages by position")
            if index + 1 in ocr_pages:
                for reading in ocr_textpages(page, tessdata):
                    result.scan(
                        matcher, page.get_text(textpage=reading), f"page {index + 1} (OCR)", "OCR readings"
                    )
                found, _ = picture_hits(page, matcher, tessdata)
                result.checked["pictures read alone (OCR)"] += len(page.get_images())
                result.leaks.extend(Leak(f"page {index + 1} picture (OCR)", hit.reason) for hit in found)
        for page_no, rect in cleared:
            if doc.load_page(page_no - 1).get_text(clip=rect).strip():
                result.leaks.append(Leak(f"page {page_no} rectangle", "text remains inside the rectangle"))
        for place in every_place(doc):
            result.scan(matcher, place.text, place.where, place.kind)
        for raw in raw_texts(doc):
            kind = "objects" if raw.where.startswith(("object", "trailer")) else "decompressed streams"
            result.checked[kind] += 1
            if raw.texts is None:
                what = (
                    f"is {raw.why}" if raw.why else "could not be read back (damaged, or a compression bomb)"
                )
                result.leaks.append(Leak(raw.where, f"{what}, so it cannot be checked"))
                continue
            reader = matcher if raw.patterns else matcher.without_patterns()
            for text in raw.texts:
                result.leaks.extend(Leak(raw.where, reason) for reason in reader.reasons(text))
        for index in range(doc.page_count):
            where = f"page {index + 1} hidden layers or off-page text (PyMuPDF)"
            result.scan(matcher, hidden_text(doc, index), where, "pages with hidden text")
    if shutil.which("pdftotext"):
        _pdftotext(result, path, matcher, page_count, "pdftotext", 1)
        result.readers.append("pdftotext")
    return result


def _pdftotext(
    result: Verification, path: Path, matcher: Matcher, pages: int, where: str, depth: int
) -> None:
    """poppler's reading of the file's pages, and of every PDF attached in it, recursively."""
    # A compression bomb can keep pdftotext busy for many minutes; a file it cannot read back in
    # time is not checked, so it counts as a leak and nothing is written.
    limit = PDFTOTEXT_BASE_S + PDFTOTEXT_PER_PAGE_S * pages
    try:
        out = subprocess.run(
            [shutil.which("pdftotext") or "pdftotext", str(path), "-"],
            capture_output=True,
            check=False,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        result.leaks.append(Leak(where, f"pdftotext could not read the file back in {limit:.0f} s"))
        return
    if out.returncode != 0:
        result.leaks.append(Leak(where, "the redacted file could not be read back by pdftotext"))
    result.scan(matcher, out.stdout.decode("utf-8", "replace"), where, "pdftotext readings")
    if depth > MAX_DEPTH:
        return
    with pymupdf.open(path) as doc:
        attached = [(name, doc.xref_stream(xref) or b"") for xref, name in attached_streams(doc).items()]
    for name, data in attached:
        for nested in nested_pdfs(data):
            with tempfile.TemporaryDirectory() as folder:
                inner = Path(folder) / "attached.pdf"
                inner.write_bytes(nested)
                try:
                    with pymupdf.open(inner) as opened:
                        count = opened.page_count
                except PDF_ERRORS:
                    result.leaks.append(Leak(f"{where} of attached file {name}", "pdftotext cannot check it"))
                    continue
                _pdftotext(result, inner, matcher, count, f"{where} of attached file {name}", depth + 1)
