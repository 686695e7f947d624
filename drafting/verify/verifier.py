"""The verifier: extract every checkable statement of a draft, check each, return the report.

Deterministic code, no model: the same draft and the same evidence give the same flags in
the same order. Short forms, supra and Id. are resolved across the whole draft here, since
eyecite sees one section at a time.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from drafting.verify.authorities import Opinion, Unindexed
from drafting.verify.check_table import Checking, check_one, is_dependent
from drafting.verify.checks_cases import missing_parties
from drafting.verify.errors import VerifyError
from drafting.verify.extract_citations import extract_citations, party_words
from drafting.verify.extract_record import extract_record
from drafting.verify.found import Found, could_hold, link, not_record_facts, pin_page
from drafting.verify.library_reading import read_library
from drafting.verify.model import Flag, Report, sort_flags
from drafting.verify.pins import is_neutral
from drafting.verify.sources import MatterSources, cite_key, load_sources
from drafting.verify.text import sections, sentence_bounds
from drafting.verify.unread_cites import unread_cite_between

MAX_DRAFT_BYTES = 20_000_000
CITE_KINDS = ("case", "bates", "deposition", "exhibit", "statute")  # what an Id. may stand for


@dataclass
class Library:
    sources: MatterSources
    opinions: dict[str, Opinion]
    unindexed: list[Unindexed] = field(default_factory=list)
    dockets: dict[str, list[Opinion]] = field(default_factory=dict)  # unreported ones too
    uncited: list[Opinion] = field(default_factory=list)  # added without a citation


def load_library(database_file: Path, name: str) -> Library:
    from drafting.verify.library import given_citations

    sources = load_sources(database_file, name, keep=True)
    opinions, unindexed, dockets, uncited = read_library(sources, given_citations(database_file, name))
    return Library(sources, opinions, unindexed, dockets, uncited)


def extract(draft: str, prefixes: frozenset[str], opinions: dict[str, Opinion] | None = None) -> list[Found]:
    """Every statement, with spans in the draft, pins attached and short forms resolved."""
    everything: list[Found] = []
    for section in sections(draft):
        if not section.text:
            continue
        items = extract_citations(section.text) + extract_record(section.text, prefixes)
        items = _drop_overlaps(items)
        link(items, sentence_bounds(section.text, section.breaks), section.text, section.breaks)
        items = not_record_facts(items, section.text)
        for item in items:
            item.draft_start, item.draft_end = section.original(item.start, item.end)
        everything.extend(sorted(items, key=lambda i: (i.start, i.end)))
    _resolve(everything, opinions or {}, draft)
    return everything


def _drop_overlaps(items: list[Found]) -> list[Found]:
    """A Bates-shaped token inside a case or statute citation, or a date inside a quotation's cite, is not its own item."""
    citations = [(i.start, i.end) for i in items if i.kind in ("case", "statute", "deposition", "exhibit")]
    return [
        i
        for i in items
        if not (i.kind in ("bates", "amount") and any(s <= i.start and i.end <= e for s, e in citations))
    ]


def _resolve(items: list[Found], opinions: dict[str, Opinion], draft: str = "") -> None:
    fulls: list[Found] = []
    last_cite: Found | None = None
    for item in items:
        if item.kind == "id" and last_cite is not None and draft:
            unread = unread_cite_between(draft, last_cite.draft_end, item.draft_start)
            if unread:  # "Trial Tr. 428. ... Id. at 440.": the transcript's Id., which no source here reads
                item.fields["stands_for"] = unread
                continue
        if item.kind == "case" and item.fields.get("form") == "full":
            fulls.append(item)
        elif item.kind == "case" and item.fields.get("form") == "short":
            item.refers_to = _short_form_target(item, fulls, opinions)
        elif item.kind == "case":
            item.refers_to = _supra_target(item, fulls, opinions)
        elif item.kind == "id":
            item.refers_to = (
                last_cite.refers_to
                if last_cite is not None and last_cite.refers_to is not None
                else _parallel_for_pin(item, last_cite, fulls, opinions)
            )
        if item.kind in CITE_KINDS and not item.fields.get("in_parenthetical"):
            last_cite = item


