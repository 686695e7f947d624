"""What a party's name looks like, and how two spellings of one name are recognised as the same.

Organisations end in a company form (LLC, Inc., Corp., LLP, Ltd., ...); people are two or three
capitalised words, or an initial and a surname. Role words ("the Buyer", "Operations Director") and
cited cases ("See Smith v. Jones, 123 F.3d 456") are not names of the matter's parties.
"""

from __future__ import annotations

import re
from collections import Counter

_SUFFIXES = {
    "llc": "LLC",
    "l.l.c.": "L.L.C.",
    "inc": "Inc.",
    "inc.": "Inc.",
    "incorporated": "Incorporated",
    "corp": "Corp.",
    "corp.": "Corp.",
    "corporation": "Corporation",
    "co.": "Co.",
    "company": "Company",
    "ltd": "Ltd.",
    "ltd.": "Ltd.",
    "limited": "Limited",
    "llp": "LLP",
    "l.l.p.": "L.L.P.",
    "lp": "LP",
    "l.p.": "L.P.",
    "pllc": "PLLC",
    "p.c.": "P.C.",
    "pc": "PC",
    "n.a.": "N.A.",
    "gmbh": "GmbH",
    "plc": "plc",
}
SUFFIX = (
    r"(?:(?i:L\.L\.C\.|L\.L\.P\.|L\.P\.|P\.C\.|N\.A\.|LLC|LLP|PLLC|Inc\.?|Corp\.?|Ltd\.?|GmbH|plc|LP|PC)"
    r"|(?i:Incorporated|Corporation|Company|Limited)|C[Oo]\.)"
)
_ORG_WORD = r"(?:[A-Z][A-Za-z'’&.-]*|&|of)"
ORG = rf"[A-Z][A-Za-z'’&.-]*(?:\s+{_ORG_WORD}){{0,6}}?,?\s+{SUFFIX}(?![A-Za-z])"
_PERSON_WORD = r"[A-Z](?:[a-z]+|['’][A-Z][a-z]+)(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?"
PERSON = rf"(?:{_PERSON_WORD}|[A-Z]\.)(?:[ \t]+[A-Z]\.)?(?:[ \t]+{_PERSON_WORD}){{1,2}}"
# A person's name in capitals, as captions and appearances print it ("GREGORY HALVORSEN", "THOMAS O'KEEFE").
CAPS_PERSON = r"[A-Z][A-Z'’-]+(?:[ \t]+[A-Z]\.)?(?:[ \t]+[A-Z][A-Z'’-]+){1,2}(?![A-Za-z])"

_NOT_FIRST = {
    "the",
    "this",
    "that",
    "these",
    "those",
    "each",
    "such",
    "any",
    "our",
    "your",
    "his",
    "her",
    "their",
    "its",
    "dear",
    "re",
    "subject",
    "date",
    "from",
    "to",
    "see",
    "cf",
    "in",
    "on",
    "at",
    "by",
    "and",
    "q",
    "a",
    "an",
    "under",
    "per",
    "for",
    "with",
}
_ROLE_WORDS = {
    "buyer",
    "seller",
    "purchaser",
    "vendor",
    "lessor",
    "lessee",
    "licensor",
    "licensee",
    "employer",
    "employee",
    "party",
    "parties",
    "plaintiff",
    "plaintiffs",
    "defendant",
    "defendants",
    "agreement",
    "director",
    "manager",
    "president",
    "officer",
    "counsel",
    "secretary",
    "partner",
    "associate",
    "attorney",
    "esq",
    "operations",
    "project",
    "street",
    "road",
    "avenue",
    "court",
    "deposition",
    "invoice",
    "receipt",
    "exhibit",
    "section",
    "notice",
    "warranty",
    "completion",
    "date",
    "team",
    "judge",
    "honor",
    "state",
    "county",
    "district",
    "circuit",
    "united",
    "states",
    "department",
}
_TITLES = re.compile(r"^(?:Mr|Ms|Mrs|Miss|Dr|Hon|Judge)\.?\s+")
# A signature block's next label, read onto the name's line where the lines were joined: "Thomas Reed Name".
_LABEL_TAIL = re.compile(r"\s+(?:Name|Title|By|Its|Date|Signature|Print(?:ed)?(?: Name)?)$")


def plain_name(raw: str) -> str:
    """The name as it should be listed, or "" when it is not a party's name at all."""
    name = " ".join(raw.split())
    name = re.sub(r",?\s+et\s+al\.?$", "", name, flags=re.I)
    name = _LABEL_TAIL.sub("", _TITLES.sub("", name)).strip(" ,;:")
    if name.endswith(".") and not re.search(rf"(?:{SUFFIX}|\b[A-Z]\.)$", name):
        name = name[:-1]
    words = name.split()
    if not 1 <= len(words) <= 10 or re.search(r"\d|@", name) or len(name) < 3:
        return ""
    if words[0].casefold().strip(".,") in _NOT_FIRST:
        return ""
    if any(w.casefold().strip(".,'’s") in _ROLE_WORDS for w in words):
        return ""
    if name.isupper():
        name = " ".join(
            _SUFFIXES.get(w.casefold().strip(","), w.title()) + ("," if w.endswith(",") else "")
            for w in words
        )
        name = name.replace(",,", ",")
    last = name.split()[-1]
    if last.casefold() in _SUFFIXES:
        name = name[: -len(last)] + _SUFFIXES[last.casefold()]
    return name


def organisation_core(name: str) -> str:
    """The name without its company form: "Calder Refrigeration Systems, Inc." -> "Calder Refrigeration Systems"."""
    return re.sub(rf",?\s+{SUFFIX}$", "", name).strip(" ,")


def is_organisation(name: str) -> bool:
    return organisation_core(name) != name.strip(" ,")


def is_person(name: str) -> bool:
    if is_organisation(name) or not re.fullmatch(PERSON, name.strip()):
        return False
    return bool(plain_name(name))


def name_key(name: str) -> str:
    """One key for every spelling of a name: case, commas, periods, the apostrophe's shape and the company
    form ignored."""
    core = organisation_core(" ".join(name.replace("’", "'").split()))
    return " ".join(re.sub(r"[.,]", " ", core).casefold().split())


def main_form(forms: list[str]) -> str:
    """The spelling to list: one with its company form, then the most used, then the longest."""
    counts = Counter(forms)
    return max(counts, key=lambda f: (is_organisation(f), counts[f], len(f)))
