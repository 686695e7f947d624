"""The matter as the verifier reads it: every page, its Bates number, and what it says.

Read once, through the evidence room's read functions (read-only), into indexes the checks consult many times:
Bates number to page, ISO date to pages, amount to pages, and one normalized text of the
whole matter for exact quotation search. Building it is the costly step; a re-verify after an
edit reuses it. Fuzzy quotation search asks evidence's FTS5 index for candidate pages first,
so it never compares a quotation with every page of a 10,000-page matter.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drafting.verify import index_cache
from drafting.verify.dates import find_dates
from drafting.verify.extract_record import find_money
from drafting.verify.text import normalize_for_match
from evidence.index.store import IndexedPage, matching_page_ids, matter_pages

_FTS_WORD = re.compile(r"[a-z0-9]+")
PHRASE_PAGES = 500
ProductionRange = tuple[str, int, int]  # an issued production: Bates prefix, first and last number
_IDENTIFIER = re.compile(r"\b([A-Z][A-Z0-9]{0,10}[A-Z])[-_ ]?(\d{3,9})\b")


@dataclass(frozen=True)
class Page:
    index: int
    page_id: int
    document_id: int
    file: str  # the file name, with the attachment part where there is one
    path: str
    title: str
    page_no: int
    bates: str | None
    text: str
    norm: str
    sha256: str = ""  # the file's, so an opinion's attorney-given citations find it wherever it lies


@dataclass
class MatterSources:
    name: str
    matter_id: int
    database_file: Path
    pages: list[Page] = field(default_factory=list)
    bates: dict[tuple[str, int], Page] = field(default_factory=dict)
    productions: list[ProductionRange] = field(default_factory=list)  # the exhibits room's log
    dates: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    amounts: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    documents: dict[int, list[Page]] = field(default_factory=lambda: defaultdict(list))
    corpus: str = ""  # every page's normalized text, joined by a separator no quotation contains
    starts: list[int] = field(default_factory=list)  # where each page begins in corpus
    by_page_id: dict[int, Page] = field(default_factory=dict)
    _highest: dict[str, int] = field(default_factory=dict)
    _prefixes: frozenset[str] | None = None
    _transcripts: dict[str, list[list[Page]]] = field(default_factory=dict)
    transcript_cache: dict[int, Any] = field(default_factory=dict)  # document id -> its read transcript
    text_digest: str = ""  # of every page's text, where the pages' reading is kept (see index_cache)

    def highest_bates(self, prefix: str) -> int:
        """The last number issued under ``prefix``, by a stamped page or the exhibits room's production log."""
        if prefix not in self._highest:
            stamped = max((n for p, n in self.bates if p == prefix), default=0)
            logged = max((hi for p, _, hi in self.productions if p == prefix), default=0)
            self._highest[prefix] = max(stamped, logged)
        return self._highest[prefix]

    def transcripts(self, deponent: str) -> list[list[Page]]:
        """The deposition transcripts of ``deponent``: documents whose title or file names a deposition and them."""
        name = deponent.lower()
        if name not in self._transcripts:
            self._transcripts[name] = [
                pages
                for _, pages in sorted(self.documents.items())
                if "depos" in (pages[0].title + pages[0].path).lower()
                and name in (pages[0].title + pages[0].path).lower()
            ]
        return self._transcripts[name]

    identifiers: dict[tuple[str, str], int] = field(
        default_factory=dict
    )  # Bates-shaped tokens in the text -> first page

    @property
    def prefixes(self) -> frozenset[str]:
        if self._prefixes is None:
            self._prefixes = frozenset({p for p, _ in self.bates} | {p for p, _, _ in self.productions})
        return self._prefixes

    def find_identifier(self, prefix: str, digits: str) -> Page | None:
        """The first page whose text holds this Bates-shaped token (an invoice number, a model number)."""
        index = self.identifiers.get((prefix, digits))
        return None if index is None else self.pages[index]

    def find_exact(self, needle: str, pages: list[Page] | None = None) -> Page | None:
        """The first page whose normalized text contains ``needle`` (already normalized).

        Over the whole matter, FTS5 finds the pages holding its rarest-looking words first (its
        tokens ignore punctuation and stem words, so it never misses a page that holds the
        exact text), and only those are compared character for character.
        """
        if not needle:
            return None
        if pages is None:
            words = _FTS_WORD.findall(needle)
            if not words:
                at = self.corpus.find(needle)
                return None if at < 0 else self.pages[bisect.bisect_right(self.starts, at) - 1]
            # Its rarest-looking words (numbers, then the longest), all required: a superset of the
            # pages holding the phrase, without reading the posting lists of "the" and "and".
            rare = sorted(set(words), key=lambda w: (not any(c.isdigit() for c in w), -len(w), w))[:4]
            pages = self._fts_pages(" AND ".join(f'"{w}"' for w in rare), limit=PHRASE_PAGES, ranked=False)
            if len(pages) >= PHRASE_PAGES:  # a common phrase: scanning the whole text is cheaper
                at = self.corpus.find(needle)
                return None if at < 0 else self.pages[bisect.bisect_right(self.starts, at) - 1]
            pages.sort(key=lambda p: p.index)
            found = next((p for p in pages if needle in p.norm), None)
            if found is None:  # a word the source split ("pre-\nempts") is not its FTS token: scan
                at = self.corpus.find(needle)
                return None if at < 0 else self.pages[bisect.bisect_right(self.starts, at) - 1]
            return found
        return next((p for p in pages if needle in p.norm), None)

    def _fts_pages(self, query: str, limit: int, ranked: bool = True) -> list[Page]:
        ids = matching_page_ids(self.database_file, self.matter_id, query, limit, ranked=ranked)
        return [self.by_page_id[i] for i in ids if i in self.by_page_id]

    def candidate_pages(self, words: list[str], limit: int = 8) -> list[Page]:
        """The pages FTS5 ranks best for any of these words (bm25), for a fuzzy comparison."""
        terms = [w for w in dict.fromkeys(words) if len(w) > 3][:24]
        if not terms:
            return []
        query = " OR ".join('"' + t.replace('"', "") + '"' for t in terms)
        return self._fts_pages(query, limit)