def _parallel_for_pin(
    item: Found, cited: Found | None, fulls: list[Found], opinions: dict[str, Opinion]
) -> Found | None:
    """ "Id. at 275" after "16 N.Y.3d 272, 945 N.E.2d 484, 920 N.Y.S.2d 291": the parallel citation whose
    pages hold the pin, first in the order written (the Bluebook pins Id. in the first reporter that
    has the page); the last citation where none is known to."""
    if cited is None or cited.kind != "case" or cited.fields.get("form") != "full" or cited not in fulls:
        return cited
    opinion = opinions.get(cite_key(cited.fields["volume"], cited.fields["reporter"], cited.fields["page"]))
    if opinion is None:
        return cited
    group: list[Found] = []
    for full in reversed(fulls[: fulls.index(cited) + 1]):  # the run of citations of this one opinion
        key = cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"])
        if opinions.get(key) is not opinion:
            break
        group.insert(0, full)
    pin = pin_page(item.fields.get("pin", ""))
    return (
        next((f for f in group if _sound(f, pin, opinions, known=True)), None)
        or next((f for f in group if _sound(f, pin, opinions)), None)
        or cited
    )


def _short_form_target(item: Found, fulls: list[Found], opinions: dict[str, Opinion]) -> Found | None:
    """The full citation "569 U.S. at 631" stands for: the latest of its slot whose first page the pin can follow.

    Two citations of one reporter volume ("569 U.S. 614", then a mis-paged "569 U.S. 641") are
    told apart by the pin: page 631 cannot lie in an opinion that begins on page 641. Where no
    citation of the slot can hold the pin, a parallel citation of the same opinion is tried
    before the slot's latest citation.
    """
    slot = (item.fields["volume"], item.fields["reporter"])
    pin = pin_page(item.fields.get("page", ""))
    same_slot = [f for f in reversed(fulls) if (f.fields["volume"], f.fields["reporter"]) == slot]
    return (
        next((f for f in same_slot if _sound(f, pin, opinions, known=True)), None)
        or next((f for f in same_slot if _sound(f, pin, opinions)), None)
        or next((f for f in same_slot if could_hold(f, pin)), None)
        or next((f for f in reversed(fulls) if _parallel(f, slot, opinions)), None)
        or next(iter(same_slot), None)
    )


def _supra_target(item: Found, fulls: list[Found], opinions: dict[str, Opinion]) -> Found | None:
    """The full citation "Fisher, supra, at 310" stands for: the latest named so whose first page the pin can follow.

    A name cited twice, once rightly and once on a wrong page, is told apart by the pin; where
    no citation of that name can hold it, the latest of the name is taken, as a reader would.
    """
    antecedent = item.fields.get("name") or item.fields.get("antecedent", "")
    # "D.L.M., supra": initials have no word of two letters; they are compared run together
    words = party_words(antecedent) or party_words(item.fields.get("antecedent", ""))
    words = words or ([_squeezed(antecedent)] if len(_squeezed(antecedent)) >= 2 else [])
    if not words:
        return None
    # the latest first, and among them those that share the most of the name's words
    named = [f for f in reversed(fulls) if any(w in _names_of(f) for w in words)]
    named.sort(key=lambda f: -sum(w in _names_of(f) for w in words))
    pin = pin_page(item.fields.get("pin", ""))
    return (
        next((f for f in named if _sound(f, pin, opinions, known=True)), None)
        or next((f for f in named if _sound(f, pin, opinions)), None)
        or next((f for f in named if could_hold(f, pin)), None)
        or next(iter(named), None)
    )


