"""The last scrub: any dictionary entry still holding something to remove, in any object of the file.

Producers keep their own data where no list of places reaches: a page's or
picture's ``/PieceInfo`` (an application's private dictionary), a key of
their own naming, a value that is a name (``/Project#20Nightjar``) rather
than a string. Once the known places are scrubbed, every object is read again
(strings and names, numbers of the document information) and each top-level
entry that still holds a hit is dropped, unless the entry is one a reader
needs to show the page; then it stays, and verification refuses the file
rather than pass it. A stream of no kind a reader uses (a private dictionary's
data) that holds a term or a removed value is emptied.
"""

from __future__ import annotations

import pymupdf

from exhibits.matching import Matcher
from exhibits.rawscan import (
    PDF_ERRORS,
    binary_stream,
    content_xrefs,
    pdf_strings,
    plain_text,
    readable_xrefs,
    stream_bytes,
    string_text,
)
from exhibits.tokens import names, with_url_views
from exhibits.unpack import nested_texts, text_views, unpack

# Entries that make the page: dropping one would break the file, so a hit there is refused instead.
NEEDED = frozenset(
    [
        "Type",
        "Subtype",
        "Parent",
        "Kids",
        "Count",
        "Pages",
        "Root",
        "Resources",
        "Contents",
        "MediaBox",
        "CropBox",
        "BleedBox",
        "TrimBox",
        "ArtBox",
        "Rotate",
        "Length",
        "Filter",
        "DecodeParms",
        "Font",
        "XObject",
        "ExtGState",
        "ColorSpace",
        "Pattern",
        "Shading",
        "Properties",
        "ProcSet",
        "BaseFont",
        "FontDescriptor",
        "FontFile",
        "FontFile2",
        "FontFile3",
        "Encoding",
        "Widths",
        "FirstChar",
        "LastChar",
        "DescendantFonts",
        "ToUnicode",
        "CIDSystemInfo",
        "Width",
        "Height",
        "BitsPerComponent",
        "Matrix",
        "BBox",
        "N",
        "Size",
        "Index",
        "Prev",
        "W",
        "First",
        "Annots",
        "AP",
        "Rect",
        "P",
    ]
)
_SKIPPED_TYPES = {"/ObjStm", "/XRef"}  # containers: the objects inside are read one by one


def entry_text(doc: pymupdf.Document, xref: int, key: str, numbers: bool) -> str:
    """The words of one entry: its key, the strings and names under it, and its numbers where asked."""
    kind, value = doc.xref_get_key(xref, key)
    source = value.encode("latin-1", "replace")
    if kind == "string":
        parts = [value]
    else:
        parts = [string_text(v) for _, _, v in pdf_strings(source)] + names(source)
    if numbers and kind in ("int", "float", "array"):
        parts.append(value)
    return with_url_views("\n".join([key, *parts]))


def _known_streams(doc: pymupdf.Document) -> set[int]:
    """Streams with a job a reader needs (drawing, pictures, fonts, metadata, attached files), which
    their own places handle or verification refuses; any other stream is private data."""
    from exhibits.filespecs import attached_streams

    return content_xrefs(doc) | set(attached_streams(doc))


def _private_hit(doc: pymupdf.Document, xref: int, matcher: Matcher) -> bool:
    if binary_stream(doc, xref) or doc.xref_get_key(xref, "Type")[1] in {"/Metadata", "/ObjStm", "/XRef"}:
        return False
    data = stream_bytes(doc, xref)
    if data is None:
        return False
    if unpack(data).kind in ("pdf", "gzip"):  # a file kept privately: read in its own format, or emptied
        texts = nested_texts(data)
        return texts is None or any(matcher.find(text) for text in texts)
    reader = matcher if plain_text(doc, xref, data) else matcher.without_patterns()
    return any(reader.find(text) for text in text_views(data))


def scrub_entries(doc: pymupdf.Document, matcher: Matcher) -> list[str]:
    """Drop every entry, in any object, that still holds something to remove; where each was."""
    info = doc.xref_get_key(-1, "Info")
    info_xref = int(info[1].split()[0]) if info[0] == "xref" else 0
    done = []
    known = _known_streams(doc)
    for xref in readable_xrefs(doc)[0]:
        try:
            if doc.xref_get_key(xref, "Type")[1] in _SKIPPED_TYPES:
                continue
            keys = doc.xref_get_keys(xref)
            if doc.xref_is_stream(xref) and xref not in known and _private_hit(doc, xref, matcher):
                doc.update_stream(xref, b"")
                done.append(f"stream {xref}, of no kind a reader draws")
        except PDF_ERRORS:
            continue
        for key in keys:
            if key in NEEDED:
                continue
            if matcher.find(entry_text(doc, xref, key, numbers=xref == info_xref)):
                doc.xref_set_key(xref, key, "null")
                done.append(f"entry /{key} of object {xref}")
    return done
