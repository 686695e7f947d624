"""The last look: every string in every object, and every decompressed stream, of the saved file.

Extraction only sees what a reader would show. Text can also sit where no page
shows it: an object nothing draws, a string in a content stream the extractor
skips (text far off the page, inside marked content, behind an operator it
does not know), a document-level script. So every object of the cross-reference
table is read as its source (objects packed in object streams included), the
PDF strings in it decoded, and every stream decompressed: content streams
(pages, forms, appearances) have their strings joined per text object, so a
secret split over several ``Tj`` still reads whole; other streams (scripts,
metadata, scripts, form data, unknown ones) are searched as text, UTF-16 too;
those of unknown make that are not plain text (colour profiles, maps,
functions) for the terms and removed strings only (patterns of digits match
binary data and character maps by chance). Names are read with their escapes undone, comments in content
streams are read, strings are URL-decoded as well (an address), and the
document information's numbers are read. Attached files are read in their own
format (unpack.py), a PDF inside recursively; one that cannot be read comes
back unread. Of pictures, only a JPEG's own metadata is read (imagemeta.py);
font programs are binary and skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pymupdf

from exhibits.imagemeta import is_jpeg, is_jpx, metadata_texts, picture_bytes
from exhibits.tokens import names, with_url_views
from exhibits.unpack import looks_like_text, nested_texts, text_views, unpack, unreadable_why

_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}
_STRING_START = re.compile(rb"[(<%]")
_EOL = re.compile(rb"[\r\n]")
_PLAIN = re.compile(rb"[^()\\\\]+")
REFERENCE = re.compile(rb"(\d+)\s+\d+\s+R\b")
_INLINE_IMAGE = re.compile(
    rb"(?<![A-Za-z])BI(?![A-Za-z]).*?(?<![A-Za-z])ID\s.*?(?<![A-Za-z])EI(?![A-Za-z])", re.S
)
_TEXT_END = re.compile(rb"(?<![A-Za-z])ET(?![A-Za-z])")
_BINARY_SUBTYPES = {"/Image", "/Type1C", "/CIDFontType0C", "/OpenType"}
_TEXT_TYPES = {"/Metadata"}  # streams known to hold text: patterns run over them too
_BINARY_TYPES = {"/XRef"}  # the cross-reference stream: offsets in binary


def decoded(data: bytes) -> str:
    """Bytes of an attachment or a stream as text, in the encodings such files use."""
    if data.startswith((b"\xfe\xff", b"\xff\xfe")):
        return data.decode("utf-16", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def pdf_strings(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """(start, end, bytes) of every literal ``(...)`` and hex ``<...>`` string in PDF source."""
    for kind, start, end, value in pdf_tokens(data):
        if kind == "string":
            yield start, end, value


def comments(data: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, text) of every comment (``% ...`` to the end of the line) outside strings and pictures."""
    tokens = pdf_tokens(without_inline_images(data))
    return [(start, end, value) for kind, start, end, value in tokens if kind == "comment"]


def pdf_tokens(data: bytes) -> Iterator[tuple[str, int, int, bytes]]:
    """Strings and comments, read in order so that a "(" in a comment starts no string, nor a "%" in a
    string a comment."""
    at = 0
    while (found := _STRING_START.search(data, at)) is not None:
        at = found.start()
        if data[at] == 0x25:  # %
            eol = _EOL.search(data, at)
            end = len(data) if eol is None else eol.start()
            yield "comment", at, end, data[at + 1 : end]
            at = end
            continue
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
        yield "string", at, end, value
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


# PDFDocEncoding, where it differs from Latin-1: its dashes (0x84, 0x85, 0x8A) above all, which read
# as Latin-1 control characters would hide an SSN written with them from the patterns.
_PDF_DOC = dict(
    zip(
        range(0x80, 0x9F),
        "\u2022\u2020\u2021\u2026\u2014\u2013\u0192\u2044\u2039\u203a\u2212"
        "\u2030\u201e\u201c\u201d\u2018\u2019\u201a\u2122\ufb01\ufb02\u0141\u0152\u0160\u0178"
        "\u017d\u0131\u0142\u0153\u0161\u017e",
        strict=True,
    )
) | {0xA0: "\u20ac"}


