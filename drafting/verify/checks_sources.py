"""Checks against texts: quotations (exact, then fuzzy with rapidfuzz) and case citations.

A quotation is exact once case, quote marks, dashes and bracketed alterations are set aside;
an ellipsis splits it into parts that must all be on one page. Anything less is not a
quotation of the source: a near match (the best passage and its score are shown) warns, a
poor one blocks.
"""

from __future__ import annotations

import re

from drafting.verify.authorities import Opinion
from drafting.verify.checks_quotes import opinion_for, page_holding, quotation_of_opinion
from drafting.verify.checks_record import (
    deposition_excerpt,
    make_flag,
    pinned_pages,
    testimony_at,
    transcript_page,
    transcripts,
    where,
)
from drafting.verify.docket import opinions_for_docket
from drafting.verify.found import Found
from drafting.verify.model import Flag
from drafting.verify.pins import full_of
from drafting.verify.sources import MatterSources, Page
from drafting.verify.text import normalize_for_match

NEAR_MATCH = 96.0  # partial-ratio score from which a quotation counts as nearly exact (warn)
_WORD = re.compile(r"[a-z0-9]+")
_ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…)\s*")
# An alteration in brackets stands for words or letters of the source that the quotation changed:
# "indulg[e]" for "indulging", "the benefit of [the] doubt" for "of any doubt", "[sic]". It is a gap,
# as an ellipsis is, but for one capital or small letter opening a word ("[T]he"), which is that word.
_ALTERATION = re.compile(r"(?<![A-Za-z])\[([A-Za-z])\](?=[A-Za-z])|\[[^\[\]]{0,40}\]")


def quote_parts(quote: str) -> list[str]:
    pieces = _ALTERATION.sub(lambda m: m[1] or " ... ", quote)
    return [p for p in (normalize_for_match(part).strip(" .,;:") for part in _ELLIPSIS.split(pieces)) if p]


def _exact(parts: list[str], pages: list[Page]) -> Page | None:
    return next((p for p in pages if all(part in p.norm for part in parts)), None)


def _best_fuzzy(parts: list[str], pages: list[Page]) -> tuple[float, Page | None, str]:
    from rapidfuzz import fuzz  # loaded (all of its metrics with it) only once an exact look has failed

    needle = " ".join(parts)
    best: tuple[float, Page | None, str] = (0.0, None, "")
    for page in pages:
        found = fuzz.partial_ratio_alignment(needle, page.norm, score_cutoff=best[0])
        if found is not None and found.score > best[0]:
            best = (found.score, page, page.norm[found.dest_start : found.dest_end])
    return best


def check_quotation(
    item: Found,
    sources: MatterSources,
    opinions: dict[str, Opinion] | None,
    library: MatterSources | None = None,
    dockets: dict[str, list[Opinion]] | None = None,
) -> Flag:
    parts = quote_parts(item.fields["quote"])
    if not parts:
        return make_flag(item, "warn", "Nothing to compare inside the quotation marks.")
    target = item.pin.refers_to if item.pin is not None and item.pin.kind == "id" else item.pin
    if target is not None and target.kind == "case" and item.pin is not None:
        return _quotation_of_opinion(item, parts, item.pin, opinions, dockets)
    if target is not None and target.kind == "deposition":
        return _quotation_of_testimony(item, parts, target, sources)
    if target is not None and target.kind == "statute":
        return _quotation_of_statute(item, parts, target, library)
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
                item,
                "block",
                f"Quoted exactly, but from {where(page)}, not the cited page: correct the pin cite.",
                [page],
                parts[0],
            )
        return make_flag(item, "ok", f"Quoted exactly from {where(page)}.", [page], parts[0])
    if pinned is None and item.pin is None and library is not None:
        page = library.find_exact(parts[0]) if len(parts) == 1 else _exact(parts, library.pages)
        if page is None and opinions:
            # a page break, running head or page marker inside the words: they are in its reading
            each = {id(o): o for o in opinions.values()}.values()  # one per opinion, not per citation
            page = next((held for o in each if (held := page_holding(parts, o)) is not None), None)
        if page is not None:
            return make_flag(
                item,
                "warn",
                f"No citation given; the words are in {where(page)} of your authorities library. Cite it.",
                [page],
                parts[0],
            )
    candidates = list(pinned or []) + sources.candidate_pages(" ".join(parts).split())
    if item.pin is None:
        return _fuzzy_verdict(item, parts, candidates, "any source", no_citation=True)
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


