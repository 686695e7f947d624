"""An extracted statement before it is checked, with what it leans on.

Extraction fills ``Found`` records per section; the linker then says which record citation a
date, amount or quotation rests on (its ``pin``), because "dated January 15, 2024 (HPP-000004)"
is only grounded if that page carries that date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from drafting.verify.model import Kind
from drafting.verify.omitted_citations import says_citations_omitted

RECORD_KINDS = ("bates", "deposition", "exhibit", "case", "id", "statute")  # what a statement may rest on
PINNED_KINDS = ("date", "amount", "quotation")


@dataclass(eq=False)
class Found:
    kind: Kind
    start: int  # in the section's collapsed text
    end: int
    text: str
    fields: dict[str, str] = field(default_factory=dict)
    pin: Found | None = None  # the record or case citation this statement is attributed to
    refers_to: Found | None = None  # for short forms and Id.: the full citation they stand for
    owner: Found | None = None  # a date or amount that belongs to a citation or an opinion's quotation
    draft_start: int = 0  # span in the draft as written
    draft_end: int = 0


def link(
    items: list[Found], sentences: list[tuple[int, int]], text: str, breaks: tuple[int, ...] = ()
) -> None:
    """Attach each date, amount and quotation to the citation that supports it.

    Prefer a citation later in the same sentence ("... $84,000 (HPP-000001)"); then a citation
    sentence right after, in the same paragraph ("... 2024. See HPP-000004."); then one earlier
    in the same sentence. Never further: a citation two sentences on, or across a paragraph
    break, is not the source of a quotation.
    """
    cites = sorted((i for i in items if i.kind in RECORD_KINDS), key=lambda i: i.start)
    for statute in (c for c in cites if c.kind == "statute"):
        # "Smith, 1 F.3d 2, 3 (interpreting 18 U.S.C. § 5031). Id. at 4.": a statute in a case's
        # parenthetical explains the case; the Id. after it is the case's
        s_start = sentences[_sentence_of(sentences, statute.start)][0]
        opened = _open_parenthesis(text, s_start, statute.start)
        if opened is not None and any(c.kind == "case" and s_start <= c.end <= opened for c in cites):
            statute.fields["in_parenthetical"] = "1"
    for item in items:
        if item.kind not in PINNED_KINDS:
            continue
        s_start = sentences[_sentence_of(sentences, item.start)][0]
        opened = _open_parenthesis(text, s_start, item.start) if item.kind == "quotation" else None
        if opened is not None:
            # '529 U.S. 266, 273-74 (2000) ("We do not say ...")': a parenthetical's quotation is of
            # the authority it follows. Where that is no citation read here (an advisory committee's
            # note), no citation beyond the parenthetical's close is its source either.
            before = [c for c in cites if c.end <= opened and _PINS_THEN_PAREN.match(text, c.end, opened)]
            inside = [c for c in cites if item.end <= c.start < _closing(text, opened)]
            item.pin = before[-1] if before else (inside[0] if inside else None)
            continue
        # a quotation of several sentences ("claim. (Leg. Defs.' Br.") is cited after it closes
        index = _sentence_of(sentences, _last_word(text, item) if item.kind == "quotation" else item.start)
        s_end = sentences[index][1]
        later = [c for c in cites if item.end <= c.start < s_end]
        if item.kind == "quotation":
            later = [c for c in later if not _quote_between(text, item.end, c.start)]
        if later:
            item.pin = later[0]
            continue
        if index + 1 < len(sentences) and not any(s_end <= b <= sentences[index + 1][0] for b in breaks):
            n_start, n_end = sentences[index + 1]
            following = [c for c in cites if n_start <= c.start < n_end]
            if following and _opens_citation_sentence(text[n_start : following[0].start]):
                item.pin = following[0]
                continue
        earlier = [c for c in cites if s_start <= c.start and c.end <= item.start]
        if earlier:
            item.pin = earlier[-1]
    _mark_omitted_citations(items, cites, text)


def _mark_omitted_citations(items: list[Found], cites: list[Found], text: str) -> None:
    """A quotation of a case whose citation says "(cleaned up)" or "(citations omitted)" after it, before
    the next citation or quotation, may leave out the citations its source gives between its words."""
    for item in items:
        if item.kind != "quotation" or item.pin is None or item.pin.kind not in ("case", "id"):
            continue
        start = max(item.pin.end, item.end)
        stop = min([start + 200, *(c.start for c in cites if c.start >= start)])
        window = re.split(r"[\"“]|\n\n", text[start:stop], maxsplit=1)[0]
        if says_citations_omitted(window):
            item.fields["omits_citations"] = "1"


_CITATION_OPENING = re.compile(
    r"^\(?(?:(?:See|see|Cf\.|cf\.|Accord|But see|E\.g\.|See, e\.g\.)(?: also)?,? )?"
    r"(?:[^;]{0,120}? v\. [^;]{0,120}?, |(?:In re|Matter of|In the Matter of) [^;]{0,120}?, "
    r"|[A-Z][\w'’.&-]*(?: [\w'’.&-]+){0,5}, )?$"
)


def _opens_citation_sentence(lead: str) -> bool:
    """The words before a sentence's first citation are only a signal and a case name: it is a citation sentence."""
    return bool(_CITATION_OPENING.match(lead))


