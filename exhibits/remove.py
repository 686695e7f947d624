"""Removing what was found: boxes applied on the page and off it, and every other place scrubbed.

Text off the page is found and boxed on the page widened (hidden.py); its boxes
are logged in the page's own coordinates, which lie outside the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pymupdf

from exhibits.find import Hit, RedactionRequest, find_on_page
from exhibits.hidden import from_widened, page_area, widened
from exhibits.matching import Matcher
from exhibits.objects import scrub_entries
from exhibits.unlisted import every_place

REDACT_MODES = {
    "images": pymupdf.PDF_REDACT_IMAGE_PIXELS,  # type: ignore[attr-defined]
    "graphics": pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,  # type: ignore[attr-defined]
    "text": pymupdf.PDF_REDACT_TEXT_REMOVE,  # type: ignore[attr-defined]
}


def apply_boxes(page: pymupdf.Page, rects: Sequence[pymupdf.Rect]) -> None:
    for rect in rects:
        page.add_redact_annot(rect, fill=(0, 0, 0))
    if rects:
        page.apply_redactions(**REDACT_MODES)


def redact_off_page(doc: pymupdf.Document, index: int, request: RedactionRequest) -> list[Hit]:
    """Hits drawn outside the visible page (found on the page widened), removed there too."""
    page = doc.load_page(index)
    back, area = from_widened(page), page_area(page)
    off_page = []
    with widened(doc, index) as wide:
        if not request.matcher().find(wide.get_text()):
            return []  # the common case, read quickly: nothing left anywhere on the widened page
        hits, _ = find_on_page(wide, replace(request, ocr="never", rects=()), None)
        for hit in hits:
            rects = [r for r in hit.rects if not (r * back).intersects(area)]
            if rects:
                apply_boxes(wide, rects)
                off_page.append(
                    replace(hit, rects=tuple(r * back for r in rects), reason=f"{hit.reason} off page")
                )
    return off_page


def scrub(doc: pymupdf.Document, matcher: Matcher) -> list[str]:
    """Remove or rewrite every place outside the page text that holds something to remove."""
    done = []
    for place in every_place(doc):
        if matcher.find(place.text):
            place.remove()
            done.append(place.where)
    return done + scrub_entries(doc, matcher)