def _fuzzy_verdict(
    item: Found, parts: list[str], candidates: list[Page], scope: str, *, no_citation: bool = False
) -> Flag:
    """The best near match: punctuation-only differences warn; any changed word blocks, whatever the score."""
    score, page, passage = _best_fuzzy(parts, list(dict.fromkeys(candidates)))
    lead = "No citation given, and no source has it" if no_citation else f"The quotation is not in {scope}"
    if page is None:
        return make_flag(item, "block", f"{lead}.")
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
    return make_flag(item, "block", f"{lead}: {found}.", [page], passage, score=round(score, 1))


def _quotation_of_statute(
    item: Found, parts: list[str], statute: Found, library: MatterSources | None
) -> Flag:
    """A statute's words, checked where the library holds its text; never against the record or an opinion.

    A page counts only if it also prints the statute's section number: an opinion quoting other words
    of the same law is no source for these."""
    numbers = re.findall(r"\d+[a-z]?(?:-\d+)?", statute.fields.get("key", "") or statute.text.lower())
    section = normalize_for_match(statute.fields.get("section") or (numbers[-1] if numbers else "")).strip()
    # the number as a word of its own: "56" is not in "1956" or on page 560
    printed = re.compile(rf"(?<![\w.]){re.escape(section)}(?![\w]|\.\d)") if section else None
    pages = [p for p in library.pages if printed.search(p.norm)] if library is not None and printed else []
    page = _exact(parts, pages)
    if page is not None:
        return make_flag(item, "ok", f"Quoted exactly from {where(page)} ({statute.text}).", [page], parts[0])
    return make_flag(
        item,
        "warn",
        f"A quotation of {statute.text}, whose text is not in your authorities library: the words cannot be "
        "checked. Add the statute's text to the library, or acknowledge this item.",
        verdict="unverifiable",
        reason="not-checkable",
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
            shown = [cited_page.page] if cited_page is not None else pages
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
    said = testimony_at(sources, deponent, parts)
    if said is not None:
        return make_flag(
            item,
            "block",
            f"{deponent} said this, but at {said[0]}, not at the cited lines: correct the pin cite.",
            [said[1]],
            parts[0],
        )
    page = _exact(parts, pages)
    if page is not None:
        return make_flag(
            item,
            "block",
            f"{deponent} said this, but at {where(page)}, not at the cited lines: correct the pin cite.",
            [page],
            parts[0],
        )
    return _fuzzy_verdict(item, parts, pages, f"{deponent}'s testimony")


def _quotation_of_opinion(
    item: Found,
    parts: list[str],
    cite: Found,
    opinions: dict[str, Opinion] | None,
    dockets: dict[str, list[Opinion]] | None = None,
) -> Flag:
    opinion = opinion_for(cite, opinions, dockets)
    if opinion is None:
        return make_flag(
            item,
            "block",
            f"The cited opinion ({full_of(cite).text}) is not in your authorities library, so the quotation "
            "cannot be checked. Add the opinion with `chambers authorities add FILE --cite ...`.",
            verdict="unverifiable",
            reason="not-in-library",
        )
    flag = quotation_of_opinion(item, parts, cite, opinion)
    if flag.verdict != "verified" and dockets and full_of(cite).fields.get("form") == "docket":
        # a court may file two orders of one case on one day: the words may be in the other
        for other in opinions_for_docket(full_of(cite), dockets)[1:]:
            found = quotation_of_opinion(item, parts, cite, other)
            if found.verdict == "verified":
                return found
    return flag
