"""Full-text search over a matter's pages: SQLite FTS5, bm25-ranked, with filters and snippets.

The attorney types words and "quoted phrases"; each is passed to FTS5 as a
quoted string, so punctuation in a query (a section sign, a hyphenated name,
a Bates number) never turns into FTS5 syntax and an error. All terms must
occur on the page (FTS5's implicit AND).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from evidence import schema as evidence_schema
from evidence.bates import parse_bates_range
from evidence.errors import EvidenceError
from evidence.matters import get_matter
from workspace.database import connect

HIGHLIGHT = ("\x01", "\x02")  # markers around matched words in snippets; the CLI turns them into bold
_TERM = re.compile(r'"([^"]+)"|(\S+)')
# Words that say nothing about which page is relevant; dropped from a task's any-term query only.
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "that",
        "the",
        "their",
        "them",
        "there",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


@dataclass(frozen=True)
class SearchFilters:
    document: str | None = None  # part of a file path or a document title
    date_from: str | None = None  # ISO dates, inclusive
    date_to: str | None = None
    bates: str | None = None  # PREFIX-000010..PREFIX-000020


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


def fts_query(query: str, *, any_term: bool = False) -> str:
    """The attorney's words and "phrases" as an FTS5 query of quoted strings.

    All must match, unless ``any_term`` (the context builder's task text, where
    bm25 ranks the pages that match most of it first).
    """
    terms = []
    for phrase, word in _TERM.findall(query):
        term = (phrase or word).strip()
        words = re.findall(r"\w+", term)
        if any_term and not phrase and all(w.lower() in _STOPWORDS for w in words):
            continue
        if words:
            terms.append('"' + " ".join(words) + '"')
    if not terms:
        raise EvidenceError(
            f"'{query}' has no words to search for. Type one or more words, or a \"quoted phrase\".",
            title="Nothing to search for",
        )
    return (" OR " if any_term else " ").join(terms)


def search(
    db_path: Path, matter_name: str, query: str, *, filters: SearchFilters | None = None, limit: int = 20
) -> list[SearchHit]:
    db = connect(db_path, evidence_schema.SCHEMA)
    try:
        return search_db(db, get_matter(db, matter_name).id, query, filters=filters, limit=limit)
    finally:
        db.close()


def search_db(
    db: sqlite3.Connection,
    matter_id: int,
    query: str,
    *,
    filters: SearchFilters | None = None,
    limit: int = 20,
    any_term: bool = False,
) -> list[SearchHit]:
    filters = filters or SearchFilters()
    where = ["pages_fts MATCH ?", "d.matter_id = ?"]
    args: list[object] = [fts_query(query, any_term=any_term), matter_id]
    if filters.document:
        where.append("(d.path LIKE ? OR d.title LIKE ?)")
        args += [f"%{filters.document}%"] * 2
    if filters.date_from:
        where.append("d.doc_date >= ?")
        args.append(_iso(filters.date_from))
    if filters.date_to:
        where.append("d.doc_date <= ?")
        args.append(_iso(filters.date_to))
    if filters.bates:
        start, end = parse_bates_range(filters.bates)
        where.append("p.bates_prefix = ? AND p.bates_number BETWEEN ? AND ?")
        args += [start.prefix, start.number, end.number]
    sql = f"""
        SELECT p.id, d.path, d.part, d.title, d.doc_date, d.sha256, p.page_no, p.bates,
               bm25(pages_fts) AS score, snippet(pages_fts, 0, ?, ?, '…', 16) AS snip
        FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid JOIN documents d ON d.id = p.document_id
        WHERE {" AND ".join(where)}
        ORDER BY score LIMIT ?"""
    try:
        found = db.execute(sql, [*HIGHLIGHT, *args, limit]).fetchall()
    except sqlite3.OperationalError as exc:
        raise EvidenceError(f"'{query}' could not be searched ({exc}). Try plain words.") from exc
    return [
        SearchHit(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], float(r[8]), " ".join(r[9].split()))
        for r in found
    ]


def _iso(value: str) -> str:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise EvidenceError(
            f"'{value}' is not a date. Write dates as YYYY-MM-DD.", title="Date not understood"
        )
    try:
        date.fromisoformat(value)
    except ValueError as exc:  # the shape of a date, but no such day: 2025-13-01, 2025-02-30
        raise EvidenceError(
            f"'{value}' is not a day of the calendar ({exc}). Write dates as YYYY-MM-DD.",
            title="Date not understood",
        ) from exc
    return value
