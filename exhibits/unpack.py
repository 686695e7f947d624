"""What an attached file says: a PDF inside the PDF, a gzip, plain text, or bytes nothing here can read.

An attachment's stream, once inflated, is still the file as it was attached:
a PDF whose own streams are compressed again, a ``.gz``, a picture. Matching
terms against those bytes finds nothing, so each is opened in its own format,
recursively: a PDF's pages and every object and stream (rawscan.py), a gzip
inflated (within a cap, so a bomb is refused rather than read), text in the
encodings files use. Bytes in any other format cannot be read here, so they
are reported unreadable: the caller removes them or refuses the file, and never
passes them through unread.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

import pymupdf

MAX_DEPTH = 4  # a PDF in a PDF in a PDF...: deeper than this is removed, not read
MAX_INFLATED = 256 * 1024 * 1024  # a gzip inflating past this is a bomb: unreadable
_TEXT_CONTROLS = set(range(0, 9)) | {
    11,
    14,
    15,
    16,
    17,
    18,
    19,
    20,
    21,
    22,
    23,
    24,
    25,
    26,
    27,
    28,
    29,
    30,
    31,
}


@dataclass(frozen=True)
class Unpacked:
    kind: str  # "pdf", "gzip", "text", or "unreadable"
    why: str = ""  # for "unreadable": what the file is, for the attorney
    inner: bytes = b""  # for "gzip": the inflated bytes


def is_pdf(data: bytes) -> bool:
    """PDF readers accept the header anywhere in the first kilobyte."""
    return b"%PDF-" in data[:1024]


def unpack(data: bytes) -> Unpacked:
    if is_pdf(data):
        return Unpacked("pdf")
    if data[:2] == b"\x1f\x8b":
        inner = gunzip(data)
        if inner is None:
            return Unpacked(
                "unreadable", f"a gzip file that is damaged or inflates past {MAX_INFLATED:,} bytes"
            )
        return Unpacked("gzip", inner=inner)
    if looks_like_text(data):
        return Unpacked("text")
    return Unpacked("unreadable", f"a file in a format chambers cannot read ({_sniffed(data)})")


def gunzip(data: bytes) -> bytes | None:
    """The inflated bytes of every gzip member, or None when damaged or past the cap."""
    out = bytearray()
    rest = data
    try:
        while rest[:2] == b"\x1f\x8b":
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += inflater.decompress(rest, MAX_INFLATED + 1 - len(out))
            if len(out) > MAX_INFLATED or not inflater.eof:
                return None
            rest = inflater.unused_data
    except zlib.error:
        return None
    return bytes(out)


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def looks_like_text(data: bytes) -> bool:
    """Text in UTF-8, Latin-1 or UTF-16: no control bytes other than line and page breaks."""
    if data.startswith((b"\xfe\xff", b"\xff\xfe")):
        return True
    sample = data[:65536]
    if sample.count(0) > len(sample) // 4 and _utf16_text(sample):
        return True
    return not any(byte in _TEXT_CONTROLS for byte in sample)


def _utf16_text(sample: bytes) -> bool:
    for codec in ("utf-16-le", "utf-16-be"):
        text = sample[: len(sample) // 2 * 2].decode(codec, "replace")
        if sum(c.isprintable() or c.isspace() for c in text) > 0.95 * max(len(text), 1):
            return True
    return False


def text_views(data: bytes) -> list[str]:
    """The text as each encoding a file may use reads it: UTF-8 or Latin-1, and UTF-16 where it fits."""
    views = []
    if data.startswith((b"\xfe\xff", b"\xff\xfe")):
        views.append(data.decode("utf-16", "replace"))
    else:
        try:
            views.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            views.append(data.decode("latin-1"))
        if data.count(0) > len(data) // 4:
            even = data[: len(data) // 2 * 2]
            views += [even.decode("utf-16-le", "replace"), even.decode("utf-16-be", "replace")]
    return views


def _sniffed(data: bytes) -> str:
    for magic, name in (
        (b"\xff\xd8\xff", "JPEG"),
        (b"\x89PNG", "PNG"),
        (b"PK\x03\x04", "ZIP or Office"),
        (b"GIF8", "GIF"),
        (b"\xd0\xcf\x11\xe0", "old Office"),
        (b"BZh", "bzip2"),
        (b"\xfd7zXZ", "xz"),
        (b"7z\xbc\xaf", "7-Zip"),
        (b"Rar!", "RAR"),
    ):
        if data.startswith(magic):
            return name
    return "binary data"


def nested_texts(data: bytes, depth: int = 1) -> list[str] | None:
    """Everything an attached file says, read in its own format; None when it cannot be read."""
    found = unpack(data)
    if found.kind == "gzip":
        return nested_texts(found.inner, depth)
    if found.kind == "text":
        return text_views(data)
    if found.kind != "pdf" or depth > MAX_DEPTH:
        return None
    from exhibits.rawscan import raw_texts  # rawscan reads attachments through this module

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase):
        return None
    try:
        if doc.needs_pass:
            return None
        texts = [doc.load_page(index).get_text() for index in range(doc.page_count)]
        for raw in raw_texts(doc, depth + 1):
            if raw.texts is None:
                return None
            texts += raw.texts
        return texts
    except (RuntimeError, pymupdf.mupdf.FzErrorBase):
        return None
    finally:
        doc.close()


def nested_pdfs(data: bytes) -> Iterator[bytes]:
    """The PDF an attachment is, inside its gzip where it has one (for readers of whole files)."""
    found = unpack(data)
    if found.kind == "gzip":
        yield from nested_pdfs(found.inner)
    elif found.kind == "pdf":
        yield data


def unreadable_why(data: bytes, depth: int = 1) -> str:
    """Why ``nested_texts`` could not read ``data``, for the attorney."""
    found = unpack(data)
    if found.kind == "gzip":
        return unreadable_why(found.inner, depth)
    if found.kind == "pdf":
        if depth > MAX_DEPTH:
            return f"a PDF nested more than {MAX_DEPTH} deep"
        return "a PDF that is damaged, password-protected, or holds a file chambers cannot read"
    return found.why or "a file chambers cannot read"
