"""Checks of record statements: Bates numbers, deposition cites, exhibits, dates and amounts.

Each check returns one flag. What it cannot decide is ``warn`` with the reason, never ``ok``.
Each flag also carries its verdict: a block is contradicted, an ok verified, and a warning is
unverifiable unless the check says the sources bear it out (a punctuation-only difference).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

from drafting.verify.found import Found
from drafting.verify.model import DEFAULT_VERDICT, Flag, Pointer, Severity, Verdict
from drafting.verify.sources import MatterSources, Page
from drafting.verify.text import normalize_for_match
from drafting.verify.transcripts import TranscriptPage, read_transcript

SNIPPET = 70
APPROXIMATE_DAYS = 3
_ARITHMETIC = re.compile(
    r"[×x]\s*\$|\bx\s*\d|\btimes\b|\bmultipl|\bcalculat|\bcomput|\bper day\b|\bsum of\b", re.I
)


def make_flag(
    item: Found,
    severity: Severity,
    message: str,
    pages: Sequence[Page] = (),
    needle: str = "",
    normalized: str = "",
    score: float | None = None,
    *,
    verdict: Verdict | None = None,
    reason: str = "",
) -> Flag:
    verdict = verdict or DEFAULT_VERDICT[severity]
    if verdict == "unverifiable" and not reason:
        reason = "not-checkable"
    return Flag(
        start=item.draft_start,
        end=item.draft_end,
        kind=item.kind,
        severity=severity,
        text=item.text,
        message=message,
        evidence=tuple(pointer(p, needle, score) for p in pages[:3]),
        normalized=normalized,
        verdict=verdict,
        reason=reason if verdict == "unverifiable" else "",
    )


def pointer(page: Page, needle: str = "", score: float | None = None) -> Pointer:
    at = page.norm.find(needle) if needle else -1
    if at < 0:
        snippet = page.norm[: SNIPPET * 2]
    else:
        snippet = page.norm[max(0, at - SNIPPET) : at + len(needle) + SNIPPET]
    return Pointer(file=page.file, page=page.page_no, bates=page.bates, snippet=snippet, score=score)


def where(page: Page) -> str:
    return f"{page.file} p. {page.page_no}" + (f" ({page.bates})" if page.bates else "")


def pinned_pages(pin: Found | None, sources: MatterSources) -> list[Page] | None:
    """The pages a record citation points at, or None where it points at no matter page."""
    if pin is None:
        return None
    target = pin.refers_to if pin.kind == "id" and pin.refers_to is not None else pin
    if target.kind == "bates":
        first, last = int(target.fields["first"]), int(target.fields["last"])
        pages = [
            sources.bates.get((target.fields["prefix"], n)) for n in range(first, min(last, first + 500) + 1)
        ]
        found = [p for p in pages if p is not None]
        return found or None
    if target.kind == "deposition":
        cited = transcript_page(sources, target.fields["deponent"], int(target.fields["page"]))
        return [cited.page] if cited else None
    return None


def transcripts(sources: MatterSources, deponent: str) -> list[list[Page]]:
    return sources.transcripts(deponent)


def transcript_page(sources: MatterSources, deponent: str, page_no: int) -> TranscriptPage | None:
    """The page the reporter numbered ``page_no`` in the deponent's transcripts."""
    for pages in transcripts(sources, deponent):
        document = pages[0].document_id
        if document not in sources.transcript_cache:
            sources.transcript_cache[document] = read_transcript(pages)
        found = sources.transcript_cache[document].get(page_no)
        if found is not None:
            return found
    return None


