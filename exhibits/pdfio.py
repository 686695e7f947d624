"""Opening source PDFs with clear errors, and publishing outputs atomically.

Outputs are saved to a hidden temporary file beside their final name and
renamed only once complete, so a reader never sees half a file and a failure
leaves nothing behind. An output may never land on a source file, and its
folder gets evidence's ``.chambers-output`` marker so ingest quarantines it
(a stamped copy would otherwise be indexed twice, once as a "new" document).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import pymupdf

from evidence.provenance import OUTPUT_MARKER
from exhibits.errors import EncryptedPdf, ExhibitsError, OutputOverSource, UnreadablePdf

CREATOR = "chambers exhibits"  # evidence ingest quarantines PDFs whose creator names chambers
# Object streams pack the many small objects a stamp adds to each page (a content stream, a resource
# entry): without them 2,000 short text pages grew by 43%, with them by 3%. garbage=1 drops unused
# objects; the duplicate search of garbage=3 found nothing to merge (the stamp font is shared
# already) and took 0.7 s of a 2,000-page production. Redaction saves with garbage=4 (redact.py).
SAVE_OPTIONS = {"garbage": 1, "deflate": True, "use_objstms": 1}


def open_pdf(path: Path, *, password: str | None = None) -> pymupdf.Document:
    """Open ``path`` for reading, or raise an error naming it and what to do."""
    if not path.is_file():
        raise UnreadablePdf(f"{path} does not exist. Check the path, or pick the file again.")
    try:
        doc = pymupdf.open(path)
    except (pymupdf.FileDataError, RuntimeError) as exc:
        raise UnreadablePdf(
            f"{path} is damaged or not a PDF and cannot be read ({exc}). Ask for a fresh copy, "
            "or leave it out of this production."
        ) from exc
    if not doc.is_pdf:
        doc.close()
        raise UnreadablePdf(f"{path} is not a PDF. Convert it to PDF first, then add it again.")
    if doc.needs_pass and (password is None or not doc.authenticate(password)):
        doc.close()
        raise EncryptedPdf(
            f"{path} is password-protected, so it cannot be stamped, bound or redacted. Open it with its "
            "password and save an unprotected copy (or ask the producing party for one), then try again."
        )
    if doc.page_count == 0:
        doc.close()
        raise UnreadablePdf(f"{path} has no pages. Ask for a complete copy of the document.")
    return doc


def check_outputs(outputs: Iterable[Path], sources: Iterable[Path]) -> None:
    """Refuse before any work when an output would land on a source or on an existing file."""
    source_set = {s.resolve() for s in sources}
    outputs = list(outputs)
    seen: set[Path] = set()
    for out in outputs:
        if out in seen:
            raise ExhibitsError(
                f"Two documents would both be written as {out}: they share the name {out.name}. Rename one "
                "of them, or produce them in separate runs.",
                title="Two outputs with one name",
            )
        seen.add(out)
    for out in outputs:
        if out.resolve() in source_set:
            raise OutputOverSource(
                f"{out} is one of the source files. Choose another output folder (--out); chambers "
                "never writes over a source."
            )
        if out.exists():
            raise ExhibitsError(
                f"{out} exists already and was left as it is. Choose another output folder (--out), "
                "or move the old file away first.",
                title="Output file exists",
            )


def sha256_file(path: Path) -> str:
    """The file's sha256, read in blocks (a production's sources can be large)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def temp_path(out: Path) -> Path:
    return out.with_name(f".{out.name}.{os.getpid()}.tmp")


def save_to_temp(doc: pymupdf.Document, out: Path, **options: object) -> Path:
    """Save ``doc`` beside ``out`` under a temporary name; returns that name."""
    mark_output_folder(out.parent)
    tmp = temp_path(out)
    meta = dict(doc.metadata or {})
    meta.update({"creator": CREATOR, "producer": CREATOR})
    doc.set_metadata({k: v for k, v in meta.items() if k != "format" and k != "encryption" and v is not None})
    try:
        doc.save(tmp, **(options or SAVE_OPTIONS))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def publish(tmp: Path, out: Path) -> None:
    """Rename a complete temporary file to its final name (atomic on one filesystem)."""
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, out)


def discard(temps: Iterable[Path]) -> None:
    for tmp in temps:
        tmp.unlink(missing_ok=True)


def mark_output_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / OUTPUT_MARKER
    if not marker.exists():
        marker.write_text("Written by chambers exhibits: evidence ingest skips this folder.\n")