def load_sources(
    database_file: Path, matter_name: str, productions: Sequence[ProductionRange] = (), *, keep: bool = False
) -> MatterSources:
    """Read the matter's pages (as evidence ingested them) into the verifier's indexes.

    ``productions`` are the exhibits room's issued production ranges of the matter, passed in by the
    caller: the verifier reads no other room's tables. ``keep`` lets the pages' reading be kept
    between runs (see ``index_cache``): for a library of opinions, never for a client's record, whose
    text must not outlive a deletion or a redaction in a copy the evidence room does not know of.
    """
    matter, rows = matter_pages(database_file, matter_name)
    sources = MatterSources(name=matter.name, matter_id=matter.id, database_file=database_file)
    sources.productions = sorted((prefix, int(first), int(last)) for prefix, first, last in productions)
    pieces: list[str] = []
    position = 0
    if keep and index_cache.enabled():
        sources.text_digest = index_cache.digest_of(
            ["pages", *(f"{row.doc_date}\0{row.text}" for row in rows)]
        )
        readings = _kept_pages_reading(rows, sources.text_digest)
    else:
        readings = [_page_reading(row) for row in rows]
    for row, (norm, dates, identifiers, amounts) in zip(rows, readings, strict=True):
        name = Path(row.path).name + (f" ({row.part})" if row.part else "")
        page = Page(
            index=len(sources.pages),
            page_id=row.page_id,
            document_id=row.document_id,
            file=name,
            path=row.path,
            title=row.title,
            page_no=row.page_no,
            bates=row.bates,
            text=row.text,
            norm=norm,
            sha256=row.sha256,
        )
        sources.pages.append(page)
        sources.by_page_id[page.page_id] = page
        sources.documents[page.document_id].append(page)
        if row.bates_prefix is not None and row.bates_number is not None:
            sources.bates[(row.bates_prefix, row.bates_number)] = page
        for iso in dates:
            sources.dates[iso].append(page.index)
            if len(iso) == 10:
                sources.dates[iso[:7]].append(page.index)
        for prefix, digits in identifiers:
            sources.identifiers.setdefault((prefix, digits), page.index)
        for cents in amounts:
            sources.amounts[cents].append(page.index)
        sources.starts.append(position)
        pieces.append(page.norm)
        position += len(page.norm) + 3
    sources.corpus = " | ".join(pieces)
    return sources


PageReading = tuple[str, list[str], list[list[str]], list[int]]  # norm, ISO dates, identifiers, cents


def _page_reading(row: IndexedPage) -> PageReading:
    """What the checks look up on a page: its text normalized for matching, its dates (the document's
    year for those printed without one), identifiers such as "BEN-000123", and amounts in cents."""
    text = row.text
    year = int(row.doc_date[:4]) if row.doc_date and row.doc_date[:4].isdigit() else None
    dates = [found.iso for found in find_dates(text, default_year=year) if found.iso]
    identifiers = [[token[1], token[2]] for token in _IDENTIFIER.finditer(text)]
    return normalize_for_match(text), dates, identifiers, find_money(text)


def _kept_pages_reading(rows: list[IndexedPage], digest: str) -> list[PageReading]:
    """Each page's reading as a run kept it under ``digest`` (of the pages' texts), else read and kept."""
    kept = index_cache.load("pages", digest)
    if isinstance(kept, list) and len(kept) == len(rows):
        return [(norm, dates, identifiers, amounts) for norm, dates, identifiers, amounts in kept]
    reading = [_page_reading(row) for row in rows]
    index_cache.store("pages", digest, reading)
    return reading


def lines_of(page: Page) -> list[str]:
    """A transcript page's lines as numbered in a deposition cite (non-empty lines, from 1)."""
    return [line for line in page.text.splitlines() if line.strip()]


_CITE_KEY = re.compile(r"\s+")


def cite_key(volume: str, reporter: str, page: str) -> str:
    return f"{volume} {_CITE_KEY.sub('', reporter)} {page}"
