"""Places no viewer lists but any parser reads: document-level entries, and marked-content strings.

The catalog holds more than pages: scripts run on opening (``OpenAction``,
``Names/JavaScript``), named destinations whose names are free text, the
structure tree with its alternate texts (``/Alt``, ``/ActualText``), and
whatever a producer adds. Each catalog entry not handled in places.py is one
place: the strings and streams reachable from it (pages excepted), and
scrubbing drops the entry. Inside content streams, marked content carries its
own strings (``/Span <</ActualText (...)>> BDC``) that stay when the glyphs
they describe are boxed away; scrubbing empties them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pymupdf

from exhibits.imagemeta import is_jpeg, metadata_texts, picture_bytes, replace_jpeg, without_metadata
from exhibits.places import Place, document_places
from exhibits.rawscan import (
    PDF_ERRORS,
    REFERENCE,
    binary_stream,
    comments,
    content_xrefs,
    decoded,
    pdf_strings,
    stream_bytes,
    string_text,
)
from exhibits.unpack import nested_texts, unpack

# Entries places.py reads (or that hold no text of their own); every other catalog entry is read here.
_LISTED = {
    "Type",
    "Pages",
    "Outlines",
    "OCProperties",
    "AcroForm",
    "PageLabels",
    "Metadata",
    "Version",
    "Lang",
    "MarkInfo",
    "ViewerPreferences",
    "PageLayout",
    "PageMode",
    "Info",
}
_PAGE_TYPES = {"/Page", "/Pages"}
_MARKED_KEY = re.compile(rb"/(?:ActualText|Alt|E)\s*$")


def every_place(doc: pymupdf.Document) -> list[Place]:
    """places.py's places, then the catalog's other entries, the marked-content strings, the comments
    in content streams and the pictures' own metadata."""
    return [
        *document_places(doc),
        *_catalog_entries(doc),
        *_marked_content(doc),
        *_comments(doc),
        *_picture_metadata(doc),
    ]


def _catalog_entries(doc: pymupdf.Document) -> Iterator[Place]:
    catalog = doc.pdf_catalog()
    for key in doc.xref_get_keys(catalog):
        if key in _LISTED:
            continue
        _, value = doc.xref_get_key(catalog, key)
        text = "\n".join(_reachable_text(doc, value.encode("latin-1", "replace")))
        yield Place("document entry", f"document {key}", text, _dropper(doc, catalog, key))


def _dropper(doc: pymupdf.Document, xref: int, key: str) -> Callable[[], None]:
    return lambda: doc.xref_set_key(xref, key, "null")


def _reachable_text(doc: pymupdf.Document, source: bytes) -> Iterator[str]:
    """The strings of ``source`` and of every object it leads to, streams decoded; pages are not entered."""
    seen: set[int] = set()
    pending = [source]
    while pending:
        data = pending.pop()
        yield from (string_text(value) for _, _, value in pdf_strings(data))
        for match in REFERENCE.finditer(data):
            xref = int(match.group(1))
            if xref in seen or not 0 < xref < doc.xref_length():
                continue
            seen.add(xref)
            try:
                if doc.xref_get_key(xref, "Type")[1] in _PAGE_TYPES:
                    continue
                pending.append(doc.xref_object(xref, compressed=False).encode("latin-1", "replace"))
                stream = (
                    doc.xref_stream(xref)
                    if doc.xref_is_stream(xref) and not binary_stream(doc, xref)
                    else None
                )
            except PDF_ERRORS:
                continue  # damaged: MuPDF cannot read it, and verification refuses a file that keeps one
            if stream is not None and unpack(stream).kind in ("pdf", "gzip"):
                yield from nested_texts(stream) or []  # an attached file, read in its own format
            elif stream is not None:
                yield decoded(stream)


def _marked_content(doc: pymupdf.Document) -> Iterator[Place]:
    for xref in sorted(content_xrefs(doc)):
        data = stream_bytes(doc, xref) or b""
        spans = [(start, end, value) for start, end, value in pdf_strings(data) if _marked(data, start)]
        if spans:
            text = "\n".join(string_text(value) for _, _, value in spans)
            yield Place(
                "marked content", f"marked content in stream {xref}", text, _emptier(doc, xref, spans)
            )


def _marked(data: bytes, start: int) -> bool:
    return _MARKED_KEY.search(data, max(0, start - 16), start) is not None


def _emptier(doc: pymupdf.Document, xref: int, spans: list[tuple[int, int, bytes]]) -> Callable[[], None]:
    """Empties the marked-content strings of one stream (the drawing operators stay as they are)."""

    def empty() -> None:
        data = stream_bytes(doc, xref) or b""
        for start, end, _ in reversed(spans):
            data = data[:start] + b"()" + data[end:]
        doc.update_stream(xref, data)

    return empty


def _comments(doc: pymupdf.Document) -> Iterator[Place]:
    """Comments (``% ...``) in content streams: nothing draws them, any parser reads them."""
    for xref in sorted(content_xrefs(doc)):
        found = comments(stream_bytes(doc, xref) or b"")
        if found:
            text = "\n".join(string_text(value) for _, _, value in found)
            yield Place("comment", f"comments in stream {xref}", text, _uncommenter(doc, xref))


def _uncommenter(doc: pymupdf.Document, xref: int) -> Callable[[], None]:
    """Drops every comment of one stream (the line break that ends each stays, so operators stay apart)."""

    def drop() -> None:
        data = stream_bytes(doc, xref) or b""
        for start, end, _ in reversed(comments(data)):
            data = data[:start] + b" " + data[end:]
        doc.update_stream(xref, data)

    return drop


def _picture_metadata(doc: pymupdf.Document) -> Iterator[Place]:
    """A JPEG picture's comment, EXIF and XMP segments; removing them keeps the picture as it is."""
    for xref in range(1, doc.xref_length()):
        try:
            if not (doc.xref_is_stream(xref) and is_jpeg(doc, xref)):
                continue
        except PDF_ERRORS:
            continue
        data = picture_bytes(doc, xref)
        texts = metadata_texts(data)
        if texts:
            yield Place(
                "picture metadata",
                f"picture metadata in object {xref}",
                "\n".join(texts),
                _metadata_dropper(doc, xref, data),
            )


def _metadata_dropper(doc: pymupdf.Document, xref: int, data: bytes) -> Callable[[], None]:
    return lambda: replace_jpeg(doc, xref, without_metadata(data))
