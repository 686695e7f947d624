"""Who the parties of a matter are, read from its own documents, for the attorney to confirm.

A scrub that replaces only the names he typed in by hand does nothing on a matter where he typed none,
so chambers proposes them. Names are taken only where documents state who is who: a caption ("X v. Y",
or X / Plaintiff / v. / Y / Defendant on separate lines), an agreement's preamble ("between X and Y"),
a letterhead (an organisation's name alone on one of the first lines), a signature (after "Sincerely,",
"/s/", "By:", "Signed for X:", "Received by:", or the sign-off that ends an e-mail), a defined term
(X ("Seller")), and the people party_people.py finds (deponents, counsel, letterheads, signature and
address blocks, every e-mail header on the page). Each proposal carries the shorter forms and defined
terms the documents also use ("Harbor Point" for "Harbor Point Provisions LLC", "Ms. Whitcombe" for
"Dana Whitcombe", "Seller"), because a scrub that misses the short form leaves the name in the text
all the same.

Nothing here reads the database: the input is the matter's page texts, so the rules can be tried on
any text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from corrections.party_names import (
    ORG,
    PERSON,
    is_person,
    main_form,
    name_key,
    organisation_core,
    plain_name,
)
from corrections.party_people import block_names, deposition_names, email_header_names, letterhead_people


@dataclass(frozen=True)
class MatterPage:
    """One page of the matter as the index holds it."""

    source: str  # the file's name, with an attachment's part
    kind: str  # pdf | docx | text | email
    page_no: int
    text: str


@dataclass
class ProposedParty:
    name: str  # the fullest form the documents use
    kind: str  # "organisation" or "person"
    variants: list[str] = field(default_factory=list)  # shorter forms found too; same placeholder
    found_in: list[str] = field(default_factory=list)  # "caption, deposition.pdf p. 1", at most a few

    def line(self) -> str:
        also = f" (also: {', '.join(self.variants)})" if self.variants else ""
        return f"{self.name}{also}  [{self.kind}; {'; '.join(self.found_in[:3])}]"


_CLOSING = re.compile(
    r"(?im)^[ \t]*(?:Sincerely(?: yours)?|(?:Best |Kind |Warm )?Regards|Very truly yours|"
    r"Yours (?:truly|faithfully|sincerely)|Respectfully(?: submitted)?|Thanks|Thank you|Best),?[ \t]*\n"
    rf"(?:[ \t]*\n)*[ \t]*(?:/s/[ \t]*)?(?P<name>{PERSON})[ \t,]*$"
)
_LABELLED_SIGNER = re.compile(
    rf"(?:/s/|\b(?:By|Name|Received by|Signed by|Signature)[ \t]*:)[ \t]*(?:/s/[ \t]*)?(?P<name>{PERSON})\b"
)
_SIGNED_FOR = re.compile(
    rf"Signed (?:for(?: and on behalf of)?|on behalf of)\s+(?P<org>{ORG})\s*:\s*(?P<name>{PERSON})\b"
)
_PREAMBLE = re.compile(
    rf"\bbetween\s+(?:(?:Mr|Ms|Mrs|Dr)\.?\s+)?(?P<a>{ORG}|{PERSON})"
    rf".{{0,400}}?\band\s+(?:(?:Mr|Ms|Mrs|Dr)\.?\s+)?(?P<b>{ORG}|{PERSON})",
    re.DOTALL,
)
_CAPTION_LINE = re.compile(
    r"^[ \t]*(?P<a>[A-Z][^\n]{1,100}?),?[ \t]+(?:v\.|vs\.?|versus)[ \t]+(?P<b>[A-Z][^\n]{1,100}?)[ \t,.;]*$",
    re.M,
)
_CAPTION_V = re.compile(r"^[ \t]*(?:v\.?|vs\.?|versus|-?[ \t]*against[ \t]*-?)[ \t]*$", re.I)
_PLAINTIFF = re.compile(r"^[ \t]*(?:Plaintiffs?|Petitioners?|Appellants?|Claimants?)\b", re.I)
_DEFENDANT = re.compile(r"^[ \t]*(?:Defendants?|Respondents?|Appellees?)\b", re.I)
# A defined term: Wexford Tile Co., a New Jersey corporation ("Seller"); Bellmont Builders LLC (the "Buyer").
_DEFINED = re.compile(
    rf"(?P<name>{ORG}|{PERSON})[^()\"“”;.]{{0,80}}?\(\s*(?:(?:hereinafter|collectively),?\s+)?"
    r"(?:referred\s+to\s+as\s+)?(?:the\s+)?[\"“](?P<term>[A-Z][\w&'’ .-]{1,40}?)[\"”]\s*\)"
)


def find_names(page: MatterPage) -> list[tuple[str, str]]:
    """Every (name, how it was found) on one page, in the order the rules run."""
    text = page.text
    found: list[tuple[str, str]] = []
    for match in _CAPTION_LINE.finditer(text):
        found += [(side, "caption") for side in (match["a"], match["b"])]
    found += [(name, "caption") for name in _stacked_caption(text.splitlines())]
    for match in _PREAMBLE.finditer(text):
        found += [(match["a"], "agreement"), (match["b"], "agreement")]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if page.page_no == 1 and page.kind != "email":
        found += [(line, "letterhead") for line in lines[:3] if re.fullmatch(ORG, line)]
        found += letterhead_people(lines)
    found += [(m["name"], "defined term") for m in _DEFINED.finditer(text)]
    found += deposition_names(text)
    found += [(m["name"], "signature") for m in _CLOSING.finditer(text)]
    found += block_names(lines)
    flat = " ".join(text.split())  # OCR puts words on lines of their own
    found += [(m["name"], "signature") for m in _LABELLED_SIGNER.finditer(flat)]
    for match in _SIGNED_FOR.finditer(flat):
        found += [(match["org"], "signature"), (match["name"], "signature")]
    found += email_header_names(text)
    if page.kind == "email":
        found += _sign_off(text)
    return [(plain_name(name), how) for name, how in found if plain_name(name)]


def defined_terms(text: str) -> list[tuple[str, str]]:
    """(name, the term the document defines for it): ("Wexford Tile Co.", "Seller")."""
    return [
        (plain_name(m["name"]), m["term"].strip()) for m in _DEFINED.finditer(text) if plain_name(m["name"])
    ]


def _stacked_caption(lines: list[str]) -> list[str]:
    """X, / Plaintiff, / v. / Y, / Defendant.: the name lines above "Plaintiff" and above "Defendant"."""
    names = []
    for index, line in enumerate(lines):
        if not _CAPTION_V.match(line) or index < 2 or not _PLAINTIFF.match(lines[index - 1]):
            continue
        names.append(lines[index - 2])
        for ahead in range(index + 1, min(index + 4, len(lines))):
            if _DEFENDANT.match(lines[ahead]):
                names.append(" ".join(lines[index + 1 : ahead]))
                break
    return names


def _sign_off(text: str) -> list[tuple[str, str]]:
    """The name alone on the first line of an e-mail's last paragraph."""
    body = text.partition("\n\n")[2]
    paragraphs = [p.strip() for p in re.split(r"\n[ \t]*\n", body) if p.strip()]
    if paragraphs:
        first = paragraphs[-1].splitlines()[0].strip()
        if is_person(first):
            return [(first, "e-mail signature")]
    return []


