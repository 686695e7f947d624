"""Claim and passage, paired for every citation of a draft, with their offsets.

The passage is what the citation points to: an opinion's pin page(s) with one paragraph either
side; without a pin (or in a copy that prints no pages) its best-matching paragraphs; a Bates
cite's page; a deposition cite's lines with five lines either side.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from drafting.support.bm25 import BM25
from drafting.support.claims import claims_of
from drafting.support.locator import Located, locate
from drafting.support.paragraphs import Paragraph, paragraphs_of
from drafting.verify.authorities import Opinion
from drafting.verify.found import Found
from drafting.verify.pins import cited_pin, full_of, is_neutral, key_for
from drafting.verify.sources import MatterSources, cite_key
from drafting.verify.transcripts import read_transcript

BEST_WITHOUT_PIN = 3
DEPOSITION_CONTEXT = 5
CITE_KINDS = ("case", "id", "bates", "deposition")


@dataclass
class Pair:
    cite: str
    cite_start: int  # in the draft
    cite_end: int
    kind: str  # case | bates | deposition
    claim: str
    claim_start: int
    claim_end: int
    member: int = 0  # its place in a string cite
    source: str = ""  # the file the passage is read from
    source_page: int = 0  # the file's page the passage begins on (as the index numbers them); 0: unknown
    sha256: str = ""
    passage: str = ""
    passage_start: int = 0  # in the opinion's reading, or the page's text
    passage_end: int = 0
    pages: list[str] = field(default_factory=list)  # "394", "¶ 21", "ABC0000002", "12:3-13:10"
    pin: str = ""
    note: str = ""  # why there is no passage, where there is none
    best_page: str = ""
    best_text: str = ""
    best_score: float = 0.0
    passage_score: float = 0.0
    warning: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def pair_citations(
    draft: str,
    items: list[Found],
    opinions: dict[str, Opinion],
    record: MatterSources | None = None,
    word_pairs: bool = True,
) -> list[Pair]:
    """Every citation of ``items`` (the verifier's extraction of ``draft``) with its claim and passage."""
    cites = sorted((i for i in items if i.kind in CITE_KINDS), key=lambda i: i.draft_start)
    out: list[Pair] = []
    cache: dict[tuple[int, str], tuple[list[Paragraph], BM25]] = {}
    for item, claim in zip(cites, claims_of(draft, cites), strict=True):
        pair = Pair(
            draft[item.draft_start : item.draft_end],
            item.draft_start,
            item.draft_end,
            "case" if item.kind == "id" else item.kind,
            claim.text,
            claim.start,
            claim.end,
            claim.member,
        )
        if item.kind in ("case", "id"):
            _opinion_passage(pair, item, opinions, cache, word_pairs)
        elif item.kind == "bates":
            _bates_passage(pair, item, record)
        else:
            _deposition_passage(pair, item, record)
        out.append(pair)
    return out


def _opinion_of(item: Found, opinions: dict[str, Opinion]) -> Opinion | None:
    full = full_of(item)
    if full.kind != "case" or full.fields.get("form") != "full":
        return None
    return opinions.get(cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"]))


def _opinion_passage(
    pair: Pair,
    item: Found,
    opinions: dict[str, Opinion],
    cache: dict[tuple[int, str], tuple[list[Paragraph], BM25]],
    word_pairs: bool = True,
) -> None:
    opinion = _opinion_of(item, opinions)
    if opinion is None:
        pair.note = "the cited opinion is not in the library"
        return
    key = key_for(item, opinion)
    if (id(opinion), key) not in cache:
        paragraphs = paragraphs_of(opinion, key)
        cache[(id(opinion), key)] = (paragraphs, BM25([p.text for p in paragraphs], word_pairs))
    paragraphs, index = cache[(id(opinion), key)]
    pair.source, pair.sha256 = opinion.file, opinion.pages[0].sha256
    pin = cited_pin(item)
    is_paragraph = bool(pin and pin[1]) or is_neutral(key)  # a public-domain citation is pinned by ¶
    label = (lambda n: f"¶ {n}") if is_paragraph else str
    chosen: list[int] = []
    if pin is not None:
        pair.pin = label(pin[0])
        on_page = [p.index for p in paragraphs if p.page == pin[0]]
        if on_page:
            chosen = list(range(max(0, on_page[0] - 1), min(len(paragraphs), on_page[-1] + 2)))
        else:
            pair.note = f"this copy prints no {label(pin[0])}: the passage is its best-matching paragraphs"
    located = locate(
        pair.claim,
        paragraphs,
        set(chosen),
        label(pin[0]) if pin else "",
        is_paragraph,
        index,
    )
    if not chosen:
        chosen = sorted(i for i, _ in located.ranked[:BEST_WITHOUT_PIN])
    _fill(pair, paragraphs, chosen, label, located)
    if pair.passage:
        pair.source_page = opinion.pages[opinion.reading.pdf_page(pair.passage_start)].page_no


def _fill(pair: Pair, paragraphs: list[Paragraph], chosen: list[int], label: Any, located: Located) -> None:
    picked = [paragraphs[i] for i in chosen]
    if picked:
        pair.passage = " ".join(p.text for p in picked)
        pair.passage_start, pair.passage_end = picked[0].start, picked[-1].end
        pair.pages = list(dict.fromkeys(label(p.page) for p in picked if p.page is not None))
    if located.best is not None:
        pair.best_page = label(located.best.page) if located.best.page is not None else ""
        pair.best_text = located.best.text
    pair.best_score, pair.passage_score = round(located.best_score, 3), round(located.passage_score, 3)
    pair.warning = located.warning


def _bates_passage(pair: Pair, item: Found, record: MatterSources | None) -> None:
    prefix, first, last = item.fields["prefix"], int(item.fields["first"]), int(item.fields["last"])
    pages = [record.bates.get((prefix, n)) for n in range(first, last + 1)] if record else []
    found = [p for p in pages if p is not None]
    if not found:
        pair.note = f"no page stamped {item.text} in the record"
        return
    pair.source, pair.sha256, pair.source_page = found[0].file, found[0].sha256, found[0].page_no
    pair.passage = "\n".join(p.text for p in found)
    pair.passage_end = len(pair.passage)
    pair.pages = [p.bates or str(p.page_no) for p in found]


def _deposition_passage(pair: Pair, item: Found, record: MatterSources | None) -> None:
    fields = item.fields
    page, line = int(fields["page"]), int(fields["line"])
    page2, line2 = int(fields["page2"]), int(fields["line2"])
    for pages in record.transcripts(fields["deponent"]) if record else []:
        transcript = read_transcript(pages)
        lines: list[str] = []
        for number in range(page, page2 + 1):
            held = transcript.get(number)
            if held is None:
                continue
            low = line - DEPOSITION_CONTEXT if number == page else 1
            high = line2 + DEPOSITION_CONTEXT if number == page2 else max(held.lines, default=0)
            lines += [f"{number}:{n} {held.lines[n]}" for n in sorted(held.lines) if low <= n <= high]
        if lines:
            pair.source, pair.sha256 = pages[0].file, pages[0].sha256
            pair.passage = "\n".join(lines)
            pair.passage_end = len(pair.passage)
            pair.pages = [lines[0].split(" ", 1)[0] + "-" + lines[-1].split(" ", 1)[0]]
            return
    pair.note = f"no transcript of {fields['deponent']} with page {page} in the record"
