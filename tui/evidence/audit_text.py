"""A matter's provenance audit as the attorney reads it, on the evidence screen and from
``chambers evidence audit``; the evidence room returns the figures, this says them."""

from __future__ import annotations

from evidence.report import MatterAudit


def audit_text(audit: MatterAudit) -> str:
    """The audit in plain lines: the share of primary text, then what was kept out and why."""
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
