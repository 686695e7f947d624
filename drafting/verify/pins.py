"""Pins: the page (or paragraph) a citation points to, and whether the opinion has it.

A pin outside the opinion's pages is contradicted wherever the copy in the library prints its
pages; where it does not (a slip opinion, a court's PDF with its own page numbers), the pin is
unverifiable with that reason, never taken as verified. Full citations, short forms, supra and
Id. are all held to this, each against the citation of the opinion it stands for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drafting.verify.authorities import Opinion
from drafting.verify.found import Found
from drafting.verify.sources import cite_key

_PIN = re.compile(r",\s*(?:at\s+)?(¶¶?\s*)?(\d{1,5})(?:\s*[-–]\s*\d{1,5})?(?=\s*[,;.)(\]]|\s*$|\s+n\.|\s+&)")
_PIN = re.compile(r"(?:at\s+)?(¶¶?\s*)?(\d{1,5})")


def cited_pin(item: Found) -> tuple[int, bool] | None:
    """(number, is a paragraph) of the pin a citation gives, or None for no pin or a star page."""
    if item.kind == "id" or item.fields.get("form") == "supra":
        raw = item.fields.get("pin", "")
    elif item.fields.get("form") == "short":
        raw = item.fields.get("page", "")
    else:
        raw = item.fields.get("pin", "")
    match = _PIN.match(raw.strip())
    return (int(match[2]), bool(match[1])) if match else None


@dataclass(frozen=True)
class PinVerdict:
    verdict: str  # verified | contradicted | unverifiable
    message: str
    page: int | None = None  # the pin, where it was read


def full_of(item: Found) -> Found:
    """The full citation a short form, supra or Id. stands for (itself for a full citation)."""
    seen = 0
    while item.refers_to is not None and seen < 8:
        item = item.refers_to
        seen += 1
    return item


def key_for(item: Found, opinion: Opinion) -> str:
    """Which of the opinion's citations the pin counts in: the short form's own reporter, else the full's."""
    full = full_of(item)
    if item.kind == "case" and item.fields.get("form") == "short":
        slot = f"{item.fields['volume']} {item.fields['reporter']}"
        for cite in opinion.citations:
            if cite.rsplit(" ", 1)[0] == slot:
                return cite
    return cite_key(
        full.fields.get("volume", ""), full.fields.get("reporter", ""), full.fields.get("page", "")
    )


def check_pin(item: Found, opinion: Opinion) -> PinVerdict | None:
    """Whether the pin is in the opinion's range; None where the citation gives no pin."""
    pin = cited_pin(item)
    if pin is None:
        return None
    number, paragraph = pin
    key = key_for(item, opinion)
    series = opinion.reading.series.get(key)
    first = key.rsplit(" ", 1)[1]
    if paragraph or is_neutral(key):  # a public-domain citation is pinned by paragraph
        if series is None:
            return PinVerdict(
                "unverifiable",
                f"this copy of {key} prints no paragraph numbers, so ¶ {number} cannot be checked",
            )
        if number > series.last or number < 1:
            return PinVerdict(
                "contradicted",
                f"{key} has paragraphs ¶ 1 to ¶ {series.last}: ¶ {number} is not in it",
                number,
            )
        return PinVerdict("verified", f"¶ {number} is in it", number)
    if first.isdigit() and number == int(first):
        return PinVerdict("verified", f"page {number} is its first page", number)  # every copy has that one
    if first.isdigit() and number < int(first):
        return PinVerdict(
            "contradicted",
            f"{key} begins on page {first}: page {number} is before it, so the pin cannot be in it",
            number,
        )
    if series is None:
        return PinVerdict(
            "unverifiable",
            f"this copy of {key} has no page numbers, so page {number} cannot be checked",
            number,
        )
    if number > series.last:
        return PinVerdict(
            "contradicted",
            f"{key} runs from page {series.first} to page {series.last}: page {number} is not in it",
            number,
        )
    return PinVerdict("verified", f"page {number} is in it (pages {series.first}-{series.last})", number)


_NEUTRAL_KEY = re.compile(r"^(?:19|20)\d\d [A-Z][A-Za-z()0-9]*(?:App)?[A-Za-z()0-9]* \d+$")


def is_neutral(key: str) -> bool:
    """ "2018 WI 11", "2022 NCSC 1", "2018 ILApp(1st) 152522": a year for volume, a court, no periods."""
    return bool(_NEUTRAL_KEY.match(key)) and "." not in key
