"""What the verifier finds and says: items, flags with their evidence, and the report.

The report is the one thing other rooms read (the TUI shows its flags inline, export asks
``may_export_final``), so it is plain frozen dataclasses and a canonical JSON form: the same draft
and the same evidence give byte-identical JSON, whatever the machine or the order of the work.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["block", "warn", "ok"]
SEVERITY_ORDER: dict[str, int] = {"block": 0, "warn": 1, "ok": 2}


@dataclass(frozen=True)
class Item:
    """One checkable statement in the draft: ``span`` indexes the draft text as given."""

    kind: str  # case | statute | bates | exhibit | deposition | date | quotation | amount
    start: int
    end: int
    text: str
    fields: tuple[tuple[str, str], ...] = ()

    def get(self, name: str, default: str = "") -> str:
        return dict(self.fields).get(name, default)


@dataclass(frozen=True)
class Pointer:
    """Where the grounding (or the nearest thing to it) was found."""

    file: str
    page: int
    bates: str | None = None
    snippet: str = ""
    score: float | None = None  # a fuzzy match's score (0-100), where one was computed


@dataclass(frozen=True)
class Flag:
    start: int
    end: int
    kind: str
    severity: Severity
    text: str
    message: str
    evidence: tuple[Pointer, ...] = ()
    normalized: str = ""  # the item as the verifier understood it (ISO date, cents, cite)

    @property
    def key(self) -> str:
        """A stable name for this flag, for overrides: it survives edits elsewhere in the draft."""
        raw = f"{self.kind}\x00{self.text}\x00{self.normalized}\x00{self.message}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Override:
    key: str
    reason: str
    by: str
    at: str


@dataclass
class Report:
    draft: str  # the draft's name as given
    draft_sha256: str
    matter: str
    authorities: str | None
    flags: list[Flag] = field(default_factory=list)
    overrides: dict[str, Override] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out = {"block": 0, "warn": 0, "ok": 0, "overridden": 0}
        for flag in self.flags:
            if flag.severity == "block" and flag.key in self.overrides:
                out["overridden"] += 1
            else:
                out[flag.severity] += 1
        return out

    @property
    def blocking(self) -> list[Flag]:
        return [f for f in self.flags if f.severity == "block" and f.key not in self.overrides]

    def to_dict(self) -> dict[str, Any]:
        return {
            "draft": self.draft,
            "draft_sha256": self.draft_sha256,
            "matter": self.matter,
            "authorities": self.authorities,
            "counts": self.counts(),
            "flags": [
                {
                    **asdict(f),
                    "key": f.key,
                    "override": asdict(self.overrides[f.key]) if f.key in self.overrides else None,
                }
                for f in self.flags
            ],
        }

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, fixed separators, flags in span order."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def sort_flags(flags: list[Flag]) -> list[Flag]:
    return sorted(flags, key=lambda f: (f.start, f.end, f.kind, SEVERITY_ORDER[f.severity], f.message))


def may_export_final(report: Report) -> tuple[bool, str]:
    """Whether the draft may be exported as final, and why not: any block that is not overridden stops it."""
    blocking = report.blocking
    if not blocking:
        return True, "Every blocking flag is resolved or overridden with a reason."
    first = blocking[0]
    return False, (
        f"{len(blocking)} blocking flag(s) remain, the first at characters {first.start}-{first.end} "
        f"({first.text!r}: {first.message}). Fix the text and verify again, or override each with a written reason."
    )
