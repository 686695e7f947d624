"""The evidence room's store: its only SQL, over the tables of ``evidence/schema.py``.

Matters and their source folders, the pages ingest indexed (text in FTS5 only), the per-file
notices of an ingest, the registry of what chambers wrote (file hashes and shingle hashes), and
the contexts built for a model. ``open_index`` opens the database with this room's tables up to
date; the functions below take that connection, so one piece of work (an ingest, a context) runs
in one session, and rooms above pass a connection of their own session (their schemas require
this one). Rows come back as dataclasses. ``Connection`` is named here for the room's modules that
hand one session's connection from step to step: only stores and schemas import the database engine.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from evidence import schema as evidence_schema
from evidence.errors import MatterNotFound
from workspace.database import Connection as Connection  # named for the room's modules (see above)
from workspace.database import session

MatterKind = Literal["record", "library"]  # a library holds the opinions the verifier trusts


@contextmanager
def open_index(path: Path, *, readonly: bool = False) -> Iterator[Connection]:
    """A session on the database with the evidence tables up to date (read-only: as they are)."""
    with session(path, evidence_schema.SCHEMA, readonly=readonly) as db:
        yield db


# --- matters ---


@dataclass(frozen=True)
class Matter:
    id: int
    name: str
    sources: tuple[Path, ...]
    kind: MatterKind = "record"


def find_matter(db: Connection, name: str) -> Matter | None:
    row = db.execute("SELECT id, name, kind FROM matters WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None
    sources = tuple(
        Path(r[0])
        for r in db.execute("SELECT path FROM matter_sources WHERE matter_id = ? ORDER BY path", (row[0],))
    )
    kind: MatterKind = "library" if row[2] == "library" else "record"
    return Matter(id=int(row[0]), name=str(row[1]), sources=sources, kind=kind)


def require_matter(db: Connection, name: str) -> Matter:
    """The matter called ``name``; refused, naming the matters there are, when there is none."""
    matter = find_matter(db, name)
    if matter is None:
        raise MatterNotFound.named(name, matter_names(db))
    return matter


def matter_names(db: Connection) -> list[str]:
    return [str(r[0]) for r in db.execute("SELECT name FROM matters ORDER BY name")]


def all_matters(db: Connection) -> list[Matter]:
    return [require_matter(db, name) for name in matter_names(db)]


def set_matter_kind(db: Connection, matter_id: int, kind: MatterKind) -> None:
    with db:
        db.execute("UPDATE matters SET kind = ? WHERE id = ?", (kind, matter_id))


@dataclass(frozen=True)
class ReadFile:
    """A file an ingest read: its path as listed, and (when recorded) what it was on disk then."""

    matter: str
    path: str
    real_path: str | None = None
    device: int | None = None
    inode: int | None = None


def read_files(db: Connection) -> list[ReadFile]:
    """Every file an ingest read: indexed, or kept out with a notice after reading."""
    rows = db.execute(
        """SELECT m.name, r.path, r.real_path, r.device, r.inode FROM read_files r
           JOIN matters m ON m.id = r.matter_id
           UNION SELECT m.name, d.path, NULL, NULL, NULL FROM documents d JOIN matters m ON m.id = d.matter_id
           UNION SELECT m.name, n.path, NULL, NULL, NULL FROM ingest_notices n JOIN matters m ON m.id = n.matter_id
           WHERE n.sha256 IS NOT NULL ORDER BY 1, 2"""
    ).fetchall()
    return [ReadFile(*r) for r in rows]


def add_matter(db: Connection, name: str, sources: Sequence[Path], kind: MatterKind = "record") -> None:
    with db:
        cur = db.execute(
            "INSERT INTO matters (name, created_at, kind) VALUES (?, ?, ?)",
            (name, datetime.now(UTC).isoformat(), kind),
        )
        db.executemany(
            "INSERT OR IGNORE INTO matter_sources (matter_id, path) VALUES (?, ?)",
            [(int(cur.lastrowid or 0), str(p)) for p in sources],
        )


# --- the registry of what chambers wrote ---


@dataclass(frozen=True)
class RegisteredOutput:
    id: int
    kind: str
    created_at: str


def registered_output(db: Connection, sha256: str) -> RegisteredOutput | None:
    """The first registered output whose file has this sha256, if any."""
    row = db.execute(
        "SELECT id, kind, created_at FROM outputs WHERE sha256 = ? ORDER BY id LIMIT 1", (sha256,)
    ).fetchone()
    return RegisteredOutput(int(row[0]), str(row[1]), str(row[2])) if row else None


def text_registered(db: Connection, text_sha256: str) -> bool:
    return db.execute("SELECT 1 FROM outputs WHERE text_sha256 = ?", (text_sha256,)).fetchone() is not None


def registry_is_empty(db: Connection) -> bool:
    return db.execute("SELECT 1 FROM output_shingles LIMIT 1").fetchone() is None


def shingle_marks(db: Connection, hashes: list[int]) -> list[bool]:
    """For each of ``hashes`` found in the registry: whether it is marked as quoting primary text."""
    marks = ",".join("?" * len(hashes))
    return [
        bool(quoted)
        for _, quoted in db.execute(
            f"SELECT hash, max(quoted) FROM output_shingles WHERE hash IN ({marks}) GROUP BY hash", hashes
        )
    ]


def add_output(
    db: Connection, kind: str, path: Path | None, sha256: str | None, text_sha256: str, hashes: dict[int, int]
) -> int:
    """Register one output and its shingle hashes (hash -> 1 where the run quotes primary text)."""
    with db:
        cur = db.execute(
            "INSERT INTO outputs (kind, path, sha256, text_sha256, shingles, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                kind,
                str(path) if path else None,
                sha256,
                text_sha256,
                len(hashes),
                datetime.now(UTC).isoformat(),
            ),
        )
        output_id = int(cur.lastrowid or 0)
        db.executemany(
            "INSERT OR IGNORE INTO output_shingles (hash, output_id, quoted) VALUES (?, ?, ?)",
            ((h, output_id, q) for h, q in hashes.items()),
        )
    return output_id


# --- pages and the full-text index ---


def index_is_empty(db: Connection) -> bool:
    return db.execute("SELECT 1 FROM pages_fts LIMIT 1").fetchone() is None


def phrase_indexed(db: Connection, phrase: str) -> bool:
    """Whether an FTS5 query (a quoted phrase) matches any indexed page."""
    return (
        db.execute("SELECT 1 FROM pages_fts WHERE pages_fts MATCH ? LIMIT 1", (phrase,)).fetchone()
        is not None
    )


def page_text(db: Connection, page_id: int) -> str:
    return str(db.execute("SELECT text FROM pages_fts WHERE rowid = ?", (page_id,)).fetchone()[0])


@dataclass(frozen=True)
class PageView:
    page_id: int
    path: str
    part: str  # "" for the file itself; "attachment N: name" for an e-mail attachment
    title: str
    doc_date: str | None
    page_no: int
    page_count: int
    bates: str | None
    ocr: bool  # the text was read from a picture of the page (Tesseract)
    text: str


def page_view(db: Connection, page_id: int) -> PageView | None:
    row = db.execute(
        """SELECT p.id, d.path, d.part, d.title, d.doc_date, p.page_no, d.page_count, p.bates, p.ocr, f.text
           FROM pages p JOIN documents d ON d.id = p.document_id JOIN pages_fts f ON f.rowid = p.id
           WHERE p.id = ?""",
        (page_id,),
    ).fetchone()
    if row is None:
        return None
    return PageView(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], bool(row[8]), row[9])


def page_id_of(db: Connection, matter_name: str, file_name: str, page_no: int) -> int | None:
    """The page of a file (by its path or its name) and page number in a matter."""
    row = db.execute(
        """SELECT p.id FROM pages p JOIN documents d ON d.id = p.document_id
           JOIN matters m ON m.id = d.matter_id
           WHERE m.name = ? AND (d.path = ? OR d.path LIKE ?) AND p.page_no = ?
           ORDER BY d.part LIMIT 1""",
        (matter_name, file_name, f"%/{file_name}", page_no),
    ).fetchone()
    return int(row[0]) if row else None


@dataclass(frozen=True)
class DocumentEntry:
    path: str
    part: str
    title: str
    doc_date: str | None
    pages: int
    first_bates: str | None
    last_bates: str | None
    quarantined: str | None = None  # why it was kept out of the index (then it has no pages)


def document_entries(db: Connection, matter_id: int) -> list[DocumentEntry]:
    """The matter's indexed documents in path order, with their page count and Bates range."""
    rows = db.execute(
        """SELECT d.path, d.part, d.title, d.doc_date, count(p.id),
                  (SELECT p1.bates FROM pages p1 WHERE p1.document_id = d.id ORDER BY p1.page_no LIMIT 1),
                  (SELECT p2.bates FROM pages p2 WHERE p2.document_id = d.id ORDER BY p2.page_no DESC LIMIT 1)
           FROM documents d LEFT JOIN pages p ON p.document_id = d.id
           WHERE d.matter_id = ? GROUP BY d.id ORDER BY d.path, d.part""",
        (matter_id,),
    ).fetchall()
    return [DocumentEntry(*r) for r in rows]


