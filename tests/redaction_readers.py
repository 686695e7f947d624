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

A secret counts as found when its characters appear in order with only spaces
and dashes removed, so a letter-spaced or split copy is found too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import zlib
from pathlib import Path

import pymupdf

XRAY_PYTHON = Path(
    os.environ.get("CHAMBERS_XRAY_PYTHON", Path.home() / ".cache/chambers/x-ray-0.4.0/bin/python")
)


def folded(text: str) -> str:
    return re.sub(r"[\s\-\u2010-\u2015\u2212]", "", text).casefold()


def pymupdf_reader(path: Path) -> str:
    parts = []
    with pymupdf.open(path) as doc:
        parts += [str(doc.metadata), doc.get_xml_metadata(), str(doc.get_toc(simple=False))]
        parts += [str(doc.get_ocgs()), str(doc.layer_ui_configs()), str(doc.get_page_labels())]
        for name in doc.embfile_names():
            parts += [name, str(doc.embfile_info(name)), doc.embfile_get(name).decode("latin-1")]
        for page in doc:
            parts += [page.get_text(), page.get_label(), str(page.get_links())]
            parts += [str(a.info) + a.get_text() for a in page.annots()]
            parts += [f"{w.field_name} {w.field_label} {w.field_value}" for w in page.widgets()]
        for xref in range(1, doc.xref_length()):
            parts.append(doc.xref_object(xref))
            if doc.xref_is_stream(xref):
                parts.append((doc.xref_stream(xref) or b"").decode("latin-1"))
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
    parts += [run("pdfinfo", "-js"), run("pdfinfo", "-url"), run("pdfdetach", "-list")]
    with tempfile.TemporaryDirectory() as folder:
        exe = shutil.which("pdfdetach")
        assert exe
        subprocess.run([exe, "-saveall", "-o", folder, str(path)], capture_output=True, check=False)
        parts += [p.read_bytes().decode("latin-1") for p in Path(folder).iterdir()]
    return "\n".join(parts)


_STREAM = re.compile(rb"stream\r?\n(.*?)endstream", re.S)
_LITERAL = re.compile(rb"\((?:[^()\\]|\\.)*\)", re.S)
_HEX = re.compile(rb"<([0-9A-Fa-f\s]+)>")


def raw_reader(path: Path) -> str:
    data = path.read_bytes()
    chunks = [data]
    for match in _STREAM.finditer(data):
        try:
            chunks.append(zlib.decompressobj().decompress(match.group(1)))
        except zlib.error:
            continue
    parts = []
    for chunk in chunks:
        parts.append(chunk.decode("latin-1"))
        for literal in _LITERAL.findall(chunk):
            parts.append(re.sub(rb"\\(.)", rb"\1", literal[1:-1]).decode("latin-1"))
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