def propose_from_pages(pages: Iterable[MatterPage]) -> list[ProposedParty]:
    """The matter's parties, most often found first, each with the shorter forms its documents use."""
    by_key: dict[str, ProposedParty] = {}
    forms: dict[str, list[str]] = {}
    corpus: list[str] = []
    terms: list[tuple[str, str]] = []
    for page in pages:
        corpus.append(page.text)
        terms += defined_terms(page.text)
        for name, how in find_names(page):
            key = name_key(name)
            kind = "person" if is_person(name) else "organisation"
            party = by_key.setdefault(key, ProposedParty(name, kind))
            forms.setdefault(key, []).append(name)
            where = f"{how}, {page.source} p. {page.page_no}"
            if where not in party.found_in:
                party.found_in.append(where)
    for key, party in by_key.items():
        party.name = main_form(forms[key])
    parties = _merge_short_forms(list(by_key.values()))
    _add_terms(parties, terms)
    text = "\n".join(corpus)
    names = {name_key(p.name) for p in parties}
    taken: set[str] = set()  # a short form goes to one party only: the one found most often
    for party in sorted(parties, key=lambda p: -len(p.found_in)):
        own = name_key(party.name)
        party.variants = [
            v
            for v in _short_forms(party, text)
            if v.casefold() not in taken and (name_key(v) == own or name_key(v) not in names)
        ]
        taken.update(v.casefold() for v in party.variants)
    return sorted(parties, key=lambda p: (-len(p.found_in), p.name))


