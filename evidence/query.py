"""One search box for words and filters: ``freezer "walk-in" doc:invoice from:2024-04-01 bates:HPP-1..HPP-9``.

The evidence screen has room for one input line at 80 columns, so the filters the
CLI takes as options (``--document``, ``--from``, ``--to``, ``--bates``) are typed
as ``name:value`` words instead. A value with spaces is quoted: ``doc:"supply
agreement"``. Any other word with a colon (``s.5:1``) is a search word, as in
the CLI. The values are checked by ``search()`` itself, so a bad date says the
same thing here as on the command line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from evidence.errors import EvidenceError
from evidence.search import SearchFilters

FILTER_KEYS = {"doc": "document", "from": "date_from", "to": "date_to", "bates": "bates"}
_TOKEN = re.compile(r'\S*"[^"]*"\S*|\S+')  # a word, a "phrase", or a filter with a quoted value
_FILTER = re.compile(r'(?<!\S)(doc|from|to|bates):(?:"([^"]*)"|(\S*))', re.IGNORECASE)


def parse_query(text: str) -> tuple[str, SearchFilters]:
    """The search words (phrases kept in their quotes) and the filters typed among them."""
    filters = SearchFilters()
    for match in _FILTER.finditer(text):
        field, value = FILTER_KEYS[match.group(1).lower()], (match.group(2) or match.group(3) or "").strip()
        if not value:
            raise EvidenceError(
                f"'{match.group(0)}' has no value: write e.g. doc:invoice, from:2024-04-01, "
                "to:2024-06-30 or bates:HPP-000001..HPP-000010.",
                title="Filter without a value",
            )
        filters = replace(filters, **{field: value})
    words = " ".join(_FILTER.sub(" ", text).split())
    if not words and filters != SearchFilters():
        raise EvidenceError(
            "The filters narrow a search, but there is nothing to search for: add one or more words, "
            'or a "quoted phrase".',
            title="Nothing to search for",
        )
    return words, filters


def without_filter(text: str, key: str) -> str:
    """The box's text with any ``key:`` filter taken out (choosing a document replaces the doc: filter)."""
    return " ".join(m.group(0) for m in _TOKEN.finditer(text) if not m.group(0).lower().startswith(f"{key}:"))
