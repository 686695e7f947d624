"""The per-matter Bates registry: every number issued, so none is ever issued twice.

A number counts as taken when an earlier chambers production or binder issued
it, or when the evidence index already read it from a stamp on an ingested
page (a production made before chambers, or by the other side with the same
prefix). The next production starts after the highest taken number; an
explicit start inside a taken range is refused before anything is written.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from exhibits.errors import BatesCollision
from exhibits.numbering import BatesFormat


@dataclass(frozen=True)
class TakenRange:
    first: int
    last: int
    source: str  # where the numbers were issued, in words


@dataclass(frozen=True)
class LoggedDocument:
    """One row of the production log: a source document and the Bates range its copy carries."""

    seq: int
    source_path: str
    source_sha256: str
    output_path: str
    output_sha256: str
    page_count: int
    first_number: int
    last_number: int
    shrunk_pages: tuple[int, ...]


def taken_ranges(db: sqlite3.Connection, matter_id: int, prefix: str) -> list[TakenRange]:
    ranges = [
        TakenRange(r[0], r[1], f"{r[2]} #{r[3]} of {r[4][:10]}")
        for r in db.execute(
            "SELECT first_number, last_number, kind, id, created_at FROM exhibits_productions "
            "WHERE matter_id = ? AND prefix = ? ORDER BY first_number",
            (matter_id, prefix),
        )
    ]
    ranges += [
        TakenRange(r[0], r[1], f"the stamps on {r[2]} (in the evidence index)")
        for r in db.execute(
            "SELECT min(p.bates_number), max(p.bates_number), d.path FROM pages p "
            "JOIN documents d ON d.id = p.document_id WHERE d.matter_id = ? AND p.bates_prefix = ? "
            "GROUP BY d.id",
            (matter_id, prefix),
        )
    ]
    return sorted(ranges, key=lambda r: r.first)


def next_free(db: sqlite3.Connection, matter_id: int, prefix: str) -> int:
    return max((r.last for r in taken_ranges(db, matter_id, prefix)), default=0) + 1


def check_free(db: sqlite3.Connection, matter_id: int, fmt: BatesFormat, first: int, last: int) -> None:
    for taken in taken_ranges(db, matter_id, fmt.prefix):
        if taken.first <= last and first <= taken.last:
            nxt = next_free(db, matter_id, fmt.prefix)
            raise BatesCollision(
                f"{fmt.label(first)}..{fmt.label(last)} overlaps {fmt.label(taken.first)}.."
                f"{fmt.label(taken.last)}, already issued by {taken.source}. Bates numbers are never "
                f"reused; nothing was written. Leave out --start to continue at {fmt.label(nxt)}."
            )


def reserve_range(
    db: sqlite3.Connection,
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
    with db:
        db.execute("BEGIN IMMEDIATE")
        check_free(db, matter_id, fmt, first, last)
        cur = db.execute(
            "INSERT INTO exhibits_productions (matter_id, kind, prefix, width, first_number, last_number, "
            "out_dir, created_at, state, owner_pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
            (matter_id, kind, fmt.prefix, fmt.width, first, last, str(out_dir), datetime.now(UTC).isoformat(),
             os.getpid()),
        )  # fmt: skip
        production_id = int(cur.lastrowid or 0)
        db.executemany(
            "INSERT INTO exhibits_production_files (production_id, temp_path, final_path) VALUES (?, ?, ?)",
            [(production_id, str(temp), str(final)) for temp, final in files],
        )
    return production_id


def record_written(
    db: sqlite3.Connection, production_id: int, documents: Sequence[LoggedDocument], hashes: dict[Path, str]
) -> None:
    """Every temporary file is complete: record the production log and each file's hash, in one transaction."""
    with db:
        db.executemany(
            "INSERT INTO exhibits_production_documents (production_id, seq, source_path, source_sha256, "
            "output_path, output_sha256, page_count, first_number, last_number, shrunk_pages) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (production_id, d.seq, d.source_path, d.source_sha256, d.output_path, d.output_sha256,
                 d.page_count, d.first_number, d.last_number, json.dumps(list(d.shrunk_pages)))
                for d in documents
            ],
        )  # fmt: skip
        db.executemany(
            "UPDATE exhibits_production_files SET sha256 = ? WHERE production_id = ? AND temp_path = ?",
            [(sha, production_id, str(temp)) for temp, sha in hashes.items()],
        )
        db.execute("UPDATE exhibits_productions SET state = 'written' WHERE id = ?", (production_id,))