def testimony_at(sources: MatterSources, deponent: str, parts: list[str]) -> tuple[str, Page] | None:
    """Where in the deponent's transcripts these words are said: ("page 12, lines 4-5", file page)."""
    for pages in transcripts(sources, deponent):
        document = pages[0].document_id
        if document not in sources.transcript_cache:
            sources.transcript_cache[document] = read_transcript(pages)
        for number, cited in sorted(sources.transcript_cache[document].items()):
            numbers = sorted(cited.lines)
            norms = [normalize_for_match(cited.lines[n]) for n in numbers]
            joined = " ".join(norms)
            if all(part in joined for part in parts):
                at = joined.find(parts[0])
                offsets = [sum(len(x) + 1 for x in norms[:i]) for i in range(len(norms))]
                first = max(i for i, o in enumerate(offsets) if o <= at)
                end = at + len(parts[-1]) if len(parts) == 1 else joined.rfind(parts[-1]) + len(parts[-1])
                last = max(i for i, o in enumerate(offsets) if o < max(end, at + 1))
                return f"page {number}, lines {numbers[first]}-{numbers[last]}", cited.page
    return None


def check_bates(item: Found, sources: MatterSources) -> Flag:
    prefix, first, last = item.fields["prefix"], int(item.fields["first"]), int(item.fields["last"])
    prefixes = ", ".join(sorted(sources.prefixes)) or "none"
    if item.fields["known"] != "1":
        literal = normalize_for_match(item.text)
        page = sources.find_identifier(prefix, item.fields["digits"])
        if page is not None:
            return make_flag(
                item,
                "ok",
                f"Not a Bates number of this matter; '{item.text}' appears in {where(page)}.",
                [page],
                literal,
            )
        if item.fields["cited"] == "1":
            return make_flag(
                item,
                "block",
                f"'{item.text}' is cited like a Bates number, but no page carries it and this matter's Bates prefixes are {prefixes}.",
            )
        return make_flag(
            item,
            "warn",
            f"'{item.text}' looks like a Bates number with a prefix this matter does not use ({prefixes}), and no source contains it.",
        )
    if last < first:
        return make_flag(item, "block", "The range ends before it starts.")
    highest = sources.highest_bates(prefix)
    missing = [n for n in range(first, last + 1) if (prefix, n) not in sources.bates]
    if missing:
        width = len(item.fields["digits"])
        sep = item.fields.get("sep", "-")
        label = f"{prefix}{sep}{missing[0]:0{width}d}"
        if missing[0] > highest:
            return make_flag(
                item,
                "block",
                f"{label} is past the end of the production: the last page is {prefix}{sep}{highest:0{width}d}.",
                normalized=label,
            )
        return make_flag(item, "block", f"No page of the matter is stamped {label}.", normalized=label)
    pages = [sources.bates[(prefix, n)] for n in range(first, last + 1)]
    blank = [p for p in pages if not p.text.replace(p.bates or "", "").strip()]
    if blank:
        return make_flag(
            item,
            "warn",
            f"{where(blank[0])} exists but has no readable text, so nothing can be grounded on it.",
            blank,
        )
    span = where(pages[0]) if len(pages) == 1 else f"{where(pages[0])} to {where(pages[-1])}"
    return make_flag(item, "ok", f"Bates page(s) exist: {span}.", pages)


def check_deposition(item: Found, sources: MatterSources) -> Flag:
    deponent = item.fields["deponent"]
    if not transcripts(sources, deponent):
        return make_flag(item, "block", f"The matter has no deposition transcript of {deponent}.")
    for key_page, key_line in (("page", "line"), ("page2", "line2")):
        cited = transcript_page(sources, deponent, int(item.fields[key_page]))
        if cited is None:
            return make_flag(item, "block", f"{deponent}'s transcript has no page {item.fields[key_page]}.")
        line = int(item.fields[key_line])
        if line not in cited.lines:
            return make_flag(
                item,
                "block",
                f"Page {cited.number} of {deponent}'s transcript has {cited.count} lines, not {line}.",
                [cited.page],
            )
    first = transcript_page(sources, deponent, int(item.fields["page"]))
    assert first is not None
    excerpt = deposition_excerpt(item, sources) or ""
    return make_flag(
        item,
        "ok",
        f"Transcript page {first.number}, lines {item.fields['line']}-{item.fields['line2']} "
        f"({first.page.file} p. {first.page.page_no}).",
        [first.page],
        normalize_for_match(excerpt[:80]),
    )


