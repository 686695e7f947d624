"""Checks against texts: quotations (exact, then fuzzy with rapidfuzz) and case citations.

A quotation is exact once case, quote marks, dashes and bracketed alterations are set aside;
an ellipsis splits it into parts that must all be on one page. Anything less is not a
quotation of the source: a near match (the best passage and its score are shown) warns, a
poor one blocks.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from drafting.verify.authorities import Opinion
from drafting.verify.checks_record import (
    deposition_excerpt,
    make_flag,
    pinned_pages,
    transcript_page,
    transcripts,
    where,
)
from drafting.verify.extract_citations import known_reporter, party_words
from drafting.verify.found import Found
from drafting.verify.model import Flag, Severity
from drafting.verify.sources import MatterSources, Page, cite_key
from drafting.verify.text import normalize_for_match

NEAR_MATCH = 96.0  # partial-ratio score from which a quotation counts as nearly exact (warn)
_WORD = re.compile(r"[a-z0-9]+")
_ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…)\s*")


def quote_parts(quote: str) -> list[str]:
    return [p for p in (normalize_for_match(part).strip(" .,;:") for part in _ELLIPSIS.split(quote)) if p]


def _exact(parts: list[str], pages: list[Page]) -> Page | None:
    return next((p for p in pages if all(part in p.norm for part in parts)), None)


def _best_fuzzy(parts: list[str], pages: list[Page]) -> tuple[float, Page | None, str]:
    needle = " ".join(parts)
    best: tuple[float, Page | None, str] = (0.0, None, "")
    for page in pages:
        found = fuzz.partial_ratio_alignment(needle, page.norm, score_cutoff=best[0])
        if found is not None and found.score > best[0]:
            best = (found.score, page, page.norm[found.dest_start : found.dest_end])
    return best


def check_quotation(item: Found, sources: MatterSources, opinions: dict[str, Opinion] | None) -> Flag:
    parts = quote_parts(item.fields["quote"])
    if not parts:
        return make_flag(item, "warn", "Nothing to compare inside the quotation marks.")
    target = item.pin.refers_to if item.pin is not None and item.pin.kind == "id" else item.pin
    if target is not None and target.kind == "case":
        return _quotation_of_opinion(item, parts, target, opinions)
    if target is not None and target.kind == "deposition":
        return _quotation_of_testimony(item, parts, target, sources)
    pinned = pinned_pages(item.pin, sources)
    if pinned:
        page = _exact(parts, pinned)
        if page:
            return make_flag(
                item, "ok", f"Quoted exactly from the cited page, {where(page)}.", [page], parts[0]
            )
    page = sources.find_exact(parts[0]) if len(parts) == 1 else _exact(parts, sources.pages)
    if page is not None:
        if pinned:
            return make_flag(
                item, "warn", f"Quoted exactly, but from {where(page)}, not the cited page.", [page], parts[0]
            )
        return make_flag(item, "ok", f"Quoted exactly from {where(page)}.", [page], parts[0])
    candidates = list(pinned or []) + sources.candidate_pages(" ".join(parts).split())
    return _fuzzy_verdict(item, parts, candidates, "the matter's sources")


def check_term(item: Found, sources: MatterSources) -> Flag:
    """A word or two in quotation marks: grounded when a source has it, otherwise a warning, never a block."""
    needle = normalize_for_match(item.fields["quote"]).strip(" .,;:")
    page = sources.find_exact(needle) if needle else None
    if page is not None:
        return make_flag(item, "ok", f"The quoted words appear in {where(page)}.", [page], needle)
    return make_flag(
        item,
        "warn",
        "A quoted word or term that no source contains; check it is not presented as a quotation.",
    )


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text))


def _fuzzy_verdict(item: Found, parts: list[str], candidates: list[Page], scope: str) -> Flag:
    """The best near match: punctuation-only differences warn; any changed word blocks, whatever the score."""
    score, page, passage = _best_fuzzy(parts, list(dict.fromkeys(candidates)))
    if page is None:
        return make_flag(item, "block", f"The quotation is not in {scope}.")
    same_words = all(_words(part) in _words(page.norm) for part in parts)
    found = f'the closest passage ({where(page)}, score {score:.0f}) reads: "{passage}"'
    if same_words and score >= NEAR_MATCH:
        return make_flag(
            item,
            "warn",
            f"The words match but the punctuation differs; {found}.",
            [page],
            passage,
            score=round(score, 1),
        )
    return make_flag(
        item, "block", f"The quotation is not in {scope}: {found}.", [page], passage, score=round(score, 1)
    )


def _quotation_of_testimony(item: Found, parts: list[str], cite: Found, sources: MatterSources) -> Flag:
    deponent = cite.fields["deponent"]
    excerpt = deposition_excerpt(cite, sources)
    documents = transcripts(sources, deponent)
    if not documents:
        return make_flag(
            item,
            "block",
            f"Attributed to {deponent}'s deposition, but the matter has no transcript of {deponent}.",
        )
    pages = [p for pages in documents for p in pages]
    if excerpt is not None:
        norm_lines = [normalize_for_match(line) for line in excerpt.splitlines()]
        joined = " ".join(norm_lines)
        if all(part in joined for part in parts):
            cited_page = transcript_page(sources, deponent, int(cite.fields["page"]))
            shown = [cited_page] if cited_page is not None else pages
            first_line = next(
                (line for line in norm_lines if parts[0][:20] in line), norm_lines[0] if norm_lines else ""
            )
            if first_line.startswith(("q ", "q.")):
                return make_flag(
                    item,
                    "block",
                    f"These words are the examining lawyer's question at the cited lines, not {deponent}'s testimony.",
                    shown,
                    parts[0],
                )
            return make_flag(item, "ok", f"{deponent}'s testimony at the cited lines.", shown, parts[0])
    page = _exact(parts, pages)
    if page is not None:
        return make_flag(
            item,
            "warn",
            f"{deponent} said this, but at {where(page)}, not at the cited lines.",
            [page],
            parts[0],
        )
    return _fuzzy_verdict(item, parts, pages, f"{deponent}'s testimony")


def _quotation_of_opinion(
    item: Found, parts: list[str], cite: Found, opinions: dict[str, Opinion] | None
) -> Flag:
    opinion = _opinion_for(cite, opinions)
    if opinion is None:
        return make_flag(
            item,
            "warn",
            "Quoted from a case that is not in your authorities library, so the words cannot be checked.",
        )
    page = _exact(parts, list(opinion.pages))
    if page is not None:
        return make_flag(item, "ok", f"Quoted exactly from the opinion, {where(page)}.", [page], parts[0])
    return _fuzzy_verdict(item, parts, list(opinion.pages), "the cited opinion")


def _full_of(cite: Found) -> Found:
    return cite.refers_to if cite.refers_to is not None else cite


def _opinion_for(cite: Found, opinions: dict[str, Opinion] | None) -> Opinion | None:
    full = _full_of(cite)
    if opinions is None or "volume" not in full.fields or full.fields.get("form") != "full":
        return None
    return opinions.get(cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"]))


def check_case(item: Found, opinions: dict[str, Opinion] | None) -> Flag:
    form = item.fields.get("form", "full")
    if form != "full":
        if item.refers_to is None:
            return make_flag(
                item,
                "warn",
                "A short form whose full citation is not earlier in the draft; it cannot be checked.",
            )
        verdict = check_case(item.refers_to, opinions)
        note = f"Short form of {item.refers_to.text}: "
        severity: Severity = "ok" if verdict.severity == "ok" else "warn"
        return make_flag(item, severity, note + verdict.message, normalized=item.refers_to.text)
    reporter = item.fields["reporter"]
    key = cite_key(item.fields["volume"], reporter, item.fields["page"])
    if not known_reporter(reporter):
        return make_flag(
            item, "block", f"No such reporter: '{reporter}' is not in reporters-db.", normalized=key
        )
    if opinions is None:
        return make_flag(
            item,
            "block",
            "Unverified: not in your authorities library (no library is set up for this matter).",
            normalized=key,
        )
    opinion = opinions.get(key)
    if opinion is None:
        return make_flag(item, "block", "Unverified: not in your authorities library.", normalized=key)
    plaintiff, defendant = (
        party_words(item.fields.get("plaintiff", "")),
        party_words(item.fields.get("defendant", "")),
    )
    missing = [
        name
        for name, words in (("plaintiff", plaintiff), ("defendant", defendant))
        if words and not any(w in opinion.caption for w in words)
    ]
    page = opinion.pages[0]
    if missing:
        return make_flag(
            item,
            "block",
            f"The opinion at {key} is not this case: the {' and '.join(missing)} named in the draft {'are' if len(missing) > 1 else 'is'} not in its caption.",
            [page],
            normalized=key,
        )
    year = item.fields.get("year", "")
    if year and opinion.year and year != opinion.year:
        return make_flag(
            item,
            "block",
            f"The opinion at {key} was decided in {opinion.year}, not {year}.",
            [page],
            normalized=key,
        )
    if not plaintiff and not defendant:
        return make_flag(
            item,
            "warn",
            f"{key} is in your library, but the draft names no parties to compare.",
            [page],
            normalized=key,
        )
    return make_flag(
        item, "ok", f"Verified against your authorities library: {where(page)}.", [page], normalized=key
    )


def check_id(item: Found, opinions: dict[str, Opinion] | None) -> Flag:
    if item.refers_to is None:
        return make_flag(item, "warn", "'Id.' with no earlier citation to refer to.")
    return make_flag(item, "ok", f"Refers to {item.refers_to.text}.", normalized=item.refers_to.text)


def check_statute(item: Found, library: MatterSources | None) -> Flag:
    if library is not None:
        needle = normalize_for_match(item.text.replace("§", " "))
        page = library.find_exact(needle)
        if page is not None:
            return make_flag(item, "ok", f"In your authorities library: {where(page)}.", [page], needle)
    return make_flag(
        item,
        "warn",
        "Statute not checked: its text is not in your authorities library.",
        normalized=item.fields["key"],
    )