def record_done(db: sqlite3.Connection, production_id: int) -> None:
    with db:
        db.execute(
            "UPDATE exhibits_productions SET state = 'done', owner_pid = NULL WHERE id = ?", (production_id,)
        )
        db.execute("DELETE FROM exhibits_production_files WHERE production_id = ?", (production_id,))


@dataclass(frozen=True)
class UnfinishedProduction:
    id: int
    state: str  # pending | written
    owner_pid: int | None
    label: str  # its range in words
    out_dir: Path
    files: list[tuple[Path, Path, str | None]]  # (temporary, final, sha256 once written)


def unfinished_productions(db: sqlite3.Connection) -> list[UnfinishedProduction]:
    found = []
    for row in db.execute(
        "SELECT id, state, owner_pid, prefix, width, first_number, last_number, out_dir FROM exhibits_productions "
        "WHERE state != 'done' ORDER BY id"
    ).fetchall():
        fmt = BatesFormat(row["prefix"], int(row["width"]))
        files = [
            (Path(f[0]), Path(f[1]), f[2])
            for f in db.execute(
                "SELECT temp_path, final_path, sha256 FROM exhibits_production_files WHERE production_id = ? ORDER BY id",
                (row["id"],),
            )
        ]
        label = f"{fmt.label(row['first_number'])}..{fmt.label(row['last_number'])}"
        found.append(
            UnfinishedProduction(
                row["id"], row["state"], row["owner_pid"], label, Path(row["out_dir"]), files
            )
        )
    return found


def forget_production(db: sqlite3.Connection, production_id: int) -> None:
    """Roll a production back: its numbers are free again (its files are the caller's to remove)."""
    with db:
        db.execute("DELETE FROM exhibits_productions WHERE id = ?", (production_id,))


@dataclass(frozen=True)
class BatesPage:
    """Where a Bates number was issued: the source document and page its stamped copy came from."""

    label: str
    source_path: str
    source_sha256: str
    page_no: int
    output_path: str


def find_bates(db: sqlite3.Connection, matter_id: int, prefix: str, number: int) -> BatesPage | None:
    """The page that carries ``prefix``-``number`` in a chambers production, if any."""
    row = db.execute(
        "SELECT d.source_path, d.source_sha256, d.first_number, d.output_path, p.width FROM "
        "exhibits_production_documents d JOIN exhibits_productions p ON p.id = d.production_id "
        "WHERE p.matter_id = ? AND p.prefix = ? AND d.first_number <= ? AND d.last_number >= ? AND p.state = 'done'",
        (matter_id, prefix, number, number),
    ).fetchone()
    if row is None:
        return None
    label = BatesFormat(prefix, int(row[4])).label(number)
    return BatesPage(label, row[0], row[1], number - int(row[2]) + 1, row[3])


def production_log(db: sqlite3.Connection, matter_id: int) -> list[sqlite3.Row]:
    return db.execute(
        "SELECT p.id AS production, p.kind, p.prefix, p.width, p.created_at, d.seq, d.source_path, "
        "d.source_sha256, d.output_path, d.output_sha256, d.page_count, d.first_number, d.last_number, "
        "d.shrunk_pages FROM exhibits_productions p JOIN exhibits_production_documents d "
        "ON d.production_id = p.id WHERE p.matter_id = ? AND p.state = 'done' ORDER BY p.id, d.seq",
        (matter_id,),
    ).fetchall()
