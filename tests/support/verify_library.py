"""A matter and its authorities library, made from short opinion excerpts, for the verifier's rule tests.

Each rule test writes a few excerpts into ``opinions/``; the record holds one page the drafts never
cite. Both are ingested by evidence's own ingest into a real database, as ``chambers`` would do.
"""

from __future__ import annotations

from pathlib import Path

from drafting.verify import verify_draft
from drafting.verify.model import Report
from evidence.ingest import ingest_matter
from evidence.matters import create_matter

MATTER, LIBRARY = "m", "m-authorities"


def record_and_opinions(root: Path) -> tuple[Path, Path]:
    """Empty ``record/`` (but for one uncited note) and ``opinions/`` folders under ``root``."""
    record, opinions = root / "record", root / "opinions"
    record.mkdir()
    opinions.mkdir()
    (record / "note.txt").write_text("The record of this matter is not cited here.\n")
    return record, opinions


def ingest_library(root: Path, record: Path, opinions: Path) -> Path:
    """The matter and its library, created and ingested: the database file."""
    database = root / "chambers.sqlite3"
    create_matter(database, MATTER, [record])
    create_matter(database, LIBRARY, [opinions])
    ingest_matter(database, MATTER, tessdata=None)
    ingest_matter(database, LIBRARY, tessdata=None)
    return database


def verify_text(database: Path, tmp_path: Path, text: str) -> Report:
    """``text`` verified as a draft of the matter against its library."""
    draft = tmp_path / "draft.md"
    draft.write_text(text)
    return verify_draft(database, draft, MATTER, LIBRARY)
