"""A quotation attributed to an opinion: in its words, and on the page the citation names.

The opinion is read as one text with its page markers and running heads taken out (see
opinion_text), so a quotation that runs across a page break or a "- 12 -" footer is still found.
Where the copy prints its reporter's pages, the page the quotation is on must be the one cited,
or the flag names the page it is on. A source's OCR defect ("rpea tedly") costs a warning, never
a block: the quotation's letters are all there, only the source's spacing broke.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from drafting.verify.authorities import Opinion
from drafting.verify.checks_record import make_flag
from drafting.verify.found import Found
from drafting.verify.model import Flag
from drafting.verify.omitted_citations import spans_past_citations
from drafting.verify.pins import cited_pin, full_of, is_neutral, key_for
from drafting.verify.sources import Page

MAX_OCCURRENCES = 24
OCR_EDITS_PER_CHARS = 40  # one dropped or doubled letter in this many is a scan's defect, not a new word
_WORD = re.compile(r"[a-z0-9]+")


def _occurrences(needle: str, text: str) -> list[int]:
    out: list[int] = []
    at = text.find(needle)
    while at >= 0 and len(out) < MAX_OCCURRENCES:
        out.append(at)
        at = text.find(needle, at + 1)
    return out


def _spans(parts: list[str], text: str) -> list[tuple[int, int]]:
    """Each place the quotation starts where all its parts follow in order within a few pages."""
    out = []
    for start in _occurrences(parts[0], text):
        end, ok = start + len(parts[0]), True
        for part in parts[1:]:
            nxt = text.find(part, end)
            if nxt < 0 or nxt - end > 20_000:
                ok = False
                break
            end = nxt + len(part)
        if ok:
            out.append((start, end))
    return out


def page_holding(parts: list[str], opinion: Opinion) -> Page | None:
    """The file's page where the opinion's reading (markers and running heads out) holds the quotation."""
    spans = _spans(parts, opinion.reading.text)
    return _page(opinion, spans[0][0]) if spans else None


def _page(opinion: Opinion, offset: int) -> Page:
    return opinion.pages[min(opinion.reading.pdf_page(offset), len(opinion.pages) - 1)]


def quotation_of_opinion(item: Found, parts: list[str], cite: Found, opinion: Opinion) -> Flag:
    reading = opinion.reading
    spans = _spans(parts, reading.text)
    quoted = "Quoted exactly"
    if not spans and item.fields.get("omits_citations"):
        head = " ".join(parts[0].split(" ")[:3])
        spans = spans_past_citations(parts, reading.text, _occurrences(head, reading.text))
        quoted = "Quoted exactly (but for the citations it says it omits)" if spans else quoted
    scanned: Scanned | None = None
    if not spans:
        found = _not_verbatim(item, parts, opinion)
        if isinstance(found, Flag):
            return found
        scanned, spans = found, [(found.start, found.end)]
    pin = cited_pin(cite)
    key = key_for(cite, opinion)
    series = reading.series.get(key)
    if pin is not None and series is None and not _first_page(key, pin[0]):
        # the words are the opinion's, but with no page numbers printed for this citation the
        # page they are cited to can be neither confirmed nor denied
        return make_flag(
            item,
            "warn",
            f"{'The words match but for a scan defect' if scanned else quoted}, but this copy of "
            f"{key} prints no {'paragraph' if pin[1] or is_neutral(key) else 'page'} numbers, so "
            f"{'¶' if pin[1] or is_neutral(key) else 'page'} {pin[0]} cannot be checked ({opinion.file}).",
            [_page(opinion, spans[0][0])],
            parts[0],
            verdict="unverifiable",
            reason="no-page-numbers",
        )
    if pin is None or series is None:
        page = _page(opinion, spans[0][0])
        if scanned is not None:
            return _scan_flag(item, opinion, scanned)
        return make_flag(item, "ok", f"{quoted} from the opinion ({opinion.file}).", [page], parts[0])
    number, _ = pin
    found_on: list[tuple[int, int]] = []
    for start, end in spans:
        first, last = series.page_at(start), series.page_at(max(start, end - 1))
        if first <= number <= last:
            if scanned is not None:
                return _scan_flag(item, opinion, scanned)
            return make_flag(
                item,
                "ok",
                f"{quoted} from {key}, {_label(key, first, last)}, as cited ({opinion.file}).",
                [_page(opinion, start)],
                parts[0],
            )
        found_on.append((first, last))
        if first < number <= series.unmarked_to(start):
            return make_flag(
                item,
                "warn",
                f"The words are in {key} before its first page marker, on one of pages {first}-"
                f"{series.unmarked_to(start)}: this copy cannot tell whether page {number} is theirs "
                f"({opinion.file}).",
                [_page(opinion, start)],
                parts[0],
                verdict="unverifiable",
                reason="no-page-numbers",
            )
    first, last = found_on[0]
    footnote = cite.fields.get("footnote", "")
    if footnote and first > number:
        # a vendor's copy prints the footnotes after the opinion's last page, or lets a long one run
        # on: a footnote of the cited page may stand on a later page of the copy
        return make_flag(
            item,
            "warn",
            f"The words are in {key}, on {_label(key, first, last)} of this copy, which may print footnote "
            f"{footnote} of page {number} there: this copy cannot tell whether they are that footnote's "
            f"({opinion.file}).",
            [_page(opinion, spans[0][0])],
            parts[0],
            verdict="unverifiable",
            reason="no-page-numbers",
        )
    # a scan's broken word excuses the spacing, never the page: the pin is held to the same rule
    return make_flag(
        item,
        "block",
        f"{quoted if scanned is None else 'The words match but for a scan defect'}, but the words are "
        f"on {_label(key, first, last)} of {key}, not at the cited "
        f"{'¶' if is_neutral(key) else 'page'} {number}: correct the pin cite ({opinion.file}).",
        [_page(opinion, spans[0][0])],
        parts[0],
    )


def _first_page(key: str, number: int) -> bool:
    """Whether ``number`` is the cited opinion's first page, the one page every copy holds."""
    first = key.rsplit(" ", 1)[-1]
    return first.isdigit() and not is_neutral(key) and number == int(first)


