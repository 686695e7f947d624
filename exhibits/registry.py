"""The per-matter Bates registry: every number issued, so none is ever issued twice.

A number counts as taken when an earlier chambers production or binder issued
it, or when the evidence index already read it from a stamp on an ingested
page (a production made before chambers, or by the other side with the same
prefix). The next production starts after the highest taken number; an
explicit start inside a taken range is refused before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from evidence.index.store import stamped_ranges
from evidence.store import require_matter
from exhibits import store
from exhibits.errors import BatesCollision
from exhibits.numbering import BatesFormat
from exhibits.pending import recover_productions
from exhibits.store import (
    BatesPage,
    Connection,
    LogEntry,
    LoggedDocument,
    RedactionRun,
    UnfinishedProduction,
    find_bates,
    forget_production,
    open_exhibits,
    production_log,
    record_done,
    record_written,
    redaction_runs,
    unfinished_productions,
)

__all__ = [
    "BatesPage",
    "LogEntry",
    "LoggedDocument",
    "MatterLog",
    "TakenRange",
    "UnfinishedProduction",
    "check_free",
    "find_bates",
    "forget_production",
    "has_production",
    "issued_page",
    "issued_productions",
    "matter_log",
    "next_free",
    "production_log",
    "record_done",
    "record_written",
    "reserve_range",
    "taken_ranges",
    "unfinished_productions",
]


@dataclass(frozen=True)
class TakenRange:
    first: int
    last: int
    source: str  # where the numbers were issued, in words


def taken_ranges(db: Connection, matter_id: int, prefix: str) -> list[TakenRange]:
    ranges = [
        TakenRange(r.first, r.last, f"{r.kind} #{r.id} of {r.created_at[:10]}")
        for r in store.production_ranges(db, matter_id, prefix)
    ]
    ranges += [
        TakenRange(r.first, r.last, f"the stamps on {r.path} (in the evidence index)")
        for r in stamped_ranges(db, matter_id, prefix)
    ]
    return sorted(ranges, key=lambda r: r.first)


def next_free(db: Connection, matter_id: int, prefix: str) -> int:
    return max((r.last for r in taken_ranges(db, matter_id, prefix)), default=0) + 1


def check_free(db: Connection, matter_id: int, fmt: BatesFormat, first: int, last: int) -> None:
    for taken in taken_ranges(db, matter_id, fmt.prefix):
        if taken.first <= last and first <= taken.last:
            nxt = next_free(db, matter_id, fmt.prefix)
            raise BatesCollision(
                f"{fmt.label(first)}..{fmt.label(last)} overlaps {fmt.label(taken.first)}.."
                f"{fmt.label(taken.last)}, already issued by {taken.source}. Bates numbers are never "
                f"reused; nothing was written. Leave out --start to continue at {fmt.label(nxt)}."
            )


def reserve_range(
    db: Connection,
    matter_id: int,
    kind: str,
    fmt: BatesFormat,
    out_dir: Path,
    first: int,
    last: int,
    files: Sequence[tuple[Path, Path]],
) -> int:
    """Reserve ``first``..``last`` as a pending production, re-checking it is free, in one transaction.

    ``files`` are the (temporary, final) paths it will write, named before any is written, so a
    restart after a crash knows exactly which files are this production's.
    """
    with store.reserving(db):
        check_free(db, matter_id, fmt, first, last)
        return store.add_pending(
            db, matter_id, kind, fmt, out_dir, first, last, datetime.now(UTC).isoformat(), os.getpid(), files
        )


def issued_productions(db_path: Path, matter: str) -> list[tuple[str, int, int]]:
    """The matter's issued Bates ranges as (prefix, first, last): what the verifier is given.

    Only finished productions count; a pending one may still be rolled back and its numbers freed.
    """
    with open_exhibits(db_path) as db:
        matter_id = require_matter(db, matter).id
        return [(r.prefix, r.first, r.last) for r in store.issued_ranges(db, matter_id)]


@dataclass(frozen=True)
class MatterLog:
    """What a matter's log shows: its finished productions' documents and its redaction runs, and
    what was settled of productions a crash left unfinished, in words."""

    settled: list[str]
    rows: list[LogEntry]
    runs: list[RedactionRun]


def matter_log(db_path: Path, matter: str) -> MatterLog:
    """The matter's production log, after settling what a crash left unfinished (as reading it must)."""
    with open_exhibits(db_path) as db:
        matter_id = require_matter(db, matter).id
        settled = recover_productions(db)
        return MatterLog(settled, production_log(db, matter_id), redaction_runs(db, matter_id))


def issued_page(db_path: Path, matter: str, prefix: str, number: int) -> BatesPage | None:
    """The page a chambers production of ``matter`` stamped ``prefix`` ``number`` on, if one did."""
    with open_exhibits(db_path) as db:
        return find_bates(db, require_matter(db, matter).id, prefix, number)


def has_production(db_path: Path, matter: str) -> bool:
    """Whether ``matter`` has a finished production or binder."""
    with open_exhibits(db_path) as db:
        return bool(production_log(db, require_matter(db, matter).id))
