"""Reading the index back: one page whole, and a matter's documents with what was kept out.

The evidence screen shows what search found in full (the page's text, file,
page number and Bates) and what the matter holds, quarantined files included,
so the attorney can see literally what the models may be given. It calls these
functions rather than querying the tables itself, like every other room.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from evidence.errors import EvidenceError
from evidence.ingest import quarantine_reason
from evidence.matters import get_matter
from workspace.database import connect


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


def read_page(db_path: Path, page_id: int) -> PageView:
    """The whole text of one indexed page, with where it comes from."""
    db = connect(db_path)
    try:
        row = db.execute(
            """SELECT p.id, d.path, d.part, d.title, d.doc_date, p.page_no, d.page_count, p.bates, p.ocr, f.text
               FROM pages p JOIN documents d ON d.id = p.document_id JOIN pages_fts f ON f.rowid = p.id
               WHERE p.id = ?""",
            (page_id,),
        ).fetchone()
    finally:
        db.close()
    if row is None:
        raise EvidenceError(
            f"Page #{page_id} is no longer in the index (the matter was ingested again since the search). "
            "Search again.",
            title="Page not found",
        )
    return PageView(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], bool(row[8]), row[9])


def find_page(db_path: Path, matter_name: str, file_name: str, page_no: int) -> PageView | None:
    """The page a verifier's pointer names (a file's name, with an attachment's part, and a page number)."""
    name = file_name.split(" (", 1)[0]
    db = connect(db_path)
    try:
        row = db.execute(
            """SELECT p.id FROM pages p JOIN documents d ON d.id = p.document_id
               JOIN matters m ON m.id = d.matter_id
               WHERE m.name = ? AND (d.path = ? OR d.path LIKE ?) AND p.page_no = ?
               ORDER BY d.part LIMIT 1""",
            (matter_name, name, f"%/{name}", page_no),
        ).fetchone()
    finally:
        db.close()
    return read_page(db_path, int(row[0])) if row else None


def matter_documents(db_path: Path, matter_name: str) -> list[DocumentEntry]:
    """The matter's indexed documents in path order, then the files quarantined at the last ingest."""
    db = connect(db_path)
    try:
        matter = get_matter(db, matter_name)
        rows = db.execute(
            """SELECT d.path, d.part, d.title, d.doc_date, count(p.id),
                      (SELECT p1.bates FROM pages p1 WHERE p1.document_id = d.id ORDER BY p1.page_no LIMIT 1),
                      (SELECT p2.bates FROM pages p2 WHERE p2.document_id = d.id ORDER BY p2.page_no DESC LIMIT 1)
               FROM documents d LEFT JOIN pages p ON p.document_id = d.id
               WHERE d.matter_id = ? GROUP BY d.id ORDER BY d.path, d.part""",
            (matter.id,),
        ).fetchall()
        notices = db.execute(
            "SELECT path, message FROM ingest_notices WHERE matter_id = ? AND kind = 'quarantined' "
            "ORDER BY path, id",
            (matter.id,),
        ).fetchall()
    finally:
        db.close()
    entries = [DocumentEntry(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]
    seen: set[str] = set()
    for path, message in notices:
        if path not in seen:
            seen.add(path)
            entries.append(
                DocumentEntry(
                    path, "", Path(path).name, None, 0, None, None, quarantined=quarantine_reason(message)
                )
            )
    return entries


def shown_path(path: str, sources: tuple[Path, ...]) -> str:
    """A source file's path as the attorney knows it: inside the matter's folder, not from the root."""
    for source in sources:
        try:
            return Path(path).relative_to(source).as_posix()
        except ValueError:
            continue
    return path


def matter_page_texts(db_path: Path, matter_name: str) -> Iterator[tuple[str, str, int, str]]:
    """Every indexed page of a matter as (file name with its part, document kind, page number, text),
    in path order, read in batches so a large matter never sits in memory whole."""
    db = connect(db_path)
    try:
        matter = get_matter(db, matter_name)
        cur = db.execute(
            """SELECT d.path, d.part, d.kind, p.page_no, f.text
               FROM documents d JOIN pages p ON p.document_id = d.id JOIN pages_fts f ON f.rowid = p.id
               WHERE d.matter_id = ? ORDER BY d.path, d.part, p.page_no""",
            (matter.id,),
        )
        while rows := cur.fetchmany(200):
            for path, part, kind, page_no, text in rows:
                name = Path(path).name + (f" ({part})" if part else "")
                yield name, kind, int(page_no), str(text or "")
    finally:
        db.close()
