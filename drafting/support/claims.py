"""The claim each citation is offered for: the clause or sentence before it, up to the previous citation.

A citation sentence ("... untimely. See Petro-Lubricant, 447 N.J. Super. at 394.") is offered for
the sentence before it; a citation inside a sentence ("..., 447 N.J. Super. 391, 394, and ...")
for the clause before it. Members of a string cite ("See A, 1 U.S. 1; B, 2 U.S. 2.") share the
claim that comes before the first of them: each is paired with it on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drafting.verify.found import Found
from drafting.verify.text import sentence_bounds

# What follows a citation's page and is still part of it: pins, a note, a court-and-year parenthetical.
_TAIL = re.compile(
    r"(?:\s*,\s*(?:at\s+)?(?:¶¶?\s*)?\d{1,5}(?:\s*[-–]\s*\d{1,5})?(?:\s+n\.\s*\d+)?)*"
    r"(?:\s*\([^()]{0,80}\))?"
)
_SIGNAL = re.compile(
    r"(?:\b(?:see(?:,? e\.g\.,?)?(?: also)?|e\.g\.,?|cf\.|accord|but see|but cf\.|compare|contra|"
    r"quoting|citing|and)\s*,?\s*)+$",
    re.I,
)
_LEAD = re.compile(r"^[\s.;,:)\]]+")
_ONLY_JOINERS = re.compile(r"^[\s.;,:()]*$")
MIN_WORDS = 3


@dataclass(frozen=True)
class Claim:
    text: str
    start: int  # in the draft
    end: int
    member: int = 0  # its place in a string cite (0: the first or only citation)


def _name_of(item: Found) -> str:
    fields = item.fields
    return fields.get("plaintiff") or fields.get("subject") or fields.get("name") or ""


def _cut_name(window: str, item: Found) -> str:
    """The window without the citation's own case name ("Petro-Lubricant Testing Labs., Inc. v. Adelman, ")."""
    name = _name_of(item)
    if name:
        at = window.rfind(name)
        if at >= 0 and len(window) - at <= len(name) + len(item.fields.get("defendant", "")) + 16:
            return window[:at]
    if item.fields.get("form") == "short":  # "Fisher, 570 U.S. at 310": the word before is its name
        return re.sub(r"[A-Z][\w'’.&-]*(?:\s+[A-Z][\w'’.&-]*){0,3},\s*$", "", window)
    return window


def claims_of(draft: str, cites: list[Found]) -> list[Claim]:
    """One claim per citation of ``cites`` (in draft order), with its span in ``draft``."""
    out: list[Claim] = []
    previous_end = 0
    for item in cites:
        window_start = previous_end
        window = _cut_name(draft[window_start : item.draft_start], item)
        stripped = _SIGNAL.sub("", window.rstrip()).rstrip(" ,(")
        if out and _ONLY_JOINERS.match(stripped):
            last = out[-1]
            out.append(Claim(last.text, last.start, last.end, last.member + 1))
        else:
            out.append(_last_clause(draft, window_start, stripped))
        tail = _TAIL.match(draft, item.draft_end)
        previous_end = tail.end() if tail else item.draft_end
    return out


def _last_clause(draft: str, base: str | int, stripped: str) -> Claim:
    offset = int(base)
    lead = _LEAD.match(stripped)
    skip = lead.end() if lead else 0
    bounds = [(s, e) for s, e in sentence_bounds(stripped) if e > skip]
    chosen = (skip, len(stripped))
    for s, e in reversed(bounds):
        if len(stripped[s:e].split()) >= MIN_WORDS:
            chosen = (max(s, skip), e)
            break
    start, end = chosen
    text = stripped[start:end].strip()
    first = stripped.find(text, start) if text else start
    return Claim(text, offset + first, offset + first + len(text))
