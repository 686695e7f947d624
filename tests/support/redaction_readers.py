"""Readers that look for a secret in a redacted PDF, none of them the code under test.

- ``pymupdf_reader``: everything PyMuPDF shows: page text (layers switched off
  and text off the page included), metadata, XMP, outline, annotations, form
  fields, links, attachments, layers, page labels, and every object and stream.
- ``poppler_reader``: poppler's ``pdftotext`` for the pages, ``pdfinfo`` for the
  metadata (custom keys too), XMP, JavaScript and web addresses, ``pdfdetach``
  for the attachments.
- ``raw_reader``: no PDF library at all: the file's bytes and every stream
  inflated with zlib, strings decoded by a few lines of regular expressions.
- ``xray_findings``: Free Law Project's x-ray, which finds text left under black
  boxes. It pins PyMuPDF 1.24.14, which the project's PyMuPDF excludes, so it
  runs from its own virtualenv (``make xray``) on that older MuPDF.

Each reader opens what it finds attached in its own format, as someone given
the file would: an attached PDF is read by the same reader again, a gzip is
inflated first; pictures are saved as their own files (JPEG headers and all);
web addresses are URL-decoded and names have their ``#xx`` escapes undone.

A secret counts as found when its characters appear in order with only spaces
and dashes removed, so a letter-spaced or split copy is found too.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote_plus

import pymupdf

XRAY_PYTHON = Path(
    os.environ.get("CHAMBERS_XRAY_PYTHON", Path.home() / ".cache/chambers/x-ray-0.4.0/bin/python")
)


def folded(text: str) -> str:
    return re.sub(r"[\s\-\u2010-\u2015\u2212]", "", text).casefold()


def url_decoded(text: str) -> str:
    """``text`` and its URL decodings (twice over: an address can be encoded twice)."""
    once = unquote_plus(text)
    return "\n".join([text, once, unquote_plus(once)])


def _attached(data: bytes, read_pdf: Callable[[Path], str]) -> str:
    """An attached file as its reader sees it: a PDF read again, a gzip inflated, anything else as bytes."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            return data.decode("latin-1")
    if b"%PDF-" in data[:1024]:
        with tempfile.TemporaryDirectory() as folder:
            inner = Path(folder) / "attached.pdf"
            inner.write_bytes(data)
            try:
                return read_pdf(inner)
            except RuntimeError:
                return data.decode("latin-1")
    return _as_text(data)


def _as_text(data: bytes) -> str:
    """Bytes as Latin-1, and as UTF-16 too where every other byte is zero."""
    text = data.decode("latin-1")
    if data.count(0) > len(data) // 4:
        text += "\n" + data.decode("utf-16-le", "replace") + "\n" + data.decode("utf-16-be", "replace")
    return text


def pymupdf_reader(path: Path) -> str:
    parts = []
    with pymupdf.open(path) as doc:
        parts += [str(doc.metadata), doc.get_xml_metadata(), str(doc.get_toc(simple=False))]
        parts += [str(doc.get_ocgs()), str(doc.layer_ui_configs()), str(doc.get_page_labels())]
        for name in doc.embfile_names():
            parts += [name, str(doc.embfile_info(name)), _attached(doc.embfile_get(name), pymupdf_reader)]
        for page in doc:
            parts += [page.get_text(), page.get_label(), url_decoded(str(page.get_links()))]
            parts += [str(a.info) + a.get_text() for a in page.annots()]
            parts += [
                _attached(a.get_file(), pymupdf_reader) for a in page.annots() if a.type[0] == FILE_ATTACHMENT
            ]
            parts += [doc.extract_image(image[0])["image"].decode("latin-1") for image in page.get_images()]
            parts += [f"{w.field_name} {w.field_label} {w.field_value}" for w in page.widgets()]
        for xref in range(1, doc.xref_length()):
            parts.append(url_decoded(doc.xref_object(xref)))
            if doc.xref_is_stream(xref):
                parts.append(_as_text(doc.xref_stream(xref) or b""))
    with pymupdf.open(path) as doc:  # afresh: MuPDF reads the layer settings once, when a page first loads
        doc.xref_set_key(doc.pdf_catalog(), "OCProperties", "null")  # every layer on
        for page in doc:
            doc.xref_set_key(page.xref, "MediaBox", "[-14400 -14400 14400 14400]")
            doc.xref_set_key(page.xref, "CropBox", "[-14400 -14400 14400 14400]")
            parts.append(doc.load_page(page.number).get_text())
    return "\n".join(parts)


