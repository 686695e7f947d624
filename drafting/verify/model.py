"""What the verifier finds and says: items, flags with their evidence, and the report.

The report is the one thing other rooms read (the TUI shows its flags inline, export asks
``may_export_final``), so it is plain frozen dataclasses and a canonical JSON form: the same draft
and the same evidence give byte-identical JSON, whatever the machine or the order of the work.
A run keeps that JSON; ``Report.from_dict`` reads it back, from this version or an older one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar, get_args

# What a checkable statement is; each has its check (``drafting.verify.check_table``).
Kind = Literal[
    "case", "id", "statute", "bates", "deposition", "exhibit", "date", "amount", "quotation", "term"
]
KINDS: tuple[Kind, ...] = get_args(Kind)
Severity = Literal["block", "warn", "ok"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
W = TypeVar("W", bound=str)
SEVERITY_ORDER: dict[str, int] = {"block": 0, "warn": 1, "ok": 2}
# What the verifier knows of an item: the sources say it, say otherwise, or cannot be asked here.
Verdict = Literal["verified", "contradicted", "unverifiable"]
VERDICTS: tuple[Verdict, ...] = ("contradicted", "unverifiable", "verified")
# Why an item is unverifiable, where the attorney can do something about it. Each stops the draft
# until it is acknowledged (who and when are recorded), or until the library is completed.
REASONS: dict[str, str] = {
    "not-in-library": "the opinion is not in the library",
    "no-page-numbers": "this copy has no page numbers, so the pin cannot be checked",
    "no-year": "the library lacks the decision year",
    "no-citation": "the opinion was added without a citation",
    "no-library": "no authorities library is set up for this matter",
    "not-checkable": "nothing in the matter or the library can confirm or refute it",
}
# The verdict a severity stands for where a check names none (and where a run stored before verdicts had none).
DEFAULT_VERDICT: dict[Severity, Verdict] = {"block": "contradicted", "ok": "verified", "warn": "unverifiable"}


@dataclass(frozen=True)
class Item:
    """One checkable statement in the draft: ``span`` indexes the draft text as given."""

    kind: Kind
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

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pointer:
        score = data.get("score")
        snippet = str(data.get("snippet", ""))
        return cls(str(data["file"]), int(data["page"]), data.get("bates"), snippet, _score(score))


@dataclass(frozen=True)
class Flag:
    start: int
    end: int
    kind: Kind
    severity: Severity
    text: str
    message: str
    evidence: tuple[Pointer, ...] = ()
    normalized: str = ""  # the item as the verifier understood it (ISO date, cents, cite)
    verdict: Verdict = "verified"
    reason: str = ""  # for an unverifiable item: one of REASONS' keys

    @property
    def key(self) -> str:
        """A stable name for this flag, for overrides: it survives edits elsewhere in the draft."""
        raw = f"{self.kind}\x00{self.text}\x00{self.normalized}\x00{self.message}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Flag:
        """A flag as ``Report.to_dict`` wrote it; a run stored before verdicts gets its severity's."""
        severity = _one_of(data["severity"], SEVERITIES, "severity")
        verdict = _one_of(data.get("verdict") or DEFAULT_VERDICT[severity], VERDICTS, "verdict")
        return cls(
            start=int(data["start"]),
            end=int(data["end"]),
            kind=_one_of(data["kind"], KINDS, "kind"),
            severity=severity,
            text=str(data["text"]),
            message=str(data["message"]),
            evidence=tuple(Pointer.from_dict(p) for p in data.get("evidence", ())),
            normalized=str(data.get("normalized", "")),
            verdict=verdict,
            reason=str(data.get("reason", "")),
        )


@dataclass(frozen=True)
class Override:
    key: str
    reason: str
    by: str
    at: str


def _score(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _one_of(value: object, allowed: tuple[W, ...], name: str) -> W:
    """``value`` if it is one of ``allowed``: a stored report's word the verifier no longer knows is an error, not a guess."""
    for word in allowed:
        if value == word:
            return word
    raise ValueError(f"a stored verifier report has the {name} {value!r}, not one of {', '.join(allowed)}")


@dataclass
class Report:
    draft: str  # the draft's name as given
    draft_sha256: str
    matter: str
    authorities: str | None
    flags: list[Flag] = field(default_factory=list)
    overrides: dict[str, Override] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Severities and the three verdicts, each counted on its own: an unverifiable is never verified."""
        out = {"block": 0, "warn": 0, "ok": 0, "overridden": 0, "acknowledged": 0}
        out |= {verdict: 0 for verdict in VERDICTS}
        for flag in self.flags:
            out[flag.verdict] += 1
            if flag.severity == "block" and flag.key in self.overrides:
                out["acknowledged" if flag.verdict == "unverifiable" else "overridden"] += 1
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

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """The report ``to_dict`` wrote (as a run stores it): flags, evidence and overrides typed again.

        The counts are not read back: they follow from the flags and overrides.
        """
        flags = [Flag.from_dict(f) for f in data.get("flags", [])]
        overrides = {
            flag.key: Override(**{k: str(raw[k]) for k in ("key", "reason", "by", "at")})
            for flag, raw in zip(flags, (f.get("override") for f in data.get("flags", [])), strict=True)
            if raw
        }
        authorities = data.get("authorities")
        return cls(
            str(data["draft"]), str(data["draft_sha256"]), str(data["matter"]), authorities, flags, overrides
        )

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, fixed separators, flags in span order."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def sort_flags(flags: list[Flag]) -> list[Flag]:
    return sorted(flags, key=lambda f: (f.start, f.end, f.kind, SEVERITY_ORDER[f.severity], f.message))


def may_export_final(report: Report) -> tuple[bool, str]:
    """Whether the draft may be exported as final, and why not: any block that is not overridden stops it."""
    blocking = report.blocking
    if not blocking:
        return True, "Nothing is contradicted, and every unverifiable item is acknowledged or overridden."
    contradicted = [f for f in blocking if f.verdict == "contradicted"]
    first = (contradicted or blocking)[0]
    if not contradicted:
        return False, (
            f"{len(blocking)} unverifiable item(s) are not acknowledged, the first at characters "
            f"{first.start}-{first.end} ({first.text!r}: {REASONS.get(first.reason, first.message)}). Add the "
            "opinion with `chambers authorities add FILE`, or acknowledge each with `chambers verify --acknowledge KEY`."
        )
    return False, (
        f"{len(contradicted)} contradicted item(s) remain, the first at characters {first.start}-{first.end} "
        f"({first.text!r}: {first.message}). Fix the text and verify again, or override each with a written reason."
    )
