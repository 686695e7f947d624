"""The exhibits room's tables: productions and their files and log, and the redaction runs.

Every SQL statement of the room is here, and each function returns dataclasses. Most take the
caller's open connection, because a production's steps (reserve, record, finish) are each one
transaction around checks made in the same connection; the few that stand alone take the path.
That connection comes from :func:`open_exhibits`, and its type is named here as ``Connection``, so
the room's other modules never import the database engine. Evidence's tables (the stamps read on
ingested pages) are read through the evidence room.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from exhibits import schema as exhibits_schema
from exhibits.numbering import BatesFormat
from workspace.database import Connection as Connection  # named for the room's modules
from workspace.database import session


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


@dataclass(frozen=True)
class LogEntry(LoggedDocument):
    """A logged document of a finished production, with the production it belongs to."""

    production: int
    kind: str  # production | binder
    prefix: str
    width: int
    created_at: str


@dataclass(frozen=True)
class ProductionRange:
    """A production's reserved or issued range, and what it was, for naming it in a refusal."""

    id: int
    kind: str
    created_at: str
    first: int
    last: int


@dataclass(frozen=True)
class IssuedRange:
    """A finished production's Bates range: these numbers went out."""

    prefix: str
    first: int
    last: int


@dataclass(frozen=True)
class UnfinishedProduction:
    id: int
    state: str  # pending | written
    owner_pid: int | None
    label: str  # its range in words
    out_dir: Path
    files: list[tuple[Path, Path, str | None]]  # (temporary, final, sha256 once written)


@dataclass(frozen=True)
class BatesPage:
    """Where a Bates number was issued: the source document and page its stamped copy came from."""

    label: str
    source_path: str
    source_sha256: str
    page_no: int
    output_path: str


@dataclass(frozen=True)
class RedactionBox:
    page_no: int
    rects: list[list[float]]  # [x0, y0, x1, y1] per box
    reason: str
    text_hmac: str
    ocr: bool


@dataclass(frozen=True)
class RedactedFile:
    """One redacted copy as the log keeps it; the boxes' text only as a keyed hash."""

    source_path: str
    source_sha256: str
    output_path: str
    output_sha256: str
    hash_key: str
    verified_with: str
    scrubbed: list[str]
    boxes: list[RedactionBox]


@dataclass(frozen=True)
class RedactionRun:
    id: int
    source_path: str
    output_path: str
    verified_with: str
    scrubbed: str  # as stored (JSON list)
    created_at: str
    boxes: int


@contextmanager
def open_exhibits(db_path: Path) -> Iterator[Connection]:
    """A session on the database with the exhibits tables (and the evidence ones they point to) up to date."""
    with session(db_path, exhibits_schema.SCHEMA) as db:
        yield db


@contextmanager
def reserving(db: Connection) -> Iterator[None]:
    """One write transaction taken at once (BEGIN IMMEDIATE): checks made inside it hold until it ends."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        yield


# --- productions ---


def production_ranges(db: Connection, matter_id: int, prefix: str) -> list[ProductionRange]:
    """Every production under ``prefix``, pending ones too (their numbers are reserved), by first number."""
    return [
        ProductionRange(int(r[0]), r[1], r[2], int(r[3]), int(r[4]))
        for r in db.execute(
            "SELECT id, kind, created_at, first_number, last_number FROM exhibits_productions "
            "WHERE matter_id = ? AND prefix = ? ORDER BY first_number",
            (matter_id, prefix),
        )
    ]


def issued_ranges(db: Connection, matter_id: int) -> list[IssuedRange]:
    """The ranges of the matter's finished productions; a pending or unfinished one issued nothing yet."""
    return [
        IssuedRange(r[0], int(r[1]), int(r[2]))
        for r in db.execute(
            "SELECT prefix, first_number, last_number FROM exhibits_productions WHERE matter_id = ? "
            "AND state = 'done' ORDER BY prefix, first_number",
            (matter_id,),
        )
    ]


def add_pending(
    db: Connection,
    matter_id: int,
    kind: str,
    fmt: BatesFormat,
    out_dir: Path,
    first: int,
    last: int,
    created_at: str,
    owner_pid: int,
    files: Sequence[tuple[Path, Path]],
) -> int:
    """Record a pending production and the (temporary, final) files it will write; returns its id."""
    cur = db.execute(
        "INSERT INTO exhibits_productions (matter_id, kind, prefix, width, first_number, last_number, "
        "out_dir, created_at, state, owner_pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
        (matter_id, kind, fmt.prefix, fmt.width, first, last, str(out_dir), created_at, owner_pid),
    )
    production_id = int(cur.lastrowid or 0)
    db.executemany(
        "INSERT INTO exhibits_production_files (production_id, temp_path, final_path) VALUES (?, ?, ?)",
        [(production_id, str(temp), str(final)) for temp, final in files],
    )
    return production_id


