"""The verifier: every citation, date, Bates number, amount and quotation grounded, or stopped.

Deterministic code, not a model: a model asked to check a draft can agree with it. ``verify_draft`` reads a draft and a
matter, and returns a ``Report`` of flags; ``may_export_final`` says whether it may go out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from drafting.verify.model import Flag, Report, may_export_final
from drafting.verify.overrides import apply_overrides, record_acknowledgement, record_override
from drafting.verify.sources import MatterSources, ProductionRange, load_sources
from drafting.verify.verifier import Library, load_library, read_draft, verify_text
from evidence.index.store import matter_id

__all__ = [
    "Flag",
    "MatterIndex",
    "ProductionRange",
    "Report",
    "default_library",
    "load_matter_index",
    "may_export_final",
    "record_acknowledgement",
    "record_override",
    "verify_draft",
    "verify_with",
]


def default_library(database_file: Path, matter: str) -> str | None:
    """The authorities library a matter uses when none is named: '<matter>-authorities', then 'authorities'."""
    for name in (f"{matter}-authorities", "authorities"):
        if matter_id(database_file, name) is not None:
            return name
    return None


@dataclass(frozen=True)
class MatterIndex:
    """A matter's sources and its authorities library, read into the verifier's indexes.

    Loading is the dear part (about 0.8 s for a 2,000-page matter); a draft being edited is verified
    again after every pause in the typing, so the workstation loads this once and keeps it.
    """

    sources: MatterSources
    library: Library | None


def load_matter_index(
    database_file: Path,
    matter: str,
    authorities: str | None = None,
    *,
    productions: Sequence[ProductionRange] = (),
) -> MatterIndex:
    """Read ``matter`` (and its authorities library) into the verifier's indexes.

    ``productions`` are the matter's issued Bates production ranges (prefix, first, last), which the
    caller asks the exhibits room for: a number past the last one issued is flagged as such.
    """
    name = authorities or default_library(database_file, matter)
    library = load_library(database_file, name) if name else None
    return MatterIndex(load_sources(database_file, matter, productions), library)


def verify_with(database_file: Path, text: str, name: str, index: MatterIndex) -> Report:
    """Verify ``text`` (called ``name`` in the report) against a loaded matter, overrides applied."""
    return apply_overrides(database_file, verify_text(text, name, index.sources, index.library))


def verify_draft(
    database_file: Path,
    draft_file: Path,
    matter: str,
    authorities: str | None = None,
    *,
    productions: Sequence[ProductionRange] = (),
) -> Report:
    """Verify a draft file against a matter (and its authorities library), overrides applied."""
    text = read_draft(draft_file)
    index = load_matter_index(database_file, matter, authorities, productions=productions)
    return verify_with(database_file, text, draft_file.name, index)
