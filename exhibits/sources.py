"""The PDFs a matter's evidence index holds, for picking exhibits (read-only).

The evidence room reads its own tables; this names what the exhibits screen asks of it.
"""

from __future__ import annotations

from pathlib import Path

from evidence.index.store import MatterPdf, matter_pdfs
from evidence.matters import list_matters

__all__ = ["MatterPdf", "matter_names", "matter_pdfs"]


def matter_names(db_path: Path) -> list[str]:
    return [m.name for m in list_matters(db_path)]
