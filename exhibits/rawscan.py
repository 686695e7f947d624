"""The last look: every string in every object, and every decompressed stream, of the saved file.

Extraction only sees what a reader would show. Text can also sit where no page
shows it: an object nothing draws, a string in a content stream the extractor
skips (text far off the page, inside marked content, behind an operator it
does not know), a document-level script. So every object of the cross-reference
table is read as its source (objects packed in object streams included), the
PDF strings in it decoded, and every stream decompressed: content streams
(pages, forms, appearances) have their strings joined per text object, so a
secret split over several ``Tj`` still reads whole; other streams (scripts,
metadata, attachments, unknown ones) are searched as text. Pictures and font
programs are binary and skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pymupdf

from exhibits.places import decoded

_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}
_STRING_START = re.compile(rb"[(<]")
_PLAIN = re.compile(rb"[^()\\\\]+")
_TEXT_END = re.compile(rb"(?<![A-Za-z])ET(?![A-Za-z])")
_BINARY_SUBTYPES = {"/Image", "/Type1C", "/CIDFontType0C", "/OpenType"}
_BINARY_TYPES = {"/XRef"}  # the cross-reference stream: offsets in binary


def pdf_strings(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """(start, end, bytes) of every literal ``(...)`` and hex ``<...>`` string in PDF source."""
    at = 0
    while (found := _STRING_START.search(data, at)) is not None:
        at = found.start()
        if data[at] == 0x28:  # (
            end, value = _literal(data, at + 1)
        elif data.startswith(b"<<", at):
            at += 2
            continue
        else:
            close = data.find(b">", at)
            end = len(data) if close < 0 else close + 1
            digits = re.sub(rb"[^0-9A-Fa-f]", b"", data[at + 1 : end - 1])
            value = bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode())
        yield at, end, value
        at = end


def _literal(data: bytes, at: int) -> tuple[int, bytes]:
    """The end of the literal string whose body starts at ``at``, and its bytes with escapes undone."""
    out = bytearray()
    depth = 1
    while at < len(data):
        plain = _PLAIN.match(data, at)
        if plain:
            out += plain.group(0)
            at = plain.end()
            continue
        byte = data[at]
        if byte == 0x5C and at + 1 < len(data):  # backslash
            nxt = data[at + 1]
            if nxt in _ESCAPES:
                out += _ESCAPES[nxt]
                at += 2
            elif 0x30 <= nxt <= 0x37:
                digits = re.match(rb"[0-7]{1,3}", data[at + 1 : at + 4])
                assert digits is not None
                out.append(int(digits.group(0), 8) & 0xFF)
                at += 1 + len(digits.group(0))
            elif nxt in (0x0A, 0x0D):  # a line continued
                at += 3 if data[at + 1 : at + 3] == b"\r\n" else 2
            else:
                out.append(nxt)
                at += 2
            continue
        depth += (byte == 0x28) - (byte == 0x29)
        if depth == 0:
            return at + 1, bytes(out)
        out.append(byte)
        at += 1
    return at, bytes(out)


def string_text(value: bytes) -> str:
    """A PDF string as text: UTF-16 with a byte-order mark, UTF-8 with one, else byte for byte."""
    if value.startswith(b"\xef\xbb\xbf"):
        return value[3:].decode("utf-8", "replace")
    return decoded(value) if value.startswith((b"\xfe\xff", b"\xff\xfe")) else value.decode("latin-1")


def text_objects(content: bytes) -> list[str]:
    """The strings of a content stream, those of one text object (BT ... ET) joined by spaces."""
    groups: list[list[str]] = [[]]
    last = 0
    for start, end, value in pdf_strings(content):
        if _TEXT_END.search(content, last, start):
            groups.append([])
        groups[-1].append(string_text(value))
        last = end
    return [" ".join(group) for group in groups if group]


@dataclass(frozen=True)
class RawText:
    where: str  # "object 12", "stream 40 (content)"
    texts: list[str]


def raw_texts(doc: pymupdf.Document) -> Iterator[RawText]:
    """What every object and every decompressed stream of ``doc`` says, one object at a time."""
    contents = content_xrefs(doc)
    yield RawText("trailer", [string_text(v) for _, _, v in pdf_strings(doc.pdf_trailer().encode("latin-1"))])
    for xref in range(1, doc.xref_length()):
        source = doc.xref_object(xref, compressed=False).encode("latin-1", "replace")
        yield RawText(f"object {xref}", [string_text(v) for _, _, v in pdf_strings(source)])
        if not doc.xref_is_stream(xref) or binary_stream(doc, xref):
            continue
        data = doc.xref_stream(xref) or b""
        if xref in contents:
            yield RawText(f"stream {xref} (content)", text_objects(data))
        elif doc.xref_get_key(xref, "Type")[1] == "/ObjStm":
            yield RawText(f"stream {xref} (object stream)", [string_text(v) for _, _, v in pdf_strings(data)])
        else:
            yield RawText(f"stream {xref}", [decoded(data)])


def binary_stream(doc: pymupdf.Document, xref: int) -> bool:
    if (
        doc.xref_get_key(xref, "Subtype")[1] in _BINARY_SUBTYPES
        or doc.xref_get_key(xref, "Type")[1] in _BINARY_TYPES
    ):
        return True
    return any(doc.xref_get_key(xref, key)[0] != "null" for key in ("Length1", "Length2", "Length3"))


def content_xrefs(doc: pymupdf.Document) -> set[int]:
    """Streams of drawing operators: page contents, forms (appearances too), tiling patterns."""
    found = {xref for index in range(doc.page_count) for xref in doc.load_page(index).get_contents()}
    for xref in range(1, doc.xref_length()):
        if doc.xref_is_stream(xref) and (
            doc.xref_get_key(xref, "Subtype")[1] == "/Form"
            or doc.xref_get_key(xref, "PatternType")[0] != "null"
        ):
            found.add(xref)
    return found
