"""The verifier: every citation, date, Bates number, amount and quotation grounded, or stopped.

Deterministic code, not a model (MISSION lesson 1). ``verify_draft`` reads a draft and a
matter, and returns a ``Report`` of flags; ``may_export_final`` says whether it may go out.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from drafting.verify.model import Flag, Report, may_export_final
from drafting.verify.overrides import apply_overrides, record_override
from drafting.verify.sources import load_sources
from drafting.verify.verifier import Library, load_library, read_draft, verify_text

__all__ = ["Flag", "Report", "default_library", "may_export_final", "record_override", "verify_draft"]


def default_library(database_file: Path, matter: str) -> str | None:
    """The authorities library a matter uses when none is named: '<matter>-authorities', then 'authorities'."""
    db = sqlite3.connect(f"file:{database_file}?mode=ro", uri=True)
    try:
        for name in (f"{matter}-authorities", "authorities"):
            if db.execute("SELECT 1 FROM matters WHERE name = ?", (name,)).fetchone():
                return name
    finally:
        db.close()
    return None


def verify_draft(
    database_file: Path, draft_file: Path, matter: str, authorities: str | None = None
) -> Report:
    """Verify a draft file against a matter (and its authorities library), overrides applied."""
    text = read_draft(draft_file)
    sources = load_sources(database_file, matter)
    name = authorities or default_library(database_file, matter)
    library: Library | None = load_library(database_file, name) if name else None
    return apply_overrides(database_file, verify_text(text, draft_file.name, sources, library))
