"""The redaction patterns chambers ships: what personal identifiers look like in US filings.

The patterns live in evidence/identifiers.py, where the correction export's scrub reads them too (that
room may not import this one). Patterns run over every place a PDF holds text (matching.py); the
matched strings are then boxed on the page or scrubbed from the place.
"""

from __future__ import annotations

from evidence.identifiers import PATTERNS as PATTERNS
from evidence.identifiers import Pattern as Pattern
from exhibits.errors import ExhibitsError


def patterns_named(names: list[str]) -> list[Pattern]:
    unknown = [n for n in names if n not in PATTERNS]
    if unknown:
        raise ExhibitsError(
            f"No redaction pattern named {', '.join(unknown)}. Known patterns: {', '.join(PATTERNS)}.",
            title="Unknown redaction pattern",
        )
    return [PATTERNS[n] for n in names]