def _squeezed(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def _names_of(full: Found) -> set[str]:
    names = [full.fields.get(r, "") for r in ("plaintiff", "defendant", "subject", "name")]
    return set(party_words(" ".join(names))) | {_squeezed(n) for n in names if n}


def _sound(full: Found, pin: int | None, opinions: dict[str, Opinion], *, known: bool = False) -> bool:
    """Whether the library holds ``full``'s opinion, under the names the draft gives it, with the pin in
    its pages: an antecedent the sources bear out wins over one they contradict. ``known``: and the
    copy prints that reporter's pages, so the pin is checked, not only not refuted."""
    if full.fields.get("form") != "full":
        return False
    opinion = opinions.get(cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"]))
    if opinion is None or (opinion.words and missing_parties(full, opinion)):
        return False
    if pin is None:
        return True
    series = opinion.reading.series.get(
        cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"])
    )
    first = int(full.fields["page"]) if full.fields["page"].isdigit() else 0
    if is_neutral(cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"])):
        return False  # a public-domain citation is pinned by paragraph: "at 645" is a reporter's page
    if known:  # the copy prints this reporter's pages, and the pin is among them ("627 Pa." over "100 A.3d"),
        # or the pin is the first page, which every copy of the opinion has ("134 S. Ct. 985" for "at 985")
        return pin == first or (series is not None and series.first <= pin <= series.last)
    return first <= pin and (series is None or pin <= series.last)


def _depends(item: Found) -> int:
    """Check order: statements first, then what stands for a citation, then what belongs to either."""
    if item.owner is not None:
        return 2
    return int(is_dependent(item))


def _parallel(full: Found, slot: tuple[str, str], opinions: dict[str, Opinion]) -> bool:
    """Whether ``full`` names an opinion also reported in ``slot`` ("569 U.S. at 620" after "133 S. Ct. 2120")."""
    opinion = opinions.get(cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"]))
    return opinion is not None and any(tuple(c.split(" ")[:2]) == slot for c in opinion.citations)


def check(items: list[Found], sources: MatterSources, library: Library | None, draft: str) -> list[Flag]:
    """One flag per item; short forms, supra and Id. last, since they take the verdict of what they stand for."""
    checking = Checking(sources, draft)
    if library is not None:
        checking.opinions, checking.authorities = library.opinions, library.sources
        checking.dockets, checking.uncited = library.dockets, library.uncited
    for item in sorted(items, key=_depends):
        checking.verdicts[id(item)] = check_one(item, checking)
    return sort_flags(list(checking.verdicts.values()))


def verify_text(draft: str, name: str, sources: MatterSources, library: Library | None = None) -> Report:
    if not sources.pages:
        raise VerifyError(
            f"The matter '{sources.name}' has no ingested pages, so nothing in the draft can be grounded. "
            f"Run `chambers evidence ingest {sources.name}` first, then verify again.",
            title="No sources to verify against",
        )
    items = extract(draft, sources.prefixes, library.opinions if library is not None else None)
    return Report(
        draft=name,
        draft_sha256=hashlib.sha256(draft.encode("utf-8")).hexdigest(),
        matter=sources.name,
        authorities=library.sources.name if library is not None else None,
        flags=check(items, sources, library, draft),
    )


def read_draft(path: Path) -> str:
    """The draft's text, or a clear error naming the file and what to do."""
    if not path.is_file():
        raise VerifyError(
            f"There is no draft file at {path}. Give the path of a Markdown or plain-text draft.",
            title="Draft not found",
        )
    data = path.read_bytes()
    if len(data) > MAX_DRAFT_BYTES:
        raise VerifyError(
            f"{path} is {len(data):,} bytes; a draft over {MAX_DRAFT_BYTES:,} bytes is not a draft. Verify the brief itself."
        )
    if b"\x00" in data[:8192]:
        raise VerifyError(
            f"{path} is a binary file. Save the draft as Markdown or plain text (.md, .txt) and verify that.",
            title="Draft is not text",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise VerifyError(
            f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}). Save it as UTF-8 Markdown or text.",
            title="Draft is not text",
        ) from exc
    if not text.strip():
        raise VerifyError(
            f"{path} is empty: there is nothing to verify. Write the draft first.", title="Empty draft"
        )
    return text