def string_text(value: bytes) -> str:
    """A PDF string as text: UTF-16 with a byte-order mark, UTF-8 with one, else PDFDocEncoding."""
    if value.startswith(b"\xef\xbb\xbf"):
        return value[3:].decode("utf-8", "replace")
    if value.startswith((b"\xfe\xff", b"\xff\xfe")):
        return decoded(value)
    return value.decode("latin-1").translate(_PDF_DOC)


def text_objects(content: bytes) -> list[str]:
    """The strings of a content stream, those of one text object (BT ... ET) joined by spaces; read
    again as Windows' encoding (most simple fonts use it: its dashes are 0x96 and 0x97) where it differs."""
    content = without_inline_images(content)
    groups: list[list[bytes]] = [[]]
    last = 0
    for start, end, value in pdf_strings(content):
        if _TEXT_END.search(content, last, start):
            groups.append([])
        groups[-1].append(value)
        last = end
    texts = [" ".join(string_text(value) for value in group) for group in groups if group]
    high = [group for group in groups if any(byte >= 0x80 for value in group for byte in value)]
    return texts + [" ".join(v.decode("cp1252", "replace") for v in group) for group in high]


def without_inline_images(content: bytes) -> bytes:
    """The content stream with each inline picture's bytes blanked, offsets kept: a picture's bytes hold
    no strings nor comments, though "(" and "%" may occur in them."""
    return _INLINE_IMAGE.sub(lambda m: b" " * len(m.group(0)), content)


@dataclass(frozen=True)
class RawText:
    where: str  # "object 12", "stream 40 (content)"
    texts: list[str] | None  # None: the object is damaged and could not be read
    patterns: bool = True  # False for streams of unknown make (colour profiles, maps): terms only, as
    # patterns of digits match by chance in binary data
    why: str = ""  # where ``texts`` is None for a reason other than damage: what the attached file is


PDF_ERRORS = (RuntimeError, pymupdf.mupdf.FzErrorBase)  # what MuPDF raises for a damaged object


def readable_xrefs(doc: pymupdf.Document) -> tuple[list[int], list[int]]:
    """The objects MuPDF can load, and those it cannot (damaged: nothing can be read from them)."""
    readable, damaged = [], []
    for xref in range(1, doc.xref_length()):
        try:
            doc.xref_get_key(xref, "Type")
        except PDF_ERRORS:
            damaged.append(xref)
        else:
            readable.append(xref)
    return readable, damaged


def stream_bytes(doc: pymupdf.Document, xref: int) -> bytes | None:
    """The decompressed stream, or None where MuPDF cannot decompress it (damaged, or a compression bomb)."""
    try:
        return doc.xref_stream(xref) or b""
    except PDF_ERRORS:
        return None


def raw_texts(doc: pymupdf.Document, depth: int = 1) -> Iterator[RawText]:
    """What every object and every decompressed stream of ``doc`` says, one object at a time.

    A damaged object cannot be read, so it cannot be shown clean: it comes back with ``None``, and so
    does an attached file in a format nothing here reads. ``depth`` counts PDFs attached inside PDFs.
    """
    from exhibits.filespecs import attached_streams  # which reads objects with this module's parser

    contents = content_xrefs(doc)
    attached = attached_streams(doc)
    info = doc.xref_get_key(-1, "Info")
    info_xref = int(info[1].split()[0]) if info[0] == "xref" else 0
    yield RawText("trailer", [string_text(v) for _, _, v in pdf_strings(doc.pdf_trailer().encode("latin-1"))])
    readable, damaged = readable_xrefs(doc)
    yield from (RawText(f"object {xref}", None) for xref in damaged)
    for xref in readable:
        source = doc.xref_object(xref, compressed=False).encode("latin-1", "replace")
        texts = [with_url_views(string_text(v)) for _, _, v in pdf_strings(source)]
        texts.append("\n".join(names(source)))
        if xref == info_xref:  # the document information: its numbers are the producer's data too
            texts.append(source.decode("latin-1"))
        yield RawText(f"object {xref}", texts)
        if doc.xref_is_stream(xref):
            yield from _stream_texts(doc, xref, xref in contents, attached.get(xref), depth)


