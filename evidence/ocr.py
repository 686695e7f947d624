"""Finding Tesseract's language data for PyMuPDF's OCR.

PyMuPDF carries the Tesseract engine but not its language data; the Debian
package ``tesseract-ocr-eng`` provides it. We look it up once per ingest so a
missing Tesseract becomes a notice naming the pages left unread, not an
exception halfway through a file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pymupdf

OCR_DPI = 300  # PyMuPDF's default of 72 is too coarse for real scans
OCR_LANGUAGE = "eng"

MISSING_TESSERACT = (
    "Tesseract OCR is not installed, so this page (a scan with no text layer) was left unread. "
    "Install it (`apt-get install tesseract-ocr tesseract-ocr-eng`) and run the ingest again."
)


def find_tessdata() -> str | None:
    """The tessdata folder, or None when Tesseract's English data cannot be found."""
    prefix = os.environ.get("TESSDATA_PREFIX")
    if prefix:
        return prefix if (Path(prefix) / f"{OCR_LANGUAGE}.traineddata").is_file() else None
    if shutil.which("tesseract") is None:
        return None
    try:
        found = str(pymupdf.get_tessdata())
    except RuntimeError:
        return None
    return found if (Path(found) / f"{OCR_LANGUAGE}.traineddata").is_file() else None