@dataclass(frozen=True)
class IndexedDocument:
    id: int
    path: str
    part: str
    sha256: str
    chars: int


def indexed_documents(db: Connection, matter_id: int) -> list[IndexedDocument]:
    rows = db.execute(
        """SELECT d.id, d.path, d.part, d.sha256, coalesce(sum(p.chars), 0)
           FROM documents d LEFT JOIN pages p ON p.document_id = d.id
           WHERE d.matter_id = ? GROUP BY d.id ORDER BY d.path, d.part""",
        (matter_id,),
    ).fetchall()
    return [IndexedDocument(*r) for r in rows]


def matter_totals(db: Connection, matter_id: int) -> tuple[int, int, int]:
    """Documents, pages and characters indexed for a matter."""
    row = db.execute(
        """SELECT count(DISTINCT d.id), count(p.id), coalesce(sum(p.chars), 0)
           FROM documents d LEFT JOIN pages p ON p.document_id = d.id WHERE d.matter_id = ?""",
        (matter_id,),
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])


def document_texts(db: Connection, document_id: int) -> Iterator[str]:
    for (text,) in db.execute(
        "SELECT f.text FROM pages p JOIN pages_fts f ON f.rowid = p.id WHERE p.document_id = ?",
        (document_id,),
    ):
        yield str(text)


