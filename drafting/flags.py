"""A run's flags as the attorney sees them: the verifier's and the reviewer's, in draft order.

Plain data read from a run's verify stage (or from a fresh verification of his edited text), so
the drafting session and the screens share one shape and nothing here draws anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from drafting.review import Mark, ReviewSeverity
from drafting.runs import Run
from drafting.stages import verify
from drafting.store import RunStore
from drafting.verify.model import REASONS, Flag, Kind, Pointer, Report, Severity, Verdict

# The gutter letter keeps a flag visible on a monochrome terminal (NO_COLOR, or a bad SSH client).
GUTTER = {"block": "B", "high": "R", "warn": "W", "medium": "R", "low": "r"}


@dataclass(frozen=True)
class FlagView:
    """One flag as the attorney sees it: the verifier's (with its evidence) or the reviewer's (with its fix)."""

    start: int
    end: int
    source: Literal["verifier", "reviewer", "support"]
    severity: Severity | ReviewSeverity
    kind: Kind | Literal["review", "support", "locator"]
    text: str
    message: str
    fix: str = ""
    evidence: tuple[Pointer, ...] = ()
    key: str | None = None  # the verifier's flag key, for overrides
    overridden: str | None = None  # the override's reason
    verdict: Verdict | Literal[""] = ""  # the verifier's (none for the reviewer's and the support check's)
    reason: str = ""  # why an unverifiable item could not be checked (REASONS' key)
    support: dict[str, Any] | None = None  # the support check's pair (claim, passage, locator, judgement)

    @property
    def blocking(self) -> bool:
        return self.severity == "block" and self.overridden is None

    @property
    def heading(self) -> str:
        """The verdict in words, so an unverifiable item never reads like a verified one."""
        if self.source == "support":
            return self.message.split(";", 1)[0].upper()  # "MODEL JUDGEMENT: CONTRADICTS", "LOCATOR"
        if self.source != "verifier" or not self.verdict:
            return self.severity.upper()
        if self.verdict == "unverifiable":
            return (
                f"UNVERIFIABLE ({REASONS.get(self.reason, self.reason)})" if self.reason else "UNVERIFIABLE"
            )
        return self.verdict.upper() + (" (to review)" if self.severity == "warn" else "")

    def label(self) -> str:
        mark = GUTTER.get(self.severity, "?")
        what = self.kind if self.source == "verifier" else f"review ({self.severity})"
        if self.source == "verifier" and self.verdict == "unverifiable":
            what = f"unverifiable {what}"
        acknowledged = self.verdict == "unverifiable"
        done = (" acknowledged" if acknowledged else " overridden") if self.overridden else ""
        quoted = self.text if len(self.text) <= 32 else self.text[:31] + "…"
        return f"{mark}{done} {what} {quoted}: {self.message}"


def flags_in_run(run: Run) -> list[FlagView]:
    """The stored run's marks (verifier and anchored reviewer findings), in draft order, with evidence."""
    verified = verify.completed(run)
    if verified is None:
        return []
    flags = flags_from_marks(verified.marks, verified.report)
    if not verified.support:
        return flags
    from drafting.support.flags import support_flags  # it builds FlagViews: imported here, not at the top

    sha = verified.report.draft_sha256 if verified.report is not None else ""
    for extra in support_flags(list(verified.support), sha):  # after the flags at or before it, in order
        at = next((i for i, f in enumerate(flags) if f.start > extra.start), len(flags))
        flags.insert(at, extra)
    return flags


def flags_from_marks(marks: Sequence[Mark], report: Report | None) -> list[FlagView]:
    """Marks (as ``merge_marks`` gives them) joined to the verifier's report for evidence and overrides."""
    flags = report.flags if report is not None else []
    by_span: dict[tuple[int, int, str], Flag] = {(f.start, f.end, f.kind): f for f in flags}
    out: list[FlagView] = []
    for m in marks:
        flag = by_span.get((m.start, m.end, m.kind)) if m.source == "verifier" else None
        view = FlagView(m.start, m.end, m.source, m.severity, m.kind, m.text, m.message, m.fix)
        if flag is not None and report is not None:
            override = report.overrides.get(flag.key)
            view = replace(
                view,
                evidence=flag.evidence,
                key=flag.key,
                overridden=override.reason if override is not None else None,
                verdict=flag.verdict,
                reason=flag.reason,
            )
        out.append(view)
    return out


def verdict_counts(flags: list[FlagView]) -> str:
    """The verifier's verdicts counted apart, for the head of the flag list: "2 contradicted · 1 unverifiable"."""
    counts = {"contradicted": 0, "unverifiable": 0, "verified": 0}
    reviewed = 0
    for flag in flags:
        if flag.source == "verifier" and flag.verdict in counts and not flag.overridden:
            counts[flag.verdict] += 1
        elif flag.source == "reviewer":
            reviewed += 1
    done = sum(1 for f in flags if f.source == "verifier" and f.overridden)
    parts = [f"{n} {name}" for name, n in counts.items() if n]
    parts += [f"{done} overridden or acknowledged"] if done else []
    parts += [f"{reviewed} from the reviewer"] if reviewed else []
    return " · ".join(parts) or "no flags"


# A Bates number as a draft cites it: a short upper-case prefix and a zero-padded number (HPP-000004).
_CITED_BATES = re.compile(r"\b([A-Z][A-Z0-9]{0,10}[A-Z])[-_]?(\d{4,9})\b")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def cited_in_sentence(text: str, start: int, end: int) -> list[str]:
    """The Bates numbers cited in the sentence holding ``text[start:end]``, in order: a flag with no
    evidence of its own (an amount no source mentions) still sits in a sentence that names the page
    it claims to come from, and that page is the one to read."""
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    sentence = text[before[-1] if before else 0 : after.end() if after else len(text)]
    return [m.group(0) for m in _CITED_BATES.finditer(sentence)]


def flags_holding(
    database_file: Path, words: Sequence[str], limit: int = 20
) -> list[tuple[Run, int, FlagView]]:
    """The flags whose text or message hold each of ``words`` (lower case), newest run first: each with
    its run and its place in that run's list (``flags_in_run``), which the drafting screen jumps to."""
    found: list[tuple[Run, int, FlagView]] = []
    for run in RunStore(database_file).holding(words, in_flags=True, limit=limit):
        for index, flag in enumerate(flags_in_run(run)):
            said = f"{flag.text}\n{flag.message}".lower()
            if all(word in said for word in words):
                found.append((run, index, flag))
    return found[:limit]
