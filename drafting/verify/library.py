"""The authorities library as the attorney manages it: say an opinion's citations, list what is in it.

The citations an attorney gives are stored by the file's content (sha256), so they follow the
opinion if the file is renamed or moved within the library's folders. They are kept in the verifier's
store; the library's files are looked up through the evidence room. Nothing here parses opinions
(authorities.py does).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from drafting.verify.authorities import parse_citation
from drafting.verify.errors import VerifyError
from drafting.verify.store import add_given_citations, stored_citations
from evidence.index.store import load_matter, matter_id, readable_pages_of_file
from workspace.digest import file_sha256

if TYPE_CHECKING:
    from drafting.verify.verifier import Library


@dataclass(frozen=True)
class Authority:
    file: str
    path: str
    citations: tuple[str, ...]  # empty: not indexed, see ``reason``
    caption: str
    reason: str = ""


def given_citations(database_file: Path, library: str) -> dict[str, list[str]]:
    """sha256 of a file -> the citations the attorney gave for it, in the order given."""
    library_id = matter_id(database_file, library)
    given: dict[str, list[str]] = {}
    for found in stored_citations(database_file, library_id) if library_id is not None else []:
        given.setdefault(found.sha256, []).append(found.cite)
    return given


def check_citations(cites: list[str]) -> None:
    """Each citation the attorney typed must read as VOLUME REPORTER PAGE, or a clear error says so."""
    for cite in cites:
        if parse_citation(cite) is None:
            raise VerifyError(
                f"'{cite}' is not a case citation chambers can read. Write it as VOLUME REPORTER PAGE, "
                'e.g. "570 U.S. 297" or "133 S. Ct. 2411".',
                title="Citation not understood",
            )


def add_citations(database_file: Path, library: str, file: Path, cites: list[str]) -> None:
    """Record that ``file`` (an opinion in the library's folders) is reported at ``cites``."""
    if not cites:
        raise VerifyError(
            f'Give the opinion\'s citation with --cite, e.g. --cite "570 U.S. 297" for {file.name}.',
            title="No citation given",
        )
    check_citations(cites)
    if not file.is_file():
        raise VerifyError(f"There is no file at {file}. Give the path of the opinion's PDF or text.")
    sha = file_sha256(file)
    matter = load_matter(database_file, library)
    readable = readable_pages_of_file(database_file, matter.id, sha)
    inside = any(file.absolute().is_relative_to(folder) for folder in matter.sources)
    if readable is None and inside:
        raise VerifyError(
            f"Ingest could not read {file.name} (its error is printed above). Replace it with a readable "
            "copy of the opinion (the court's PDF, or its text) and add it again.",
            title="Opinion not readable",
        )
    if readable is not None and not readable:
        raise VerifyError(
            f"{file.name} has no readable text (a scan without OCR, or an empty file), so no quotation or "
            "party could be checked against it. Add a copy with text.",
            title="Opinion has no text",
        )
    if readable is None:
        raise VerifyError(
            f"{file.name} is not in the library '{library}'. Put it in one of its folders "
            f"({', '.join(str(s) for s in matter.sources)}) and run `chambers evidence ingest {library}`.",
            title="Opinion not in the library",
        )
    add_given_citations(
        database_file, matter.id, sha, [cite.strip() for cite in cites], datetime.now(UTC).isoformat()
    )


def list_authorities(database_file: Path, library: str) -> list[Authority]:
    """Every opinion in the library with its citations and caption; the ones not indexed with the reason."""
    from drafting.verify.verifier import load_library

    return authorities_of(load_library(database_file, library))  # as verify reads it, and kept for it


def authorities_of(read: Library) -> list[Authority]:
    """The opinions of a library already read, as ``list_authorities`` gives them."""
    out: dict[str, Authority] = {}
    for opinion in read.opinions.values():
        out.setdefault(
            opinion.file, Authority(opinion.file, opinion.pages[0].path, opinion.citations, opinion.caption)
        )
    reasons = {u.file: u.reason for u in read.unindexed}
    for pages in read.sources.documents.values():
        name = pages[0].file
        if name not in out:
            out[name] = Authority(name, pages[0].path, (), "", reasons.get(name, "not indexed"))
    return sorted(out.values(), key=lambda a: a.file)


@dataclass(frozen=True)
class Added:
    file: Path  # where the opinion now lies, inside the library's folders
    notes: tuple[str, ...]  # what was done, for the attorney ("Created the library...", "Copied...")


def add_opinion_file(
    database_file: Path, library: str, file: Path, cites: list[str], output_roots: list[Path]
) -> Added:
    """Put ``file`` in the library (creating it on the file's folder, or copying the file into its
    first folder), ingest that file alone, and record the citations given for it."""
    from evidence.errors import MatterNotFound
    from evidence.ingest import ingest_matter
    from evidence.matters import create_matter, mark_library
    from workspace.paths import write_atomically

    file = file.expanduser().absolute()
    if not file.is_file():
        raise VerifyError(
            f"There is no file at {file}. Give the path of the opinion's PDF or text file.",
            title="Opinion not found",
        )
    check_citations(cites)
    notes: list[str] = []
    try:
        matter = mark_library(database_file, library)  # opinions are added to a library, never to a record
    except MatterNotFound:
        matter = create_matter(database_file, library, [file.parent], kind="library")
        notes.append(f"Created the authorities library '{library}' on {file.parent}.")
    if not any(file.is_relative_to(folder) for folder in matter.sources):
        target = matter.sources[0] / file.name
        if target.exists() and target.read_bytes() != file.read_bytes():
            raise VerifyError(
                f"{target} exists already and holds another file. Rename {file.name} and add it again.",
                title="Name taken in the library",
            )
        write_atomically(target, file.read_bytes())
        notes.append(f"Copied {file.name} into {matter.sources[0]}.")
        file = target
    report = ingest_matter(database_file, library, output_roots=output_roots, only=file)
    notes += [f"[{n.kind}] {n.message}" for n in report.notices]
    notes.append(f"Ingested {file.name}: {len(report.ingested)} file(s) read ({report.pages} pages).")
    if cites:
        add_citations(database_file, library, file, cites)
    return Added(file, tuple(notes))
