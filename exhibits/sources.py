"""The PDFs a matter's evidence index holds, for picking exhibits (read-only).

The evidence room exposes no listing of a matter's documents yet, so this reads
its ``documents`` table directly, never writing to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evidence.matters import get_matter, list_matters
from exhibits import schema as exhibits_schema
from workspace.database import connect


@dataclass(frozen=True)
class MatterPdf:
    path: Path
    title: str
    pages: int
    bates: str | None  # the first Bates stamp the index read on it, if any


def matter_names(db_path: Path) -> list[str]:
    db = connect(db_path, exhibits_schema.SCHEMA)
    try:
        return [m.name for m in list_matters(db)]
    finally:
        db.close()


def matter_pdfs(db_path: Path, matter: str) -> list[MatterPdf]:
    db = connect(db_path, exhibits_schema.SCHEMA)
    try:
        matter_id = get_matter(db, matter).id
        rows = db.execute(
            "SELECT d.path, d.title, d.page_count, (SELECT p.bates FROM pages p WHERE p.document_id = d.id "
            "AND p.bates IS NOT NULL ORDER BY p.page_no LIMIT 1) FROM documents d "
            "WHERE d.matter_id = ? AND d.kind = 'pdf' AND d.part = '' ORDER BY d.path",
            (matter_id,),
        ).fetchall()
    finally:
        db.close()
    return [MatterPdf(Path(r[0]), r[1], int(r[2]), r[3]) for r in rows]