def deposition_excerpt(item: Found, sources: MatterSources) -> str | None:
    """The cited lines of testimony (page:line to page2:line2), as one text."""
    first, last = int(item.fields["page"]), int(item.fields["page2"])
    out: list[str] = []
    for number in range(first, last + 1):
        cited = transcript_page(sources, item.fields["deponent"], number)
        if cited is None:
            return None
        lo = int(item.fields["line"]) if number == first else 1
        hi = int(item.fields["line2"]) if number == last else cited.count
        out.extend(cited.span(lo, hi))
    return "\n".join(out)


def check_exhibit(item: Found, sources: MatterSources) -> Flag:
    return make_flag(
        item,
        "warn",
        f"Cannot tell which document is Exhibit {item.fields['exhibit']}: the matter has no exhibit list. Cite the Bates number as well.",
    )


def _pages(sources: MatterSources, indexes: list[int]) -> list[Page]:
    return [sources.pages[i] for i in sorted(set(indexes))]


def check_date(item: Found, sources: MatterSources) -> Flag:
    iso = item.fields["iso"]
    if not iso:
        return make_flag(item, "warn", "No year is given or implied, so the date cannot be checked.")
    found = _pages(sources, sources.dates.get(iso, []))
    pinned = pinned_pages(item.pin, sources)
    if len(iso) == 7:
        if found:
            return make_flag(
                item, "ok", f"Sources mention dates in {iso}, e.g. {where(found[0])}.", found, normalized=iso
            )
        return make_flag(item, "warn", f"No source mentions any date in {iso}.", normalized=iso)
    if pinned is not None:
        on_pin = [p for p in found if p in pinned]
        if on_pin:
            return make_flag(
                item, "ok", f"{iso} appears on the cited page, {where(on_pin[0])}.", on_pin, normalized=iso
            )
        if found:
            return make_flag(
                item,
                "warn",
                f"{iso} is not on the cited page; it appears in {where(found[0])}.",
                found,
                normalized=iso,
            )
        return make_flag(
            item,
            "block",
            f"No source mentions {iso}, and not the cited page ({where(pinned[0])}).",
            pinned,
            normalized=iso,
        )
    if found:
        return make_flag(item, "ok", f"{iso} appears in {where(found[0])}.", found, normalized=iso)
    if item.fields["approximate"] == "1":
        near = _near_dates(iso, sources)
        if near:
            return make_flag(
                item,
                "warn",
                f"'On or about': the nearest date in the sources is {near[0]}.",
                _pages(sources, sources.dates[near[0]]),
                normalized=iso,
            )
    return make_flag(item, "block", f"No source mentions {iso}.", normalized=iso)


def _near_dates(iso: str, sources: MatterSources) -> list[str]:
    day = date.fromisoformat(iso)
    near = [(day + timedelta(days=d)).isoformat() for d in range(-APPROXIMATE_DAYS, APPROXIMATE_DAYS + 1)]
    return [
        d for d in sorted(near, key=lambda d: abs((date.fromisoformat(d) - day).days)) if d in sources.dates
    ]


def check_amount(item: Found, sources: MatterSources, context: str) -> Flag:
    cents = int(item.fields["cents"])
    label = f"${cents / 100:,.2f}"
    found = _pages(sources, sources.amounts.get(cents, []))
    pinned = pinned_pages(item.pin, sources)
    if pinned is not None:
        on_pin = [p for p in found if p in pinned]
        if on_pin:
            return make_flag(
                item,
                "ok",
                f"{label} appears on the cited page, {where(on_pin[0])}.",
                on_pin,
                normalized=label,
            )
        if found:
            return make_flag(
                item,
                "warn",
                f"{label} is not on the cited page; it appears in {where(found[0])}.",
                found,
                normalized=label,
            )
    elif found:
        return make_flag(item, "ok", f"{label} appears in {where(found[0])}.", found, normalized=label)
    if _ARITHMETIC.search(context):
        return make_flag(
            item,
            "warn",
            f"{label} is in no source; it reads as a computed figure, so check the arithmetic.",
            normalized=label,
        )
    return make_flag(item, "block", f"No source mentions {label}.", normalized=label)