def _label(key: str, first: int, last: int) -> str:
    mark = "¶" if is_neutral(key) else "page"
    return f"{mark} {first}" if first == last else f"{mark}s {first}-{last}"


@dataclass(frozen=True)
class Scanned:
    """Where the opinion holds the quotation's words but for a scan's broken spacing."""

    start: int
    end: int
    passage: str
    score: float


def scan_defects_only(quoted: str, passage: str) -> bool:
    """Whether ``passage`` is ``quoted`` with only a scan's defects: a word the scan split ("rpea tedly"),
    with at most a letter dropped or doubled in it, or punctuation and spacing. Each differing run of
    words is judged on its own, so a changed word beside a split one ("is" for "was") is never excused."""
    from rapidfuzz.distance import Levenshtein  # rapidfuzz loads only once an exact look has failed

    said, read = _WORD.findall(quoted), _WORD.findall(passage)
    if "".join(said) == "".join(read):
        return True
    runs = SequenceMatcher(None, said, read, autojunk=False).get_opcodes()
    for at, (tag, i1, i2, j1, j2) in enumerate(runs):
        if tag == "equal" or (tag == "insert" and at in (0, len(runs) - 1)):
            continue  # the source's words around the quotation are not part of it
        quote_letters, source_letters = "".join(said[i1:i2]), "".join(read[j1:j2])
        if quote_letters == source_letters:
            continue  # the same letters, spaced otherwise
        if i2 - i1 < 1 or j2 - j1 <= i2 - i1:
            return False  # no word of the source split here: a word was changed, added or left out
        if Levenshtein.distance(quote_letters, source_letters) > max(
            1, len(quote_letters) // OCR_EDITS_PER_CHARS
        ):
            return False
    return True


def _scan_flag(item: Found, opinion: Opinion, scanned: Scanned) -> Flag:
    return make_flag(
        item,
        "warn",
        "The words match the opinion; only punctuation or spacing differs, or a scan broke a word "
        f'in the source: {opinion.file} reads "{scanned.passage}".',
        [_page(opinion, scanned.start)],
        scanned.passage,
        score=round(scanned.score, 1),
        verdict="verified",
    )


def _not_verbatim(item: Found, parts: list[str], opinion: Opinion) -> Flag | Scanned:
    """No exact match: where a scan's broken spacing explains it, the passage; else the block,
    showing the closest passage."""
    # rapidfuzz (all of its metrics load with it) only once an exact look has failed
    from rapidfuzz import fuzz

    text = opinion.reading.text
    needle = " ".join(parts)
    found = fuzz.partial_ratio_alignment(needle, text, score_cutoff=60)
    if found is None:
        return make_flag(
            item, "block", f"The quotation is not in the cited opinion ({opinion.key}, {opinion.file})."
        )
    start, end = found.dest_start, found.dest_end
    # the alignment may cut a word: read it whole, but take no word it did not reach into (the "a"
    # before a quotation that opens "[A] post judgment motion")
    while 0 < start < len(text) and text[start].isalnum() and text[start - 1].isalnum():
        start -= 1
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    if scan_defects_only(needle, text[start:end]):
        return Scanned(start, end, text[start:end], found.score)
    passage = text[found.dest_start : found.dest_end]
    page = _page(opinion, found.dest_start)
    return make_flag(
        item,
        "block",
        f"The quotation is not in the cited opinion ({opinion.key}): the closest passage "
        f'({opinion.file}, score {found.score:.0f}) reads: "{passage}".',
        [page],
        passage,
        score=round(found.score, 1),
    )


def opinion_for(
    cite: Found, opinions: dict[str, Opinion] | None, dockets: dict[str, list[Opinion]] | None = None
) -> Opinion | None:
    """The library's opinion a citation (or what it stands for) names: by its slot, or by docket number."""
    from drafting.verify.docket import opinion_for_docket
    from drafting.verify.sources import cite_key

    full = full_of(cite)
    if full.fields.get("form") == "docket" or (full.fields.get("docket") and dockets):
        found = opinion_for_docket(full, dockets) if dockets else None
        if found is not None or full.fields.get("form") == "docket":
            return found
    if opinions is None or "volume" not in full.fields or full.fields.get("form") != "full":
        return None
    return opinions.get(cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"]))
