"""``chambers evidence audit``: how much of a matter's index is primary, and what was kept out.

The share of primary text is measured, not assumed: every indexed document is
checked again against the output registry as it is now (its file hash, and its
text overlap page by page), because a draft registered after the last ingest
may match a file that was already indexed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evidence import schema as evidence_schema
from evidence.matters import get_matter
from evidence.provenance import OverlapMeter, registered_output
from workspace.database import connect


@dataclass(frozen=True)
class NotPrimary:
    path: str
    part: str
    chars: int
    reason: str


@dataclass
class MatterAudit:
    matter: str
    documents: int
    pages: int
    chars: int
    not_primary: list[NotPrimary] = field(default_factory=list)
    quarantined: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    unread: list[tuple[str, str]] = field(default_factory=list)
    other_notices: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, path, message)

    @property
    def primary_chars(self) -> int:
        return self.chars - sum(n.chars for n in self.not_primary)

    @property
    def primary_share(self) -> float:
        return self.primary_chars / self.chars if self.chars else 1.0


def audit_matter(db_path: Path, name: str) -> MatterAudit:
    db = connect(db_path, evidence_schema.SCHEMA)
    try:
        matter = get_matter(db, name)
        totals = db.execute(
            """SELECT count(DISTINCT d.id), count(p.id), coalesce(sum(p.chars), 0)
               FROM documents d LEFT JOIN pages p ON p.document_id = d.id WHERE d.matter_id = ?""",
            (matter.id,),
        ).fetchone()
        audit = MatterAudit(matter=matter.name, documents=totals[0], pages=totals[1], chars=totals[2])
        documents = db.execute(
            "SELECT id, path, part, sha256 FROM documents WHERE matter_id = ? ORDER BY path, part",
            (matter.id,),
        ).fetchall()
        for doc in documents:
            chars = db.execute(
                "SELECT coalesce(sum(chars), 0) FROM pages WHERE document_id = ?", (doc["id"],)
            ).fetchone()[0]
            output = registered_output(db, doc["sha256"])
            if output is not None:
                audit.not_primary.append(
                    NotPrimary(doc["path"], doc["part"], chars, f"it is chambers output #{output['id']}")
                )
                continue
            meter = OverlapMeter(db)
            for (text,) in db.execute(
                "SELECT f.text FROM pages p JOIN pages_fts f ON f.rowid = p.id WHERE p.document_id = ?",
                (doc["id"],),
            ):
                meter.add(text)
            reason = meter.reason()
            if reason:
                audit.not_primary.append(NotPrimary(doc["path"], doc["part"], chars, reason))
        for kind, path, message in db.execute(
            "SELECT kind, path, message FROM ingest_notices WHERE matter_id = ? ORDER BY path, id",
            (matter.id,),
        ):
            if kind == "quarantined":
                audit.quarantined.append((path, message))
            elif kind == "unread":
                audit.unread.append((path, message))
            else:
                audit.other_notices.append((kind, path, message))
        return audit
    finally:
        db.close()


def format_audit(audit: MatterAudit) -> str:
    lines = [
        f"Matter {audit.matter}: {audit.documents} documents, {audit.pages} pages, {audit.chars:,} characters indexed",
        f"Primary: {audit.primary_share:.1%} of indexed text"
        + ("" if audit.chars else " (nothing indexed yet)"),
    ]
    for item in audit.not_primary:
        lines.append(f"  NOT PRIMARY {item.path}{' (' + item.part + ')' if item.part else ''}: {item.reason}")
    lines.append(f"Quarantined: {len(audit.quarantined)} file(s)")
    lines.extend(f"  {message}" for _, message in audit.quarantined)
    lines.append(f"Unread pages: {len(audit.unread)}")
    lines.extend(f"  {message}" for _, message in audit.unread)
    if audit.other_notices:
        lines.append(f"Other notices: {len(audit.other_notices)}")
        lines.extend(f"  [{kind}] {message}" for kind, _, message in audit.other_notices)
    return "\n".join(lines)
