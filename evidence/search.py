"""Full-text search over a matter's pages: SQLite FTS5, bm25-ranked, with filters and snippets.

The attorney types words and "quoted phrases"; each is passed to FTS5 as a
quoted string, so punctuation in a query (a section sign, a hyphenated name,
a Bates number) never turns into FTS5 syntax and an error. All terms must
occur on the page (FTS5's implicit AND).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from evidence.bates import parse_bates_range
from evidence.errors import EvidenceError
from evidence.store import Connection, SearchFailed, SearchHit, open_index, require_matter, search_pages

__all__ = ["SearchFilters", "SearchHit", "fts_query", "search", "search_db"]

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


def fts_query(query: str, *, any_term: bool = False, prefix: bool = False) -> str:
    """The attorney's words and "phrases" as an FTS5 query of quoted strings.

    All must match, unless ``any_term`` (the context builder's task text, where
    bm25 ranks the pages that match most of it first). ``prefix``: the last word may be the start
    of one (a search run as he types finds "Calder" from "Cald").
    """
    terms = []
    for phrase, word in _TERM.findall(query):
        term = (phrase or word).strip()
        words = re.findall(r"\w+", term)
        if any_term and not phrase and all(w.lower() in _STOPWORDS for w in words):
            continue
        if words:
            terms.append('"' + " ".join(words) + '"')
    if prefix and terms:
        terms[-1] += "*"
    if not terms:
        raise EvidenceError(
            f"'{query}' has no words to search for. Type one or more words, or a \"quoted phrase\".",
            title="Nothing to search for",
        )
    return (" OR " if any_term else " ").join(terms)


def search(
    db_path: Path,
    matter_name: str,
    query: str,
    *,
    filters: SearchFilters | None = None,
    limit: int = 20,
    prefix: bool = False,
) -> list[SearchHit]:
    with open_index(db_path) as db:
        matter_id = require_matter(db, matter_name).id
        return search_db(db, matter_id, query, filters=filters, limit=limit, prefix=prefix)


def search_db(
    db: Connection,
    matter_id: int,
    query: str,
    *,
    filters: SearchFilters | None = None,
    limit: int = 20,
    any_term: bool = False,
    prefix: bool = False,
) -> list[SearchHit]:
    filters = filters or SearchFilters()
    conditions: list[tuple[str, list[object]]] = []
    if filters.document:
        conditions.append(("(d.path LIKE ? OR d.title LIKE ?)", [f"%{filters.document}%"] * 2))
    if filters.date_from:
        conditions.append(("d.doc_date >= ?", [_iso(filters.date_from)]))
    if filters.date_to:
        conditions.append(("d.doc_date <= ?", [_iso(filters.date_to)]))
    if filters.bates:
        start, end = parse_bates_range(filters.bates)
        conditions.append(
            (
                "p.bates_prefix = ? AND p.bates_number BETWEEN ? AND ?",
                [start.prefix, start.number, end.number],
            )
        )
    try:
        return search_pages(
            db, matter_id, fts_query(query, any_term=any_term, prefix=prefix), conditions, HIGHLIGHT, limit
        )
    except SearchFailed as exc:
        raise EvidenceError(f"'{query}' could not be searched ({exc}). Try plain words.") from exc


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
