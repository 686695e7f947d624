"""What the rooms above read of a matter's index, as plain values.

The verifier reads every page with its text, and asks the full-text index for candidate pages;
exhibits lists a matter's PDFs and the Bates ranges already stamped on ingested pages. They call
these functions and never read evidence's tables (``documents``, ``pages``, ``pages_fts``)
themselves; the queries here are the evidence room's own, beside its store.

The verifier's reads open the database read-only: checking a draft never writes, and a missing
database is an error rather than a new empty one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evidence.store import Matter, find_matter, open_index, registered_output, require_matter
from evidence.walk import key_path
from workspace.database import Connection


@dataclass(frozen=True)
class IndexedPage:
    """One page of the index with its document's details and its whole text."""

    page_id: int
    document_id: int
    path: str
    part: str  # "" for the file itself; "attachment N: name" for an e-mail attachment
    title: str
    doc_date: str | None
    sha256: str  # the file's
    page_no: int
    bates: str | None
    bates_prefix: str | None
    bates_number: int | None
    text: str


@dataclass(frozen=True)
class StampedRange:
    """The Bates numbers evidence read from the stamps on one ingested document."""

    first: int
    last: int
    path: str


@dataclass(frozen=True)
class MatterPdf:
    path: Path
    title: str
    pages: int
    bates: str | None  # the first Bates stamp the index read on it, if any


@dataclass(frozen=True)
class OwnOutput:
    """A file chambers wrote itself, by the registry of its outputs."""

    kind: str
    created_at: str


def matter_id(db_path: Path, name: str) -> int | None:
    """The id of the matter called ``name``, or None when there is none (read-only)."""
    with open_index(db_path, readonly=True) as db:
        matter = find_matter(db, name)
    return None if matter is None else matter.id


def matter_pages(db_path: Path, matter_name: str) -> tuple[Matter, list[IndexedPage]]:
    """The matter and every page of it with its text, in path, part and page order (read-only)."""
    with open_index(db_path, readonly=True) as db:
        matter = require_matter(db, matter_name)
        rows = db.execute(
            """
            SELECT p.id, p.document_id, d.path, d.part, d.title, d.doc_date, d.sha256, p.page_no, p.bates,
                   p.bates_prefix, p.bates_number, f.text
            FROM pages p JOIN documents d ON d.id = p.document_id JOIN pages_fts f ON f.rowid = p.id
            WHERE d.matter_id = ? ORDER BY d.path, d.part, p.page_no
            """,
            (matter.id,),
        ).fetchall()
    pages = [
        IndexedPage(
            int(r[0]),
            int(r[1]),
            r[2],
            r[3],
            r[4],
            r[5],
            r[6],
            int(r[7]),
            r[8],
            r[9],
            None if r[10] is None else int(r[10]),
            r[11] or "",
        )
        for r in rows
    ]
    return matter, pages


def matching_page_ids(db_path: Path, matter_id: int, query: str, limit: int, *, ranked: bool) -> list[int]:
    """The ids of the matter's pages an FTS5 ``query`` matches: best first (bm25) or in index order."""
    order = "ORDER BY bm25(pages_fts), f.rowid LIMIT ?" if ranked else "ORDER BY f.rowid LIMIT ?"
    with open_index(db_path, readonly=True) as db:
        rows = db.execute(
            "SELECT f.rowid FROM pages_fts f JOIN pages p ON p.id = f.rowid "
            "JOIN documents d ON d.id = p.document_id WHERE pages_fts MATCH ? AND d.matter_id = ? " + order,
            (query, matter_id, limit),
        ).fetchall()
    return [int(r[0]) for r in rows]


def load_matter(db_path: Path, name: str) -> Matter:
    with open_index(db_path) as db:
        return require_matter(db, name)


def readable_pages_of_file(db_path: Path, matter_id: int, sha256: str) -> int | None:
    """How many pages of the matter's file with this content have text; None when it is not indexed."""
    with open_index(db_path) as db:
        row = db.execute(
            "SELECT d.id, (SELECT COUNT(*) FROM pages p JOIN pages_fts f ON f.rowid = p.id "
            "WHERE p.document_id = d.id AND length(trim(f.text)) > 0) FROM documents d "
            "WHERE d.matter_id = ? AND d.sha256 = ?",
            (matter_id, sha256),
        ).fetchone()
    return None if row is None else int(row[1])


def stamped_ranges(db: Connection, matter_id: int, prefix: str) -> list[StampedRange]:
    """Per ingested document, the lowest and highest ``prefix`` number read from its stamps.

    Takes the caller's connection: exhibits checks these inside the transaction that reserves a range.
    """
    return [
        StampedRange(int(r[0]), int(r[1]), r[2])
        for r in db.execute(
            "SELECT min(p.bates_number), max(p.bates_number), d.path FROM pages p "
            "JOIN documents d ON d.id = p.document_id WHERE d.matter_id = ? AND p.bates_prefix = ? "
            "GROUP BY d.id",
            (matter_id, prefix),
        )
    ]


def matter_pdfs(db_path: Path, matter: str) -> list[MatterPdf]:
    """The matter's ingested PDFs (not e-mail attachments), by path, with the first stamp read on each."""
    with open_index(db_path) as db:
        matter_id = require_matter(db, matter).id
        rows = db.execute(
            "SELECT d.path, d.title, d.page_count, (SELECT p.bates FROM pages p WHERE p.document_id = d.id "
            "AND p.bates IS NOT NULL ORDER BY p.page_no LIMIT 1) FROM documents d "
            "WHERE d.matter_id = ? AND d.kind = 'pdf' AND d.part = '' ORDER BY d.path",
            (matter_id,),
        ).fetchall()
    return [MatterPdf(key_path(r[0]), r[1], int(r[2]), r[3]) for r in rows]  # the file itself, bytes and all


def own_outputs(db_path: Path, sha256s: Iterable[str]) -> dict[str, OwnOutput]:
    """Of these file hashes, the ones chambers wrote itself (registered outputs), with what each was."""
    found = {}
    with open_index(db_path) as db:
        for sha in set(sha256s):
            row = registered_output(db, sha)
            if row is not None:
                found[sha] = OwnOutput(row.kind, row.created_at)
    return found
