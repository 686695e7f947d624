"""Ingest's store: the SQL that records one matter's files, pages and notices (tables of
``evidence/schema.py``) on the connection the ingest holds for its whole run.

The caller owns the transactions (``with db:``), so one file's documents, pages and notices are
written all or none.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from evidence.bates import Bates
from evidence.documents import SourceDocument


def storable(text: str) -> str:
    """Text SQLite's UTF-8 can hold: a lone surrogate (a broken font's text, say) written as ``\\udcNN``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


DatabaseTrouble = sqlite3.Error  # the database's own failure, never a file's: an ingest stops on it
Stamp = tuple[str, int, int]  # a file's sha256, size and mtime_ns as read


@dataclass(frozen=True)
class KnownFile:
    """What was recorded for a path last time: its hash, size and modification time."""

    sha256: str
    size: int
    mtime_ns: int


class IngestRecords:
    """The rows of one matter that an ingest reads and writes."""

    def __init__(self, db: sqlite3.Connection, matter_id: int) -> None:
        self.db = db
        self.matter_id = matter_id

    def clear_walk_notices(self, logs: list[str]) -> None:
        """Notices about folders and production logs are found afresh by every ingest."""
        self.db.execute(
            "DELETE FROM ingest_notices WHERE matter_id = ? AND kind IN ('missing', 'vanished', 'loop', 'outside', 'special')",
            (self.matter_id,),
        )
        self.db.executemany(
            "DELETE FROM ingest_notices WHERE matter_id = ? AND path = ?",
            [(self.matter_id, log) for log in logs],
        )

    def known(self, key: str) -> KnownFile | None:
        """An indexed file without unread pages (those are tried again), or a lasting quarantine or skip."""
        row = self.db.execute(
            "SELECT sha256, size, mtime_ns FROM documents WHERE matter_id = ? AND path = ? LIMIT 1",
            (self.matter_id, key),
        ).fetchone()
        if row is not None:
            has_unread = self.db.execute(
                "SELECT 1 FROM ingest_notices WHERE matter_id = ? AND path = ? AND kind = 'unread'",
                (self.matter_id, key),
            ).fetchone()
            return None if has_unread else KnownFile(*row)
        row = self.db.execute(
            "SELECT sha256, size, mtime_ns FROM ingest_notices WHERE matter_id = ? AND path = ? "
            "AND kind IN ('quarantined', 'skipped') LIMIT 1",
            (self.matter_id, key),
        ).fetchone()
        return KnownFile(*row) if row is not None else None

    def touch(self, key: str, size: int, mtime_ns: int) -> None:
        """The same bytes under a new modification time: record the time, keep the pages."""
        for table in ("documents", "ingest_notices"):
            self.db.execute(
                f"UPDATE {table} SET mtime_ns = ?, size = ? WHERE matter_id = ? AND path = ?",
                (mtime_ns, size, self.matter_id, key),
            )

    def add_document(self, key: str, doc: SourceDocument, stamp: Stamp, ingested_at: str) -> int:
        sha, size, mtime_ns = stamp
        cur = self.db.execute(
            """INSERT INTO documents (matter_id, path, part, kind, title, doc_date, sha256, size,
                   mtime_ns, page_count, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                self.matter_id,
                storable(key),
                storable(doc.part),
                doc.kind,
                storable(doc.title),
                doc.doc_date,
                sha,
                size,
                mtime_ns,
                doc.page_count,
                ingested_at,
            ),
        )
        return int(cur.lastrowid or 0)

    def add_page(self, document_id: int, page_no: int, bates: Bates | None, ocr: bool, text: str) -> None:
        """A page's record, and its text in the full-text index (rowid = the page's id)."""
        cur = self.db.execute(
            """INSERT INTO pages (document_id, page_no, bates, bates_prefix, bates_number, ocr, chars)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (
                document_id,
                page_no,
                bates.text if bates else None,
                bates.prefix if bates else None,
                bates.number if bates else None,
                int(ocr),
                len(text),
            ),
        )
        self.db.execute("INSERT INTO pages_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, storable(text)))

    def forget(self, key: str) -> None:
        """Drop this path's pages, documents and notices."""
        ids = "SELECT p.id FROM pages p JOIN documents d ON d.id = p.document_id WHERE d.matter_id = ? AND d.path = ?"
        self.db.execute(f"DELETE FROM pages_fts WHERE rowid IN ({ids})", (self.matter_id, key))
        self.db.execute("DELETE FROM documents WHERE matter_id = ? AND path = ?", (self.matter_id, key))
        self.db.execute("DELETE FROM ingest_notices WHERE matter_id = ? AND path = ?", (self.matter_id, key))
        self.db.execute("DELETE FROM read_files WHERE matter_id = ? AND path = ?", (self.matter_id, key))

    def remember_read(self, key: str, real_path: str, device: int, inode: int) -> bool:
        """The file behind ``key`` as it was read, for the guard (kept while the path has records);
        False when that was recorded already (nothing written)."""
        row = self.db.execute(
            "SELECT real_path, device, inode FROM read_files WHERE matter_id = ? AND path = ?",
            (self.matter_id, storable(key)),
        ).fetchone()
        if row is not None and tuple(row) == (storable(real_path), device, inode):
            return False
        self.db.execute(
            "INSERT OR REPLACE INTO read_files (matter_id, path, real_path, device, inode) VALUES (?, ?, ?, ?, ?)",
            (self.matter_id, storable(key), storable(real_path), device, inode),
        )
        return True

    def drop_notices(self, path: str, kind: str) -> None:
        self.db.execute(
            "DELETE FROM ingest_notices WHERE matter_id = ? AND path = ? AND kind = ?",
            (self.matter_id, path, kind),
        )

    def add_notice(self, path: str, kind: str, message: str, stamp: Stamp | None) -> None:
        sha, size, mtime_ns = stamp if stamp else (None, None, None)
        self.db.execute(
            "INSERT INTO ingest_notices (matter_id, path, sha256, size, mtime_ns, kind, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.matter_id,
                storable(path),
                sha,
                size,
                mtime_ns,
                kind,
                storable(message),
                datetime.now(UTC).isoformat(),
            ),
        )

    def recorded_paths(self) -> set[str]:
        """Every path with documents or notices."""
        return {
            str(r[0])
            for r in self.db.execute(
                "SELECT path FROM documents WHERE matter_id = ? UNION SELECT path FROM ingest_notices WHERE matter_id = ?",
                (self.matter_id, self.matter_id),
            )
        }

    def has_documents(self, key: str) -> bool:
        return (
            self.db.execute(
                "SELECT 1 FROM documents WHERE matter_id = ? AND path = ?", (self.matter_id, key)
            ).fetchone()
            is not None
        )