@dataclass(frozen=True)
class StoredNotice:
    kind: str
    path: str
    message: str


def page_texts(db: Connection, matter_id: int) -> Iterator[tuple[str, str, str, int, str]]:
    """Every indexed page of a matter as (path, part, document kind, page number, text), in path order,
    fetched in batches."""
    cur = db.execute(
        """SELECT d.path, d.part, d.kind, p.page_no, f.text
           FROM documents d JOIN pages p ON p.document_id = d.id JOIN pages_fts f ON f.rowid = p.id
           WHERE d.matter_id = ? ORDER BY d.path, d.part, p.page_no""",
        (matter_id,),
    )
    while rows := cur.fetchmany(200):
        for path, part, kind, page_no, text in rows:
            yield str(path), str(part), str(kind), int(page_no), str(text or "")


def notices(db: Connection, matter_id: int, kind: str | None = None) -> list[StoredNotice]:
    """A matter's ingest notices (of one kind, or all), by path."""
    where, args = ("AND kind = ?", (matter_id, kind)) if kind else ("", (matter_id,))
    rows = db.execute(
        f"SELECT kind, path, message FROM ingest_notices WHERE matter_id = ? {where} ORDER BY path, id", args
    ).fetchall()
    return [StoredNotice(*r) for r in rows]


@dataclass(frozen=True)
class SearchHit:
    page_id: int
    path: str
    part: str
    title: str
    doc_date: str | None
    sha256: str
    page_no: int
    bates: str | None
    score: float  # bm25: lower is better
    snippet: str  # with HIGHLIGHT markers around the matched words


class SearchFailed(Exception):
    """FTS5 refused a query (its syntax, not the attorney's words): the caller says what to do."""


def search_pages(
    db: Connection,
    matter_id: int,
    match: str,
    conditions: list[tuple[str, list[object]]],
    highlight: tuple[str, str],
    limit: int,
) -> list[SearchHit]:
    """The matter's pages matching an FTS5 query and every (SQL condition, arguments), best first (bm25)."""
    where = " AND ".join(["pages_fts MATCH ?", "d.matter_id = ?", *(sql for sql, _ in conditions)])
    args = [match, matter_id, *(a for _, values in conditions for a in values)]
    sql = f"""
        SELECT p.id, d.path, d.part, d.title, d.doc_date, d.sha256, p.page_no, p.bates,
               bm25(pages_fts) AS score, snippet(pages_fts, 0, ?, ?, '…', 16) AS snip
        FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid JOIN documents d ON d.id = p.document_id
        WHERE {where}
        ORDER BY score LIMIT ?"""
    try:
        found = db.execute(sql, [*highlight, *args, limit]).fetchall()
    except sqlite3.OperationalError as exc:
        raise SearchFailed(str(exc)) from exc
    return [
        SearchHit(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], float(r[8]), " ".join(r[9].split()))
        for r in found
    ]


# --- contexts ---


def add_context(
    db: Connection,
    matter_id: int,
    task: str,
    window: tuple[int, int, int],
    counted_by: str,
    messages: str,
    chunks: str,
) -> int:
    """Store a built context: ``window`` is (n_ctx, budget, tokens); messages and chunks as JSON text."""
    with db:
        cur = db.execute(
            """INSERT INTO evidence_contexts (matter_id, task, created_at, n_ctx, budget, tokens, counted_by,
                   messages_json, chunks_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (matter_id, task, datetime.now(UTC).isoformat(), *window, counted_by, messages, chunks),
        )
        return int(cur.lastrowid or 0)