def _stream_texts(
    doc: pymupdf.Document, xref: int, content: bool, attached: str | None, depth: int
) -> Iterator[RawText]:
    if is_jpeg(doc, xref):
        yield RawText(f"picture metadata in object {xref}", metadata_texts(picture_bytes(doc, xref)))
        return
    if is_jpx(doc, xref):
        yield RawText(
            f"picture in object {xref}", [picture_bytes(doc, xref).decode("latin-1")], patterns=False
        )
        return
    if binary_stream(doc, xref):
        return
    data = stream_bytes(doc, xref)
    kind = doc.xref_get_key(xref, "Type")[1]
    if data is None:
        yield RawText(f"stream {xref}", None)
    elif content:
        found = [string_text(value) for _, _, value in comments(data)]
        yield RawText(f"stream {xref} (content)", text_objects(data) + found + ["\n".join(names(data))])
    elif kind == "/ObjStm":
        yield RawText(f"stream {xref} (object stream)", [string_text(v) for _, _, v in pdf_strings(data)])
    elif attached is not None or unpack(data).kind in ("pdf", "gzip"):
        where = f"attached file {attached}" if attached else f"stream {xref} (a file inside the PDF)"
        texts = nested_texts(data, depth)
        why = "" if texts is not None else unreadable_why(data, depth)
        yield RawText(where, texts, why=why)
    else:
        yield RawText(
            f"stream {xref}", text_views(data), patterns=kind in _TEXT_TYPES or plain_text(doc, xref, data)
        )


def plain_text(doc: pymupdf.Document, xref: int, data: bytes) -> bool:
    """A stream of no known kind that is text a person wrote (a script, XFA form data, a note), where the
    patterns run too; not a character map or a calculator function, whose numbers are no identifiers."""
    if doc.xref_get_key(xref, "FunctionType")[0] != "null" or b"begincmap" in data[:4096]:
        return False
    return looks_like_text(data)


def binary_stream(doc: pymupdf.Document, xref: int) -> bool:
    if (
        doc.xref_get_key(xref, "Subtype")[1] in _BINARY_SUBTYPES
        or doc.xref_get_key(xref, "Type")[1] in _BINARY_TYPES
    ):
        return True
    return any(doc.xref_get_key(xref, key)[0] != "null" for key in ("Length1", "Length2", "Length3"))


def content_xrefs(doc: pymupdf.Document) -> set[int]:
    """Streams of drawing operators: page contents, forms (appearances too), tiling patterns, Type 3 glyphs."""
    found = {xref for index in range(doc.page_count) for xref in doc.load_page(index).get_contents()}
    for xref in readable_xrefs(doc)[0]:
        if doc.xref_is_stream(xref) and (
            doc.xref_get_key(xref, "Subtype")[1] == "/Form"
            or doc.xref_get_key(xref, "PatternType")[0] != "null"
        ):
            found.add(xref)
        elif doc.xref_get_key(xref, "Subtype")[1] == "/Type3":
            kind, procs = doc.xref_get_key(xref, "CharProcs")
            if kind == "xref":
                procs = doc.xref_object(int(procs.split()[0]), compressed=False)
            found.update(int(m.group(1)) for m in REFERENCE.finditer(procs.encode("latin-1", "replace")))
    return found