def _last_word(text: str, item: Found) -> int:
    """Where a quotation's words end, before its closing marks: inside its last sentence, as
    the closing mark after a sentence's period lies between two sentences."""
    at = item.end - 1
    while at > item.start and text[at] in "\"”’')]":
        at -= 1
    return at


# After a citation, before the parenthetical that explains it: its pins, parallel citations, court and year.
_PINS_THEN_PAREN = re.compile(
    r"(?:,\s*(?:at\s+)?[¶*]*\s*\d+(?:[-–]\d+)?(?:\s*(?:&\s*)?nn?\.\s?\d+(?:[-–]\d+)?)?)*"
    r"(?:,\s*\d+\s+[A-Z][\w.\s]{0,20}?\s+\d+(?:,\s*\d+(?:[-–]\d+)?)*)*\s*(?:\([^()]{0,80}\)\s*)?$"
)


def _open_parenthesis(text: str, start: int, end: int) -> int | None:
    """Where the parenthesis that is still open at ``end`` opened, within the sentence from ``start``."""
    opened: list[int] = []
    for at in range(start, end):
        if text[at] == "(":
            opened.append(at)
        elif text[at] == ")" and opened:
            opened.pop()
    return opened[-1] if opened else None


def _closing(text: str, opened: int) -> int:
    depth = 0
    for at in range(opened, len(text)):
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        if depth == 0:
            return at
    return len(text)


def _quote_between(text: str, start: int, end: int) -> bool:
    return any(q in text[start:end] for q in ('"', "“", "”"))


def _sentence_of(sentences: list[tuple[int, int]], position: int) -> int:
    for index, (start, end) in enumerate(sentences):
        if (position < end or index == len(sentences) - 1) and (position >= start or index == 0):
            return index
    return len(sentences) - 1


_PLAIN_PIN = re.compile(r"(?:at\s+)?(\d+)\b")


def pin_page(pin: str) -> int | None:
    """The page a pin names ("at 399", "631"); none for a star page, a paragraph or no pin at all."""
    m = _PLAIN_PIN.match(pin.strip())
    return int(m.group(1)) if m else None


def could_hold(full: Found, pin: int | None) -> bool:
    """Whether a pin page can lie in the opinion ``full`` cites: never on a page before its first."""
    page = full.fields.get("page", "")
    return pin is None or not page.isdigit() or int(page) <= pin


_PARENTHETICAL = re.compile(
    r"(?:,\s*(?:at\s+)?[¶*]*\s*\d+(?:[-–]\d+)?(?:\s*(?:&\s*)?nn?\.\s?\d+(?:[-–]\d+)?)?)*\s*\([^()]{0,80}\)"
)  # the pins before it may name a footnote: "275 n.1 (2011)"


def not_record_facts(items: list[Found], text: str) -> list[Found]:
    """Mark the dates and amounts that belong to a citation or to an opinion's words (``owner``).

    A date in a citation's parenthetical ("(Mo. Ct. App. Jan. 19, 2021)") is the decision's, and an
    amount inside a quotation of an opinion is the opinion's: neither is a fact of the matter's
    record, so neither is checked against it; each takes the verdict of what it belongs to.
    """
    owners: list[tuple[int, int, Found]] = []
    for item in items:
        if item.kind == "case":
            m = _PARENTHETICAL.match(text, item.end)
            if m:
                owners.append((item.end, m.end(), item))
        elif item.kind == "quotation" and item.pin is not None and item.pin.kind in ("case", "id", "statute"):
            target = item.pin.refers_to if item.pin.kind == "id" else item.pin
            if target is None or target.kind in ("case", "statute"):
                owners.append((item.start, item.end, item))
    for i in items:
        if i.kind in ("date", "amount"):
            owner = next((o for s, e, o in owners if s <= i.start and i.end <= e), None)
            if owner is not None:
                i.owner = owner
    return items
