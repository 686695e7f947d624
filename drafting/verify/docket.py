"""Docket-number citations to unreported opinions: "Doe v. Roe, No. ED108783 (Mo. Ct. App. Jan. 19, 2021)".

Such a citation has no reporter slot, so it is matched to a library opinion by its docket number
(as the opinion prints it: a "No. 20-1507" line, or the "Case: 20-1507" stamp of every page of a
filed copy), then by court where two opinions share a number. It gets a verdict like any other
citation: the caption is compared, the year checked, and one not in the library is unverifiable.
"""

from __future__ import annotations

import re
from collections import Counter

from drafting.verify.authorities import HEAD_CHARS, HEAD_PAGES, Opinion, caption_words, captions
from drafting.verify.docket_dates import cited_date, printed_dates, without_date
from drafting.verify.docket_key import docket_key, docket_variants
from drafting.verify.found import Found
from drafting.verify.model import Flag
from drafting.verify.sources import MatterSources, Page

# The Tax Court writes a case's kind after its number, apart: "19556-14S L" (small tax case, lien or levy).
_DOCKET = (
    r"(?:\d{2} (?:Civ|Cr|Crim)\. \d{1,6}\b"  # "12 Civ. 5708", as the New York districts cite their cases
    r"|[A-Z]{0,5}[- ]?\d[\dA-Za-z]*(?:[-–:][\dA-Za-z]+)*(?: [A-Z]{1,2}\b(?![.'’]?[A-Za-z]))?)"
)
# A district court may follow the number with its judges' initials in parentheses: "16-4465 (RMB-JS)".
_JUDGES = r"(?:\s*\([A-Z]{2,4}(?:[-/ ][A-Z]{2,4})*x?\))?"
# The label a docket number is cited and printed with: "No.", Virginia's "Record No.", "Civ. No.".
_LABEL = r"(?:Record\s+|Civ(?:il)?\.?\s+(?:Action\s+)?)?Nos?\."
_CITED = re.compile(
    rf"\b{_LABEL}\s*(?P<docket>{_DOCKET}){_JUDGES}(?:,\s*(?:19|20)\d\d\s+WL\s+\d+)?(?:,\s*at\s+\*?\d+)?"
    r"\s*\((?P<paren>[^()]{0,80}?(?P<year>(?:19|20)\d\d))\)"
)
# A slip opinion on pleading paper numbers its lines in the margin: "11     Docket No. 07-3018-cr".
_OWN = re.compile(
    rf"^\s*(?:\d{{1,2}}\s+)?(?:Docket\s+)?(?:Nos?\.|NOS?\.|Docket Numbers?(?:\(s\))?:|Case No\.|Civil Action No\.|Civ\. No\.)\s*"
    rf"(?P<docket>{_DOCKET})\.?{_JUDGES}\s*(?:$|\s{{2,}}|\s+(?:Argued|Submitted|Decided|Filed))",
    re.M,
)
_STAMP = re.compile(rf"^\s*(?:Appellate\s+)?Case:?\s+(?P<docket>{_DOCKET})\s+(?:Document|Doc)\b", re.M)
# Virginia's appellate courts print the docket as a "Record No." in the caption block, whose two columns a
# text copy runs together: "v.  Record No. 000023 CHIEF JUSTICE HARRY L. CARRICO".
_RECORD = re.compile(rf"\bRecord\s+Nos?\.\s*(?P<docket>{_DOCKET})")
_COURT_WORD = re.compile(r"[A-Za-z]+")


def cited_dockets(text: str, taken: list[tuple[int, int]]) -> list[Found]:
    """The docket-number citations of one section, each a case item whose parties come before "No."."""
    from drafting.verify.extract_citations import _parties, short_name

    out = []
    for m in _CITED.finditer(text) if "No" in text else ():
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        plaintiff, defendant = _parties(text, m.start())
        fields = {"form": "docket", "docket": docket_key(m["docket"]), "court": m["paren"], "year": m["year"]}
        fields |= {"plaintiff": plaintiff, "defendant": defendant, "volume": "", "reporter": "", "page": ""}
        if not (plaintiff or defendant):
            fields["name"] = short_name(text, m.start())
        end = m.end("docket")
        out.append(Found("case", m.start(), end, text[m.start() : end], fields))
        taken.append((m.start(), m.end()))
    return out


def index_dockets(library: MatterSources, opinions: dict[str, Opinion]) -> dict[str, list[Opinion]]:
    """Docket number -> the library's opinions that print it, indexed or not (an unreported one has no slot)."""
    by_document = {o.pages[0].document_id: o for o in opinions.values()}
    out: dict[str, list[Opinion]] = {}
    for document_id, pages in library.documents.items():
        head = "\n".join(p.text[:HEAD_CHARS] for p in pages[:HEAD_PAGES])
        printed = Counter(
            docket_key(m["docket"]) for pattern in (_OWN, _STAMP, _RECORD) for m in pattern.finditer(head)
        )
        if not printed:
            continue
        numbers = set(printed)
        # its own number is the court's stamp's, else the one printed most; never a "No. 298-2" of a filing
        stamped = Counter(docket_key(m["docket"]) for m in _STAMP.finditer(head))
        ranked = stamped or printed
        own = min(ranked, key=lambda n: (-ranked[n], n))
        opinion = by_document.get(document_id)
        if opinion is None:
            blocks = captions(pages, set())
            opinion = Opinion(
                key=f"No. {own}",
                citations=(),
                caption=blocks[0] if blocks else "",
                words=caption_words(" ".join(blocks)),
                year=_year(pages),
                pages=tuple(pages),
            )
        for number in sorted({v for n in numbers for v in docket_variants(n)}):
            if opinion not in out.setdefault(number, []):
                out[number].append(opinion)
    return out


