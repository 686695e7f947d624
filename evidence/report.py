"""``chambers evidence audit``: how much of a matter's index is primary, and what was kept out.

The share of primary text is measured, not assumed: every indexed document is
checked again against the output registry as it is now (its file hash, and its
text overlap page by page), because a draft registered after the last ingest
may match a file that was already indexed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evidence.provenance import OverlapMeter, registered_output
from evidence.store import (
    document_texts,
    indexed_documents,
    matter_totals,
    notices,
    open_index,
    require_matter,
)


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
    with open_index(db_path) as db:
        matter = require_matter(db, name)
        documents, pages, chars = matter_totals(db, matter.id)
        audit = MatterAudit(matter=matter.name, documents=documents, pages=pages, chars=chars)
        for doc in indexed_documents(db, matter.id):
            output = registered_output(db, doc.sha256)
            if output is not None:
                audit.not_primary.append(
                    NotPrimary(doc.path, doc.part, doc.chars, f"it is chambers output #{output.id}")
                )
                continue
            meter = OverlapMeter(db)
            for text in document_texts(db, doc.id):
                meter.add(text)
            reason = meter.reason()
            if reason:
                audit.not_primary.append(NotPrimary(doc.path, doc.part, doc.chars, reason))
        for notice in notices(db, matter.id):
            if notice.kind == "quarantined":
                audit.quarantined.append((notice.path, notice.message))
            elif notice.kind == "unread":
                audit.unread.append((notice.path, notice.message))
            else:
                audit.other_notices.append((notice.kind, notice.path, notice.message))
        return audit


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
