"""Page text that extraction does not show: text in a layer switched off, and text drawn off the page.

Both are real text in the content stream, found by anyone who turns the layer
on or widens the page, yet MuPDF's extraction (and so the search for what to
redact) skips them. So redaction and verification look at each page twice: as
shown, and with every layer on and the page's boxes widened to the largest
page PDF allows. Both changes are undone before the file is saved.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pymupdf

LIMIT = 14400  # 200 inches: the largest page PDF allows
WIDEST = f"[{-LIMIT} {-LIMIT} {LIMIT} {LIMIT}]"


@contextmanager
def layers_on(doc: pymupdf.Document) -> Iterator[None]:
    """Every optional-content layer visible (the layer settings set aside, then put back)."""
    catalog = doc.pdf_catalog()
    kind, value = doc.xref_get_key(catalog, "OCProperties")
    if kind == "null":
        yield
        return
    doc.xref_set_key(catalog, "OCProperties", "null")
    try:
        yield
    finally:
        doc.xref_set_key(catalog, "OCProperties", value)


@contextmanager
def widened(doc: pymupdf.Document, index: int) -> Iterator[pymupdf.Page]:
    """Page ``index`` with its media and crop boxes as wide as PDF allows, so text off the page shows."""
    xref = doc.page_xref(index)
    saved = {key: doc.xref_get_key(xref, key) for key in ("MediaBox", "CropBox")}
    for key in saved:
        doc.xref_set_key(xref, key, WIDEST)
    try:
        yield doc.load_page(index)
    finally:
        for key, (kind, value) in saved.items():
            doc.xref_set_key(xref, key, "null" if kind == "null" else value)


def from_widened(page: pymupdf.Page) -> pymupdf.Matrix:
    """Maps coordinates on the widened page to those of ``page`` as it is (read before widening)."""
    return pymupdf.Matrix(1, 0, 0, 1, -LIMIT - page.cropbox.x0, -LIMIT + page.mediabox.y1 - page.cropbox.y0)


def page_area(page: pymupdf.Page) -> pymupdf.Rect:
    """The visible page in unrotated coordinates, where hits off the page are not."""
    return pymupdf.Rect(0, 0, page.cropbox.width, page.cropbox.height)


def hidden_text(doc: pymupdf.Document, index: int) -> str:
    """All the text of page ``index``, that in layers switched off and off the page included."""
    with layers_on(doc), widened(doc, index) as page:
        return page.get_text()
