"""Which streams of a PDF are attached files, and under what name the attorney knows each.

A file can be attached in many ways: the document's list of embedded files,
a file-attachment annotation, a link or action that opens an embedded file, a
portfolio, rich media. All of them end in a file specification whose ``/EF``
dictionary points at the file's stream; ``/Type /EmbeddedFile`` on the stream
is optional, so both are followed.
"""

from __future__ import annotations

import re

import pymupdf

from exhibits.rawscan import REFERENCE, pdf_strings, string_text

_ERRORS = (RuntimeError, pymupdf.mupdf.FzErrorBase)
_EF = re.compile(rb"/EF\s*<<(.*?)>>", re.S)
_NAMED = re.compile(rb"/U?F\s*(\((?:[^()\\]|\\.)*\)|<[0-9A-Fa-f\s]*>)")
_SPECS = ("", "FS/")  # the object is a file specification, or has one under /FS (an annotation)
_KEYS = ("F", "UF", "DOS", "Mac", "Unix")


def attached_streams(doc: pymupdf.Document) -> dict[int, str]:
    """Stream xref -> the attached file's name, for every attached file of ``doc``."""
    found: dict[int, str] = {}
    for xref in range(1, doc.xref_length()):
        try:
            found.update(_inline_specs(doc.xref_object(xref, compressed=False).encode("latin-1", "replace")))
            if doc.xref_is_stream(xref) and doc.xref_get_key(xref, "Type") == ("name", "/EmbeddedFile"):
                found.setdefault(xref, f"object {xref}")
            for spec in _SPECS:
                for key in _KEYS:
                    kind, value = doc.xref_get_key(xref, f"{spec}EF/{key}")
                    if kind == "xref":
                        found[int(value.split()[0])] = _file_name(doc, xref, spec)
        except _ERRORS:
            continue  # a damaged object: verification refuses the file that keeps one
    return found


def _inline_specs(source: bytes) -> dict[int, str]:
    """File specifications written inside another object (the embedded files' name tree holds them so)."""
    found = {}
    for match in _EF.finditer(source):
        around = source[max(0, match.start() - 600) : match.end() + 600]
        names = [string_text(v) for _, _, v in pdf_strings(b"".join(_NAMED.findall(around)))]
        for ref in REFERENCE.finditer(match.group(1)):
            found[int(ref.group(1))] = names[0] if names else f"object {ref.group(1).decode()}"
    return found


def _file_name(doc: pymupdf.Document, xref: int, spec: str) -> str:
    for key in ("UF", "F"):
        kind, value = doc.xref_get_key(xref, spec + key)
        if kind == "string" and value:
            return value
    return f"object {xref}"