def poppler_reader(path: Path) -> str:
    def run(*args: str) -> str:
        exe = shutil.which(args[0])
        assert exe, f"{args[0]} is missing: apt-get install poppler-utils (make test does this)"
        command = [exe, *args[1:], str(path)] + (["-"] if args[0] == "pdftotext" else [])
        return subprocess.run(command, capture_output=True, check=False).stdout.decode("utf-8", "replace")

    parts = [run("pdftotext", "-layout"), run("pdfinfo", "-custom"), run("pdfinfo", "-meta")]
    parts += [run("pdfinfo", "-js"), url_decoded(run("pdfinfo", "-url")), run("pdfdetach", "-list")]
    for tool, args in (("pdfdetach", ["-saveall", "-o"]), ("pdfimages", ["-all"])):
        with tempfile.TemporaryDirectory() as folder:
            exe = shutil.which(tool)
            assert exe, f"{tool} is missing: apt-get install poppler-utils"
            target = [*args, folder] if tool == "pdfdetach" else [*args, str(path), f"{folder}/image"]
            command = [exe, *target, str(path)] if tool == "pdfdetach" else [exe, *target]
            subprocess.run(command, capture_output=True, check=False)
            parts += [_attached(p.read_bytes(), poppler_reader) for p in sorted(Path(folder).iterdir())]
    return "\n".join(parts)


_STREAM = re.compile(rb"stream\r?\n(.*?)endstream", re.S)
_LITERAL = re.compile(rb"\((?:[^()\\]|\\.)*\)", re.S)
_HEX = re.compile(rb"<([0-9A-Fa-f\s]+)>")


FILE_ATTACHMENT = pymupdf.PDF_ANNOT_FILE_ATTACHMENT  # type: ignore[attr-defined]
_NAME_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")


def raw_reader(path: Path) -> str:
    return _raw(path.read_bytes(), 1)


def _raw(data: bytes, depth: int) -> str:
    chunks = [data]
    for match in _STREAM.finditer(data):
        try:
            chunks.append(zlib.decompressobj().decompress(match.group(1)))
        except zlib.error:
            continue
    parts = []
    for chunk in chunks:
        if depth < 6 and chunk is not data and (b"%PDF-" in chunk[:1024] or chunk[:2] == b"\x1f\x8b"):
            try:
                inner = gzip.decompress(chunk) if chunk[:2] == b"\x1f\x8b" else chunk
            except (OSError, EOFError):
                inner = chunk
            parts.append(_raw(inner, depth + 1) if b"%PDF-" in inner[:1024] else inner.decode("latin-1"))
        parts.append(url_decoded(_as_text(chunk)))
        parts.append(_NAME_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), chunk).decode("latin-1"))
        for literal in _LITERAL.findall(chunk):
            body = re.sub(rb"\\([0-7]{1,3})", lambda m: bytes([int(m.group(1), 8) & 0xFF]), literal[1:-1])
            parts.append(re.sub(rb"\\(.)", rb"\1", body).decode("latin-1"))
        for digits in _HEX.findall(chunk):
            raw = bytes.fromhex(re.sub(rb"\s", b"", digits).decode().ljust(2, "0"))
            parts.append(raw.decode("utf-16", "replace") if raw[:2] == b"\xfe\xff" else raw.decode("latin-1"))
    return "".join(parts)


def xray_findings(path: Path) -> dict[str, object]:
    """x-ray's report: page number -> text found under a box; empty when no box hides text."""
    assert XRAY_PYTHON.exists(), f"x-ray is missing at {XRAY_PYTHON}: run `make xray` (make test does this)"
    out = subprocess.run(
        [str(XRAY_PYTHON), "-m", "xray", str(path)], capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout))


READERS = {"PyMuPDF": pymupdf_reader, "poppler": poppler_reader, "raw bytes": raw_reader}


def readers_finding(path: Path, secret: str) -> list[str]:
    """The names of the readers that still find ``secret`` in ``path``."""
    return [name for name, read in READERS.items() if folded(secret) in folded(read(path))]
