"""One document's redaction in memory: what to look for gathered from the whole file, then removed.

A value a pattern finds once (an account number after its label in a note)
is a secret wherever it appears, bare in /Author or on another page. So the
whole file is read first, pages, every place and every object, attached files
inside it too; each value found becomes a term, and only then are the boxes
applied and the places scrubbed. Attached PDFs go through this same function,
one level deeper (attached.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import pymupdf

from exhibits.attached import redact_attachments
from exhibits.find import Hit, RedactionRequest, find_on_page
from exhibits.hidden import hidden_text, layers_on
from exhibits.imageocr import Doubt, read_pictures
from exhibits.pagetext import text_by_position
from exhibits.rawscan import raw_texts
from exhibits.remove import apply_boxes, redact_off_page, scrub
from exhibits.unlisted import every_place

SAVE_OPTIONS = {"garbage": 4, "deflate": True, "deflate_images": True, "use_objstms": 1}


@dataclass
class Outcome:
    hits: list[Hit] = field(default_factory=list)
    scrubbed: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)  # what was done to each attached file
    doubts: list[Doubt] = field(default_factory=list)  # pictures OCR could not read with confidence
    known: dict[str, str] = field(default_factory=dict)  # every value removed, with its reason


def pages(doc: pymupdf.Document) -> Iterator[pymupdf.Page]:
    """The pages one at a time (PyMuPDF's Document is iterable, but its type stubs do not say so)."""
    for index in range(doc.page_count):
        yield doc.load_page(index)


def gathered(doc: pymupdf.Document, request: RedactionRequest) -> RedactionRequest:
    """``request`` with every value its terms and patterns find anywhere in ``doc`` added as known."""
    matcher = request.matcher()
    found: dict[str, str] = {}
    texts: list[tuple[str, bool]] = []
    with layers_on(doc):
        for page in pages(doc):
            texts += [(page.get_text(), True), (text_by_position(page), True)]
    texts += [(hidden_text(doc, index), True) for index in range(doc.page_count)]
    texts += [(place.text, True) for place in every_place(doc)]
    texts += [(text, raw.patterns) for raw in raw_texts(doc) for text in raw.texts or []]
    for text, patterns in texts:
        for value, reason in (matcher if patterns else matcher.without_patterns()).find(text).items():
            found.setdefault(value, reason)
    return replace(request, known=tuple({**dict(request.known), **found}.items()))


def redact_open(
    doc: pymupdf.Document,
    request: RedactionRequest,
    tessdata: str | None,
    tick: Callable[[], None] = lambda: None,
    depth: int = 1,
) -> Outcome:
    """Apply every box and (with ``request.scrub``) scrub every place of ``doc``, which stays open."""
    request = gathered(doc, request)
    outcome = Outcome()
    with layers_on(doc):
        for page in pages(doc):
            hits, _ = find_on_page(page, request, tessdata)
            pictures, doubts = read_pictures(page, request, tessdata, [r for h in hits for r in h.rects])
            hits += pictures
            apply_boxes(page, [r for hit in hits for r in hit.rects])
            outcome.hits.extend(hits)
            outcome.doubts.extend(doubts)
            tick()
        for index in range(doc.page_count):
            outcome.hits.extend(redact_off_page(doc, index, request))
    found = {h.text: h.reason for h in outcome.hits if h.text and h.reason != "rectangle"}
    outcome.known = {**dict(request.known), **found}
    matcher = request.matcher().with_known(outcome.known)
    if request.scrub:
        nested = replace(request, rects=(), known=tuple(outcome.known.items()))

        def redact_pdf(data: bytes, level: int) -> tuple[bytes, str]:
            return redact_bytes(data, nested, tessdata, level)

        outcome.attachments = redact_attachments(doc, matcher, redact_pdf, depth)
        outcome.scrubbed = scrub(doc, matcher)
    return outcome


def redact_bytes(
    data: bytes, request: RedactionRequest, tessdata: str | None, depth: int
) -> tuple[bytes, str]:
    """An attached PDF redacted as a document of its own: its bytes, and what was done in it."""
    doc = pymupdf.open(stream=data, filetype="pdf")
    try:
        if doc.needs_pass:
            raise RuntimeError("password-protected")
        outcome = redact_open(doc, request, tessdata, depth=depth)
        done = f"{len(outcome.hits)} redaction(s)"
        if outcome.attachments:  # what was done one level down, so the attorney hears of it too
            done += "; inside it, " + "; ".join(outcome.attachments)
        return doc.tobytes(**SAVE_OPTIONS), done
    finally:
        doc.close()