def record_written(
    db: Connection, production_id: int, documents: Sequence[LoggedDocument], hashes: dict[Path, str]
) -> None:
    """Every temporary file is complete: record the production log and each file's hash, in one transaction."""
    with db:
        db.executemany(
            "INSERT INTO exhibits_production_documents (production_id, seq, source_path, source_sha256, "
            "output_path, output_sha256, page_count, first_number, last_number, shrunk_pages) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    production_id,
                    d.seq,
                    d.source_path,
                    d.source_sha256,
                    d.output_path,
                    d.output_sha256,
                    d.page_count,
                    d.first_number,
                    d.last_number,
                    json.dumps(list(d.shrunk_pages)),
                )
                for d in documents
            ],
        )
        db.executemany(
            "UPDATE exhibits_production_files SET sha256 = ? WHERE production_id = ? AND temp_path = ?",
            [(sha, production_id, str(temp)) for temp, sha in hashes.items()],
        )
        db.execute("UPDATE exhibits_productions SET state = 'written' WHERE id = ?", (production_id,))


def record_done(db: Connection, production_id: int) -> None:
    with db:
        db.execute(
            "UPDATE exhibits_productions SET state = 'done', owner_pid = NULL WHERE id = ?", (production_id,)
        )
        db.execute("DELETE FROM exhibits_production_files WHERE production_id = ?", (production_id,))


def forget_production(db: Connection, production_id: int) -> None:
    """Roll a production back: its numbers are free again (its files are the caller's to remove)."""
    with db:
        db.execute("DELETE FROM exhibits_productions WHERE id = ?", (production_id,))


def unfinished_productions(db: Connection) -> list[UnfinishedProduction]:
    found = []
    for row in db.execute(
        "SELECT id, state, owner_pid, prefix, width, first_number, last_number, out_dir FROM exhibits_productions "
        "WHERE state != 'done' ORDER BY id"
    ).fetchall():
        fmt = BatesFormat(row[3], int(row[4]))
        files = [
            (Path(f[0]), Path(f[1]), f[2])
            for f in db.execute(
                "SELECT temp_path, final_path, sha256 FROM exhibits_production_files WHERE production_id = ? ORDER BY id",
                (row[0],),
            )
        ]
        label = f"{fmt.label(row[5])}..{fmt.label(row[6])}"
        found.append(UnfinishedProduction(row[0], row[1], row[2], label, Path(row[7]), files))
    return found


def find_bates(db: Connection, matter_id: int, prefix: str, number: int) -> BatesPage | None:
    """The page that carries ``prefix``-``number`` in a finished chambers production, if any."""
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


def production_log(db: Connection, matter_id: int) -> list[LogEntry]:
    """Every document of the matter's finished productions and binders, in production and log order."""
    rows = db.execute(
        "SELECT p.id, p.kind, p.prefix, p.width, p.created_at, d.seq, d.source_path, "
        "d.source_sha256, d.output_path, d.output_sha256, d.page_count, d.first_number, d.last_number, "
        "d.shrunk_pages FROM exhibits_productions p JOIN exhibits_production_documents d "
        "ON d.production_id = p.id WHERE p.matter_id = ? AND p.state = 'done' ORDER BY p.id, d.seq",
        (matter_id,),
    ).fetchall()
    return [
        LogEntry(
            int(r[5]),
            r[6],
            r[7],
            r[8],
            r[9],
            int(r[10]),
            int(r[11]),
            int(r[12]),
            tuple(json.loads(r[13])),
            production=int(r[0]),
            kind=r[1],
            prefix=r[2],
            width=int(r[3]),
            created_at=r[4],
        )
        for r in rows
    ]


# --- redactions ---


def record_redactions(db_path: Path, matter_id: int, files: Sequence[RedactedFile], created_at: str) -> None:
    """Log every redacted copy of one run and its boxes, all in one transaction."""
    with session(db_path, exhibits_schema.SCHEMA) as db:
        for item in files:
            cur = db.execute(
                "INSERT INTO exhibits_redaction_runs (matter_id, source_path, source_sha256, output_path, "
                "output_sha256, hash_key, verified_with, scrubbed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    matter_id,
                    item.source_path,
                    item.source_sha256,
                    item.output_path,
                    item.output_sha256,
                    item.hash_key,
                    item.verified_with,
                    json.dumps(item.scrubbed),
                    created_at,
                ),
            )
            db.executemany(
                "INSERT INTO exhibits_redactions (run_id, page_no, rect, reason, text_hmac, ocr) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (cur.lastrowid, b.page_no, json.dumps(b.rects), b.reason, b.text_hmac, int(b.ocr))
                    for b in item.boxes
                ],
            )


def redaction_runs(db: Connection, matter_id: int) -> list[RedactionRun]:
    return [
        RedactionRun(int(r[0]), r[1], r[2], r[3], r[4], r[5], int(r[6]))
        for r in db.execute(
            "SELECT r.id, r.source_path, r.output_path, r.verified_with, r.scrubbed, r.created_at, "
            "count(x.id) FROM exhibits_redaction_runs r LEFT JOIN exhibits_redactions x ON x.run_id = r.id "
            "WHERE r.matter_id = ? GROUP BY r.id ORDER BY r.id",
            (matter_id,),
        )
    ]
