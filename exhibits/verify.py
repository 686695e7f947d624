"""Proof that redacted text is gone: re-extract every page of the finished file and look for it.

Black boxes over text that is still there are the classic failure (a 2019
filing in the Manafort prosecution). So the saved bytes are opened afresh and
every page is extracted again: with PyMuPDF, with OCR on the pages that were
OCR'd to find their hits, and with poppler's ``pdftotext`` when it is
installed (a second, independent extractor). Strings are compared with all
spacing removed and case folded, so text split over lines still counts. The
document's metadata, XMP, outline, annotations and embedded files are checked
too. Any hit is a leak; the caller then writes nothing.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from exhibits.find import ocr_textpages
from exhibits.patterns import Pattern


def squeeze(text: str) -> str:
    return "".join(text.split()).casefold()


@dataclass(frozen=True)
class Leak:
    where: str  # "page 3 (PyMuPDF)", "metadata 'title'", "pdftotext"
    reason: str  # the hit's reason ("pattern ssn"); never the text itself


def find_leaks(
    path: Path,
    secrets: dict[str, str],
    patterns: Iterable[Pattern],
    ocr_pages: set[int],
    tessdata: str | None,
    cleared: Iterable[tuple[int, pymupdf.Rect]] = (),
) -> tuple[list[Leak], list[str]]:
    """Leaks in the file at ``path``, and the names of the extractors that checked it.

    ``secrets`` maps each removed string to its reason. Patterns are run again over every page:
    an identifier that matches a pattern but was never located is a leak too. ``cleared`` are the
    rectangles the attorney drew (page, unrotated rect): no text may remain inside them.
    """
    wanted = {squeeze(s): reason for s, reason in secrets.items() if squeeze(s)}
    patterns = list(patterns)
    leaks: list[Leak] = []

    def scan(text: str, where: str) -> None:
        flat = squeeze(text)
        leaks.extend(Leak(where, reason) for s, reason in wanted.items() if s in flat)
        leaks.extend(Leak(where, f"pattern {p.name} still matches") for p in patterns if p.find(text))

    with pymupdf.open(path) as doc:
        for index in range(doc.page_count):
            page = doc.load_page(index)
            scan(page.get_text(), f"page {index + 1} (PyMuPDF)")
            if index + 1 in ocr_pages:
                for reading in ocr_textpages(page, tessdata):
                    scan(page.get_text(textpage=reading), f"page {index + 1} (OCR)")
            for annot in page.annots() or []:
                scan(" ".join(str(v) for v in (annot.info or {}).values()), f"page {index + 1} annotation")
        for page_no, rect in cleared:
            if doc.load_page(page_no - 1).get_text(clip=rect).strip():
                leaks.append(Leak(f"page {page_no} rectangle", "text remains inside the rectangle"))
        for key, value in (doc.metadata or {}).items():
            if value:
                scan(str(value), f"metadata '{key}'")
        scan(doc.get_xml_metadata() or "", "XMP metadata")
        scan("\n".join(str(entry[1]) for entry in doc.get_toc(simple=True)), "bookmarks")
        for name in doc.embfile_names():
            scan(name + " " + str(doc.embfile_info(name)), f"embedded file '{name}'")
            scan(doc.embfile_get(name).decode("latin-1"), f"embedded file '{name}'")
    checked = ["PyMuPDF"] + (["OCR"] if ocr_pages else [])
    poppler = shutil.which("pdftotext")
    if poppler:
        out = subprocess.run([poppler, str(path), "-"], capture_output=True, check=False)
        if out.returncode != 0:
            leaks.append(Leak("pdftotext", "the redacted file could not be read back by pdftotext"))
        scan(out.stdout.decode("utf-8", "replace"), "pdftotext")
        checked.append("pdftotext")
    return leaks, checked
