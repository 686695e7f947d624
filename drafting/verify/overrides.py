"""Overrides: the attorney's written reason for letting a blocking flag stand; acknowledgements of
the items chambers could not check.

An override is kept in an append-only table with the flag as it was, the draft's hash, who
and when, so the audit trail shows exactly what was let through and why. It is keyed by the
flag (kind, text, what it meant, the message), not by position, so it survives edits elsewhere
in the draft; a changed statement is a new flag and needs a new override.
"""

from __future__ import annotations

import getpass
import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from drafting.verify.errors import OverrideError
from drafting.verify.model import REASONS, Flag, Override, Report
from drafting.verify.store import add_override, overrides_of

MIN_REASON_CHARS = 12


def record_override(
    database_file: Path, report: Report, flag_key: str, reason: str, by: str | None = None
) -> Override:
    flag = next((f for f in report.flags if f.key == flag_key), None)
    if flag is None:
        raise OverrideError(
            f"The draft has no flag {flag_key}. Run `chambers verify` again and copy the key from its output."
        )
    if flag.severity != "block":
        raise OverrideError(
            f"Flag {flag_key} is '{flag.severity}', not blocking: only a blocking flag needs an override."
        )
    reason = reason.strip()
    if len(reason) < MIN_REASON_CHARS:
        raise OverrideError(
            f"An override needs a written reason of at least {MIN_REASON_CHARS} characters (why '{flag.text}' may stand).",
            title="Override needs a reason",
        )
    return _recorded(database_file, report, flag, reason, by)


def record_acknowledgement(
    database_file: Path, report: Report, flag_key: str, note: str = "", by: str | None = None
) -> Override:
    """The attorney's acknowledgement that an unverifiable item stands unchecked, recorded like an override."""
    flag = next((f for f in report.flags if f.key == flag_key), None)
    if flag is None:
        raise OverrideError(
            f"The draft has no flag {flag_key}. Run `chambers verify` again and copy the key from its output."
        )
    if flag.verdict != "unverifiable" or flag.severity != "block":
        raise OverrideError(
            f"Flag {flag_key} is {flag.verdict}, not an unverifiable item that stops the draft: "
            + (
                "override it with a written reason (--override KEY --reason ...)."
                if flag.verdict == "contradicted"
                else "nothing to acknowledge."
            ),
            title="Nothing to acknowledge",
        )
    reason = f"acknowledged as unverifiable: {REASONS.get(flag.reason, flag.reason)}"
    if note.strip():
        reason += f" ({note.strip()})"
    return _recorded(database_file, report, flag, reason, by)


def _recorded(database_file: Path, report: Report, flag: Flag, reason: str, by: str | None) -> Override:
    """Store who let ``flag`` stand, when and why, and attach it to the report."""
    override = Override(
        key=flag.key, reason=reason, by=by or getpass.getuser(), at=datetime.now(UTC).isoformat()
    )
    add_override(
        database_file,
        report.matter,
        report.draft_sha256,
        flag.key,
        json.dumps(asdict(flag), sort_keys=True),
        reason,
        override.by,
        override.at,
    )
    report.overrides[flag.key] = override
    return override


def apply_overrides(database_file: Path, report: Report) -> Report:
    """Attach the recorded overrides (the latest per flag) of this matter to the report's blocking flags."""
    keys = {f.key for f in report.flags if f.severity == "block"}
    if not keys:
        return report
    for row in overrides_of(database_file, report.matter):
        if row.flag_key in keys:
            report.overrides[row.flag_key] = Override(row.flag_key, row.reason, row.by, row.at)
    return report