def uncited_opinions(library: MatterSources, opinions: dict[str, Opinion]) -> list[Opinion]:
    """The library's documents that no citation indexes, each with its caption: a draft's citation
    whose parties are one of these names an opinion that was added without its citation."""
    indexed = {o.pages[0].document_id for o in opinions.values()}
    out = []
    for document_id, pages in library.documents.items():
        if document_id in indexed:
            continue
        blocks = captions(pages, set())
        if blocks:
            words = caption_words(" ".join(blocks))
            out.append(Opinion(f"file {pages[0].file}", (), blocks[0], words, _year(pages), tuple(pages)))
    return out


def _year(pages: list[Page]) -> str:
    from drafting.verify.authorities import decision_year

    return decision_year(pages)


def opinions_for_docket(item: Found, dockets: dict[str, list[Opinion]]) -> list[Opinion]:
    """The opinions with this docket number that fit the citation best: between several, those whose text
    names the cited court, then, as one case has many orders, those that print the cited date. More than
    one where a court filed two orders of one day (the original minutes and the amended ones)."""
    found = next((dockets[v] for v in docket_variants(item.fields.get("docket", "")) if v in dockets), [])
    if len(found) <= 1:
        return list(found)
    paren = item.fields.get("court", "")
    words = {w.lower() for w in _COURT_WORD.findall(without_date(paren)) if len(w) > 2}
    date = cited_date(paren)

    def fit(opinion: Opinion) -> tuple[int, bool]:
        dated = date is not None and date in printed_dates("\n".join(p.text for p in opinion.pages))
        return sum(w in opinion.pages[0].norm for w in words), dated

    best = max(fit(o) for o in found)
    return [o for o in found if fit(o) == best]


def opinion_for_docket(item: Found, dockets: dict[str, list[Opinion]]) -> Opinion | None:
    """The opinion a docket citation names: the first of those that fit it best."""
    best = opinions_for_docket(item, dockets)
    return best[0] if best else None


def check_docket(item: Found, dockets: dict[str, list[Opinion]] | None) -> Flag:
    """The verdict of a docket-number citation: the library's opinion of that number, its caption and year."""
    from drafting.verify.checks_cases import spelling_flag, wrong_name_or_year
    from drafting.verify.checks_record import make_flag
    from drafting.verify.districts import district_cited, district_name

    key = f"No. {item.fields['docket']}"
    opinion = opinion_for_docket(item, dockets) if dockets is not None else None
    if opinion is None:
        return make_flag(
            item,
            "block",
            f"Unverifiable: no opinion in your authorities library has docket {key}. Add it with "
            "`chambers authorities add FILE`, or acknowledge this item.",
            normalized=key,
            verdict="unverifiable",
            reason="not-in-library" if dockets is not None else "no-library",
        )
    page = opinion.pages[0]
    cited = district_cited(item.fields.get("court", ""))
    if cited and opinion.district and cited != opinion.district:
        # Each district numbers its own cases: the same number in another district is another case.
        return make_flag(
            item,
            "block",
            f"Unverifiable: docket {key} in your authorities library is a case of {district_name(opinion.district)} "
            f"({opinion.file}), not of {district_name(cited)}, so the case cited is not there. Add it with "
            "`chambers authorities add FILE`, or acknowledge this item.",
            [page],
            normalized=key,
            verdict="unverifiable",
            reason="not-in-library",
        )
    named = any(item.fields.get(role) for role in ("plaintiff", "defendant", "name"))
    if named and not opinion.words:  # as for a reporter citation: the parties cannot be compared
        return make_flag(
            item,
            "warn",
            f"Docket {key} is in your library ({opinion.file}), but its caption could not be read to compare "
            "the parties.",
            [page],
            normalized=key,
        )
    wrong = wrong_name_or_year(
        item, opinion, key, page, slot=f"docket {key}", decided=f"Docket {key} ({opinion.file})"
    )
    if wrong is not None:
        return wrong
    year = item.fields.get("year", "")
    if year and not opinion.year:
        return make_flag(
            item,
            "block",
            f"Unverifiable year: docket {key} is {opinion.caption!r} ({opinion.file}), but the "
            f"library has no decision year for it, so {year} cannot be checked. Acknowledge this item, or add "
            "a copy that prints its date.",
            [page],
            normalized=key,
            verdict="unverifiable",
            reason="no-year",
        )
    misspelled = spelling_flag(item, opinion, page, slot=f"docket {key}", key=key)
    if misspelled is not None:
        return misspelled
    return make_flag(
        item,
        "ok",
        f"Verified by docket number: {key} is {opinion.caption!r} ({opinion.file}).",
        [page],
        normalized=key,
    )