def _add_terms(parties: list[ProposedParty], terms: list[tuple[str, str]]) -> None:
    """Each defined term joins the party it was defined for: the scrub must replace "Seller" too."""
    for name, term in terms:
        key = name_key(name)
        party = next((p for p in parties if key in {name_key(f) for f in (p.name, *p.variants)}), None)
        if party is not None and term not in party.variants and name_key(term) != name_key(party.name):
            party.variants.append(term)


def _merge_short_forms(parties: list[ProposedParty]) -> list[ProposedParty]:
    """A proposal whose name begins a longer organisation's name ("Harbor Point") joins that one."""
    longest_first = sorted(parties, key=lambda p: -len(p.name))
    kept: list[ProposedParty] = []
    for party in longest_first:
        core = organisation_core(party.name).casefold()
        home = next(
            (
                k
                for k in kept
                if k.kind == "organisation"
                and (organisation_core(k.name).casefold() + " ").startswith(core + " ")
            ),
            None,
        )
        if home is None or party.kind == "person":
            kept.append(party)
            continue
        home.variants.append(party.name)
        home.found_in += [w for w in party.found_in if w not in home.found_in]
    return kept


def _short_forms(party: ProposedParty, text: str) -> list[str]:
    """Shorter forms of the name that the documents use on their own."""
    words = organisation_core(party.name).split() if party.kind == "organisation" else party.name.split()
    if party.kind == "organisation":
        candidates = [" ".join(words[:n]) for n in range(len(words), 0, -1)]
    else:
        candidates = [words[-1], words[0]] if len(words) > 1 else []
    wanted = [*party.variants, *candidates]
    out: list[str] = []
    for form in wanted:
        if form == party.name or form in out or len(form) < 3:
            continue
        if form in party.variants or _stands_alone(form, party.name, text):
            out.append(form)
    return out


def _stands_alone(form: str, name: str, text: str) -> bool:
    """Whether the documents use ``form`` outside the full name: "Tolland must repair it" for "Tolland
    Oven Works LLC", not just the full name again. One word counts only capitalised ("Harbor" is a
    word; "HARBOR POINT" on a letterhead is the name)."""
    words, parts = name.replace(",", "").split(), form.replace(",", "").split()
    at = next((i for i in range(len(words)) if words[i : i + len(parts)] == parts), -1)
    after = words[at + len(parts)] if 0 <= at < len(words) - len(parts) else None
    before = words[at - 1] if at > 0 else None
    flags = 0 if len(parts) == 1 else re.IGNORECASE
    pattern = r"(?<![\w-])" + r"\s+".join(map(re.escape, parts)) + r"(?![\w-])"
    for match in re.finditer(pattern, text, flags):
        tail = text[match.end() :].lstrip(" \t\n,").casefold()
        head = text[: match.start()].rstrip().casefold()
        if (after is None or not tail.startswith(after.casefold())) and (
            before is None or not head.endswith(before.casefold())
        ):
            return True
    return False
