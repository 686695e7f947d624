"""Attached files redacted in their own format, or removed with the reason; none passes through unread.

Each attached file (filespecs.py finds them all) is unpacked (unpack.py): a
PDF is redacted as a document of its own, with the same terms, patterns and
removed strings, its own attachments included (``redact_pdf``, supplied by
the caller, recurses); a gzip is inflated, its content handled the same way,
and compressed again; text has each value to remove rewritten. Whatever
cannot be read (a picture, an Office file, a damaged or locked PDF, a PDF
nested too deep, a bomb) is emptied, as is text a rewrite cannot clear, and
the attorney is told which file and why. The finished file is verified with
everything else (verify.py reads attachments in the same formats).
"""

from __future__ import annotations

from collections.abc import Callable

import pymupdf

from exhibits.filespecs import attached_streams
from exhibits.matching import Matcher
from exhibits.rawscan import PDF_ERRORS, stream_bytes
from exhibits.unpack import MAX_DEPTH, gzipped, text_views, unpack, unreadable_why

REWRITTEN = "[redacted]"
RedactPdf = Callable[[bytes, int], tuple[bytes, str]]  # (PDF, depth) -> (redacted PDF, what was done)


class Removed(Exception):
    """An attached file that must go: ``str(exc)`` says why, for the attorney."""


def redact_attachments(
    doc: pymupdf.Document, matcher: Matcher, redact_pdf: RedactPdf, depth: int
) -> list[str]:
    """Every attached file of ``doc`` redacted or emptied; a notice for each, naming it."""
    notices = []
    for xref, name in attached_streams(doc).items():
        data = stream_bytes(doc, xref)
        try:
            if data is None:
                raise Removed("MuPDF cannot unpack it (damaged, or a compression bomb)")
            new, done = redacted(data, matcher, redact_pdf, depth)
        except Removed as why:
            new, done = b"", f"removed: it is {why}" if str(why).startswith("a ") else f"removed: {why}"
        if new != data:
            doc.update_stream(xref, new)
            doc.xref_set_key(xref, "Params/Size", str(len(new)))
            doc.xref_set_key(xref, "Params/CheckSum", "null")
        if done:
            notices.append(f"attached file {name}: {done}")
    return notices


def redacted(data: bytes, matcher: Matcher, redact_pdf: RedactPdf, depth: int) -> tuple[bytes, str]:
    """The attached file's bytes with everything to remove gone, and what was done ("" for nothing)."""
    found = unpack(data)
    if found.kind == "gzip":
        inner, done = redacted(found.inner, matcher, redact_pdf, depth)
        return (gzipped(inner), f"inside its gzip, {done}") if done else (data, "")
    if found.kind == "text":
        return _rewritten(data, matcher)
    if found.kind != "pdf":
        raise Removed(found.why)
    if depth > MAX_DEPTH:
        raise Removed(unreadable_why(data, depth))
    try:
        new, done = redact_pdf(data, depth + 1)
    except PDF_ERRORS as exc:
        raise Removed(unreadable_why(data, depth)) from exc
    return new, f"a PDF, redacted as a document of its own ({done})"


def _rewritten(data: bytes, matcher: Matcher) -> tuple[bytes, str]:
    """Text with each value to remove replaced; emptied where the rewrite does not clear it."""
    codec = _codec(data)
    text = data.decode(codec, "replace")
    values = [value for view in text_views(data) for value in matcher.find(view)]
    if not values:
        return data, ""
    for value in sorted(set(values), key=len, reverse=True):
        text = text.replace(value, REWRITTEN)
    new = text.encode(codec, "replace")
    if any(matcher.find(view) for view in text_views(new)):
        raise Removed(f"text holding {len(set(values))} value(s) to remove that a rewrite cannot clear")
    return new, f"text, {len(set(values))} value(s) rewritten as {REWRITTEN}"


def _codec(data: bytes) -> str:
    if data.startswith((b"\xfe\xff", b"\xff\xfe")):
        return "utf-16"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8"
