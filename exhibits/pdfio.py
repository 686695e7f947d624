"""Screening source PDFs (with evidence's one opener), and publishing outputs atomically.

A source that cannot be read is left out with a notice naming it and what to
do, and the rest of the production, binder or redaction goes on.

Outputs are saved to a hidden temporary file beside their final name and
renamed only once complete, so a reader never sees half a file and a failure
leaves nothing behind. An output may never land on a source file, and its
folder gets evidence's ``.chambers-output`` marker so ingest quarantines it
(a stamped copy would otherwise be indexed twice, once as a "new" document).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from evidence.errors import UnreadablePdf
from evidence.guard import output_guard
from evidence.pdf_open import check_pages, open_pdf
from evidence.provenance import OUTPUT_MARKER
from exhibits.errors import ExhibitsError, OutputOverSource
from workspace.paths import temp_name

CREATOR = "chambers exhibits"  # evidence ingest quarantines PDFs whose creator names chambers
# Object streams pack the many small objects a stamp adds to each page (a content stream, a resource
# entry): without them 2,000 short text pages grew by 43%, with them by 3%. garbage=1 drops unused
# objects; the duplicate search of garbage=3 found nothing to merge (the stamp font is shared
# already) and took 0.7 s of a 2,000-page production. Redaction saves with garbage=4 (redact.py).
SAVE_OPTIONS = {"garbage": 1, "deflate": True, "use_objstms": 1}


@dataclass(frozen=True)
class LeftOut:
    """A file left out of a production, binder or redaction because it cannot be read."""

    path: Path
    error: UnreadablePdf

    @property
    def message(self) -> str:
        return self.error.message


def readable_pdfs(paths: Sequence[Path]) -> tuple[list[tuple[Path, int]], list[LeftOut]]:
    """The files that open and whose every page loads, and a notice for each of the others.

    Loading every page first finds a broken page tree before a single page is stamped or a
    number planned, so one bad file is left out and the rest of the work goes on.
    """
    readable, left_out = [], []
    for path in paths:
        try:
            doc = open_pdf(Path(path))
            try:
                check_pages(doc, str(path))
                count = doc.page_count
            finally:
                doc.close()
        except UnreadablePdf as exc:
            left_out.append(LeftOut(Path(path), exc))
            continue
        readable.append((Path(path), count))
    return readable, left_out


def as_unreadable(path: Path, exc: BaseException) -> UnreadablePdf:
    """A MuPDF failure in the middle of the work, as the file's notice."""
    if isinstance(exc, UnreadablePdf):
        return exc
    message = f"{path} could not be processed: MuPDF failed on it ({exc}). Ask for a fresh copy of it."
    return UnreadablePdf(str(path), message)


def left_out_for(path: Path, exc: BaseException) -> LeftOut:
    """The notice for a file MuPDF failed on in the middle of the work."""
    return LeftOut(path, as_unreadable(path, exc))


def describe_left_out(left_out: Sequence[LeftOut]) -> list[str]:
    return (
        [f"Left out ({len(left_out)} file(s) could not be read):"] + [f"  {x.message}" for x in left_out]
        if left_out
        else []
    )


def nothing_readable(left_out: Sequence[LeftOut]) -> UnreadablePdf:
    """The error when every file given was left out."""
    first = left_out[0].error
    more = f" {len(left_out) - 1} more file(s) could not be read either." if len(left_out) > 1 else ""
    return type(first)(first.path, f"{first.message}{more} Nothing was written.")


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


def guard_outputs(db_path: Path, folder: Path, files: Iterable[Path], what: str) -> None:
    """Refuse an output folder in or above a matter's source folders, and any output onto evidence."""
    guard = output_guard(db_path)
    for file in files:
        guard.check(file, what=what)
    guard.check(folder, what=what, folder=True)


def sha256_file(path: Path) -> str:
    """The file's sha256, read in blocks (a production's sources can be large)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save_to_temp(doc: pymupdf.Document, out: Path, **options: object) -> Path:
    """Save ``doc`` beside ``out`` under a temporary name; returns that name."""
    mark_output_folder(out.parent)
    tmp = temp_name(out)
    meta = dict(doc.metadata or {})
    meta.update({"creator": CREATOR, "producer": CREATOR})
    doc.set_metadata({k: v for k, v in meta.items() if k != "format" and k != "encryption" and v is not None})
    try:
        doc.save(tmp, **(options or SAVE_OPTIONS))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def discard(temps: Iterable[Path]) -> None:
    for tmp in temps:
        tmp.unlink(missing_ok=True)


def mark_output_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / OUTPUT_MARKER
    if not marker.exists():
        marker.write_text("Written by chambers exhibits: evidence ingest skips this folder.\n")
