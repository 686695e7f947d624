"""Words inside pictures' own files: JPEG comments, EXIF and XMP, which no page shows and MuPDF skips.

A JPEG in a PDF is the whole JPEG file, headers and all: a ``COM`` comment,
an ``APP1`` segment holding EXIF (the camera owner, a caption, Windows'
UTF-16 title and keywords) or an XMP packet, IPTC in ``APP13``. Decoding the
picture drops them, so MuPDF's extraction never shows them, yet any tool that
saves the picture gets them back. So each JPEG picture's segments are read as
text, and scrubbing rewrites the picture without them: the markers a decoder
needs (JFIF, Adobe's colour transform, the colour profile) and the compressed
pixels are kept byte for byte. JPEG 2000 pictures keep metadata in boxes; they
are read as text for the terms, and a JPEG 2000 picture holding a hit is
removed from its page's view by a box only (see the closing report).
"""

from __future__ import annotations

from collections.abc import Iterator

import pymupdf

from exhibits.unpack import text_views

_STANDALONE = set(range(0xD0, 0xD8)) | {0x01, 0xD8}  # RSTn, TEM and SOI carry no length
_KEPT_APPS = {0xE0, 0xE2, 0xEE}  # JFIF, ICC profile, Adobe: a decoder may need them
_DROPPED = {0xFE} | (set(range(0xE1, 0xF0)) - _KEPT_APPS)  # COM and the other APPn: metadata only


def segments(data: bytes) -> Iterator[tuple[int, int, int]]:
    """(marker, start, end) of each segment before the picture data (start of scan), in order."""
    if not data.startswith(b"\xff\xd8"):
        return
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return  # not a marker: damaged, stop reading (the picture is left as it is)
        marker = data[at + 1]
        if marker == 0xFF:
            at += 1  # fill byte
            continue
        if marker in _STANDALONE:
            at += 2
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        end = at + 2 + length
        yield marker, at, min(end, len(data))
        if marker == 0xDA:  # start of scan: the pixels follow, no more metadata segments to read
            return
        at = end


def metadata_texts(data: bytes) -> list[str]:
    """The words of every metadata segment of a JPEG, in each encoding they may use."""
    texts = []
    for marker, start, end in segments(data):
        if marker in _DROPPED or marker in (0xE0, 0xEE):
            texts += text_views(data[start + 4 : end])
    return texts


def without_metadata(data: bytes) -> bytes:
    """The JPEG with its comment and metadata segments dropped, everything else byte for byte."""
    cut = [(start, end) for marker, start, end in segments(data) if marker in _DROPPED]
    out, at = bytearray(), 0
    for start, end in cut:
        out += data[at:start]
        at = end
    return bytes(out + data[at:])


def is_jpeg(doc: pymupdf.Document, xref: int) -> bool:
    kind, value = doc.xref_get_key(xref, "Filter")
    return "/DCTDecode" in value if kind in ("name", "array") else False


def is_jpx(doc: pymupdf.Document, xref: int) -> bool:
    kind, value = doc.xref_get_key(xref, "Filter")
    return "/JPXDecode" in value if kind in ("name", "array") else False


def picture_bytes(doc: pymupdf.Document, xref: int) -> bytes:
    """The picture's own file (the JPEG as stored, other filters undone), or none when MuPDF cannot."""
    try:
        return bytes((doc.extract_image(xref) or {}).get("image") or b"")
    except (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase):
        return b""


def replace_jpeg(doc: pymupdf.Document, xref: int, data: bytes) -> None:
    """Store ``data`` as the picture's stream, a plain JPEG (any other filter over it dropped)."""
    doc.update_stream(xref, data, compress=False)
    doc.xref_set_key(xref, "Filter", "/DCTDecode")
    doc.xref_set_key(xref, "DecodeParms", "null")
