"""What the search from every screen (/) finds: the matter's pages, the runs, their flags and the pairs.

Each room answers through its own store (evidence's full-text index, the drafting room's runs and
their verifications, the corrections room's pairs); this module only turns their records into one
list of hits, each labelled by its kind and carrying what opens it in its room. No Textual here:
the search screen calls it in a thread worker.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, zip_longest
from pathlib import Path
from typing import Literal

from corrections.find import pairs_holding
from drafting.flags import flags_holding
from drafting.store import RunStore
from drafting.tasks import TASKS
from evidence.errors import EvidenceError
from evidence.matters import list_matters
from evidence.search import HIGHLIGHT, search

Kind = Literal["Source", "Run", "Flag", "Pair"]
PER_KIND = 12  # hits of each kind: a screenful at 80x24 holds some of every kind
_TERM = re.compile(r'"([^"]+)"|(\S+)')


@dataclass(frozen=True)
class Hit:
    """One thing found, with what its room needs to open it at that thing."""

    kind: Kind
    title: str
    snippet: str
    matter: str | None = None
    page_id: int | None = None  # a Source: the page to read
    run_id: int | None = None  # a Run or a Flag: the run to reopen
    flag_index: int | None = None  # a Flag: its place in the run's flags
    pair_id: int | None = None  # a Pair: the pair to select
    words: str = ""  # a Source: the words searched, marked on the page


def terms(text: str) -> list[str]:
    """His words and "quoted phrases", lower case: each must be in what a run, flag or pair says."""
    return [
        (phrase or word).strip().lower() for phrase, word in _TERM.findall(text) if (phrase or word).strip()
    ]


def around(text: str, words: Sequence[str], width: int = 90) -> str:
    """One line of ``text`` from a little before the first of ``words`` it holds."""
    flat = " ".join(text.split())
    low = flat.lower()
    at = min((i for i in (low.find(w) for w in words) if i >= 0), default=0)
    start = max(0, at - 20)
    if start and flat[start - 1] != " ":  # from the start of a word, not the middle of one
        space = flat.find(" ", start, at)
        start = space + 1 if space >= 0 else start
    return ("…" if start else "") + flat[start : start + width]


def source_hits(database_file: Path, text: str, matter: str | None) -> list[Hit]:
    """Pages of ``matter`` (of every matter when none is open), best first; the last word may be cut
    short, as he is still typing it."""
    names = [matter] if matter else [m.name for m in list_matters(database_file)]
    found = []
    for name in names:
        try:
            found += [(name, hit) for hit in search(database_file, name, text, limit=PER_KIND, prefix=True)]
        except EvidenceError:  # nothing FTS5 can search for (punctuation alone), or a matter gone since
            continue
    found.sort(key=lambda pair: pair[1].score)  # bm25: lower is better
    strip = str.maketrans("", "", "".join(HIGHLIGHT))
    return [
        Hit(
            "Source",
            f"{hit.bates or f'p.{hit.page_no}'} {hit.title}",
            hit.snippet.translate(strip),
            matter=name,
            page_id=hit.page_id,
            words=text,
        )
        for name, hit in found[:PER_KIND]
    ]


def run_hits(database_file: Path, words: Sequence[str]) -> list[Hit]:
    return [
        Hit(
            "Run",
            f"Run {run.id} {_task_title(run.task_type)}",
            around(f"{run.instructions} — {run.draft}", words),
            matter=run.matter,
            run_id=run.id,
        )
        for run in RunStore(database_file).holding(words, limit=PER_KIND)
    ]


def flag_hits(database_file: Path, words: Sequence[str]) -> list[Hit]:
    return [
        Hit(
            "Flag",
            f"Run {run.id} flag {index + 1}",
            flag.label(),
            matter=run.matter,
            run_id=run.id,
            flag_index=index,
        )
        for run, index, flag in flags_holding(database_file, words, limit=PER_KIND)
    ]


def pair_hits(database_file: Path, words: Sequence[str]) -> list[Hit]:
    return [
        Hit(
            "Pair",
            f"Pair {pair.id} {_task_title(pair.task_type)}",
            around(f"{pair.final} — {pair.instructions}", words),
            matter=pair.matter,
            pair_id=pair.id,
        )
        for pair in pairs_holding(database_file, words, limit=PER_KIND)
    ]


def search_all(database_file: Path, text: str, matter: str | None) -> list[Hit]:
    """Every kind's hits, taken in turns (the best or newest of each first), so that at 80x24 the
    first screenful shows a page, a run, a flag and a pair when there are some, not one kind alone."""
    words = terms(text)
    if not words or not database_file.exists():  # opening would create an empty database
        return []
    kinds = [
        source_hits(database_file, text, matter),
        run_hits(database_file, words),
        flag_hits(database_file, words),
        pair_hits(database_file, words),
    ]
    return _in_turns(kinds)


def _task_title(name: str) -> str:
    known = TASKS.get(name)
    return known.title if known is not None else name


def _in_turns(lists: Iterable[list[Hit]]) -> list[Hit]:
    return [hit for hit in chain.from_iterable(zip_longest(*lists)) if hit is not None]
