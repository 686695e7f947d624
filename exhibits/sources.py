"""The PDFs a matter's evidence index holds, for picking exhibits (read-only).

The evidence room reads its own tables; this names what the exhibits screen asks of it.
"""

from __future__ import annotations

from pathlib import Path

from evidence.index.store import MatterPdf, matter_pdfs
from evidence.matters import list_matters
from exhibits import schema as exhibits_schema
from workspace.database import session

__all__ = ["MatterPdf", "matter_names", "matter_pdfs"]


def matter_names(db_path: Path) -> list[str]:
    with session(db_path, exhibits_schema.SCHEMA) as db:
        return [m.name for m in list_matters(db)]
