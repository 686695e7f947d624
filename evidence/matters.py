"""Matters: a named set of source folders and the records ingest made from them."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from evidence.errors import BadMatterName, EvidenceError, MatterExists, MatterNotFound

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


@dataclass(frozen=True)
class Matter:
    id: int
    name: str
    sources: tuple[Path, ...]


def check_matter_name(name: str) -> str:
    """A matter's name becomes a folder name under the data folder, so it is a slug, never a path."""
    if not _SLUG.match(name) or ".." in name:
        raise BadMatterName(
            f"'{name}' cannot be a matter name: use letters, digits, '-', '_' or '.', starting with a letter "
            "or digit, at most 80 characters, without '..' (e.g. harbor-point). A matter's name names a "
            "folder, so it may not be a path."
        )
    return name


def create_matter(db: sqlite3.Connection, name: str, sources: Sequence[Path]) -> Matter:
    """Record a new matter; each source folder must exist now (it is stored as an absolute path)."""
    name = name.strip()
    if not name:
        raise EvidenceError("A matter needs a name, e.g. `chambers matter new harbor-point --sources DIR`.")
    check_matter_name(name)
    if not sources:
        raise EvidenceError(f"Matter '{name}' needs at least one source folder: add --sources DIR.")
    resolved = []
    for source in sources:
        path = Path(source).expanduser().absolute()
        if not path.is_dir():
            raise EvidenceError(
                f"{path} is not a folder. Give the folder that holds the matter's documents.",
                title="Source folder not found",
            )
        resolved.append(path)
    if db.execute("SELECT 1 FROM matters WHERE name = ?", (name,)).fetchone():
        raise MatterExists(
            f"A matter named '{name}' exists already. Choose another name, or run "
            f"`chambers evidence ingest {name}` to bring it up to date."
        )
    with db:
        cur = db.execute(
            "INSERT INTO matters (name, created_at) VALUES (?, ?)", (name, datetime.now(UTC).isoformat())
        )
        matter_id = int(cur.lastrowid or 0)
        db.executemany(
            "INSERT OR IGNORE INTO matter_sources (matter_id, path) VALUES (?, ?)",
            [(matter_id, str(p)) for p in resolved],
        )
    return get_matter(db, name)


def get_matter(db: sqlite3.Connection, name: str) -> Matter:
    row = db.execute("SELECT id, name FROM matters WHERE name = ?", (name,)).fetchone()
    if row is None:
        known = [r[0] for r in db.execute("SELECT name FROM matters ORDER BY name")]
        hint = f" Known matters: {', '.join(known)}." if known else ""
        raise MatterNotFound(
            f"There is no matter named '{name}'.{hint} Create one with "
            f"`chambers matter new {name} --sources DIR`."
        )
    sources = tuple(
        Path(r[0])
        for r in db.execute("SELECT path FROM matter_sources WHERE matter_id = ? ORDER BY path", (row[0],))
    )
    return Matter(id=int(row[0]), name=str(row[1]), sources=sources)


def list_matters(db: sqlite3.Connection) -> list[Matter]:
    return [get_matter(db, r[0]) for r in db.execute("SELECT name FROM matters ORDER BY name")]
