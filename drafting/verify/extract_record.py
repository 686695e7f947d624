"""Record statements in a draft: Bates cites, exhibits, deposition cites, dates, amounts, quotations.

Bates-shaped tokens are taken whatever their prefix: a model once cited "RTX 3060" as a Bates
number, so a token with a prefix the matter does not use is extracted and judged, never ignored.
"""

from __future__ import annotations

import re

from drafting.verify.dates import date_ranges, find_dates
from drafting.verify.found import Found
from drafting.verify.model import Kind

# A prefix ends with a letter: ``ABC0001234`` is ABC and 0001234, never ABC000 and 1234.
_BATES = re.compile(
    r"\b(?P<prefix>[A-Z][A-Z0-9]{0,10}[A-Z])(?P<sep>[-_ ]?)(?P<num>\d{3,9})\b"
    r"(?:\s*(?:-|–|—|to|through|\.\.)\s*(?:(?P<prefix2>[A-Z][A-Z0-9]{0,10}[A-Z])[-_ ]?)?(?P<num2>\d{1,9})\b)?"
)
# Courts, agencies and reporters whose abbreviation comes before a year or a number in a citation.
NOT_BATES = frozenset(
    [
        "BIA",
        "AAO",
        "BAP",
        "TTAB",
        "NLRB",
        "MSPB",
        "EEOC",
        "FLRA",
        "ALJ",
        "OALJ",
        "ARB",
        "BALCA",
        "PTAB",
        "WL",
        "LEXIS",
        "USC",
        "CFR",
        "FR",
        "FRD",
        "USPQ",
        "ILR",
    ]
)
_COURT_YEAR = re.compile(r"(?:1[89]|20)\d\d\)")
_CITE_CONTEXT_BEFORE = re.compile(
    r"(?:\(|\bsee\s+(?:also\s+)?|\bat\s+|\bcf\.\s+|\bid\.\s+at\s+|;\s+|\bbates\s+(?:no\.\s*)?)$", re.I
)
_CITE_CONTEXT_AFTER = re.compile(r"^\s*(?:\)|;|,\s*at\b)")
_EXHIBIT = re.compile(
    r"\b(?:Ex(?:h)?s?\.|Exhibit)\s+(?P<ex>[A-Z]{1,2}|\d{1,3}[A-Z]?)\b(?:,?\s+at\s+(?P<page>\d{1,4}))?"
)
_DEPOSITION = re.compile(
    r"\b(?P<name>[A-Z][A-Za-z'\-]+)\s+Dep\.\s*(?:Tr\.\s*)?(?:at\s+)?(?P<page>\d{1,4}):(?P<line>\d{1,3})"
    r"(?:\s*[-–]\s*(?:(?P<page2>\d{1,4}):)?(?P<line2>\d{1,3}))?"
)
_MONEY = re.compile(
    r"\$\s?(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<cents>\d{2}))?(?:\s+(?P<scale>million|billion|thousand)\b)?",
    re.I,
)
# A straight mark opens a quotation only where one can open (not after a word or a closing mark) and
# closes it only after a word or a mark: an odd mark earlier in a draft ('12" pipe') then does not
# turn every later quotation inside out, the words between two quotations taken for one.
_QUOTE = re.compile(r"(?<![\w.,;:!?)\]\"])\"(?=\S)(?P<q1>[^\"]{3,}?)(?<=\S)\"(?!\w)|“(?P<q2>[^”]{3,}?)”")
_SCALE = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
MIN_QUOTE_WORDS = 3
ID_CITE = re.compile(r"\b[Ii]d\.(?:\s+at\s+(?P<pin>\d+(?::\d+)?))?")


def extract_record(text: str, known_prefixes: frozenset[str]) -> list[Found]:
    items: list[Found] = []
    items += _bates(text, known_prefixes)
    # Each expression scans the whole text; one whose fixed words are absent is not run at all.
    items += [
        Found("exhibit", m.start(), m.end(), m.group(), {"exhibit": m["ex"], "page": m["page"] or ""})
        for m in (_EXHIBIT.finditer(text) if "Ex" in text else ())
    ]
    for m in _DEPOSITION.finditer(text) if "Dep." in text else ():
        items.append(
            Found(
                "deposition",
                m.start(),
                m.end(),
                m.group(),
                {
                    "deponent": m["name"],
                    "page": m["page"],
                    "line": m["line"],
                    "page2": m["page2"] or m["page"],
                    "line2": m["line2"] or m["line"],
                },
            )
        )
    items += _dates(text)
    items += _money(text) if "$" in text else []
    items += _quotations(text)
    return items


def _bates(text: str, known: frozenset[str]) -> list[Found]:
    out = []
    for m in _BATES.finditer(text):
        prefix = m["prefix"]
        if m["prefix2"] and m["prefix2"] != prefix:
            continue
        if prefix in NOT_BATES or (m["sep"] == " " and _COURT_YEAR.match(text, m.start("num"))):
            continue  # "(BIA 2015)", "2019 WL 4639462": a court and a year, a database number
        fields = {
            "prefix": prefix,
            "first": str(int(m["num"])),
            "last": str(int(m["num"])),
            "digits": m["num"],
            "sep": m["sep"],
        }
        if m["num2"]:
            # HPP-000004-06: a short second end replaces the tail digits of the first.
            tail = m["num2"]
            full = m["num"][: max(0, len(m["num"]) - len(tail))] + tail
            fields["last"] = str(int(full))
        fields["known"] = "1" if prefix in known else "0"
        before = text[max(0, m.start() - 16) : m.start()]
        after = text[m.end() : m.end() + 8]
        cited = bool(_CITE_CONTEXT_BEFORE.search(before) or _CITE_CONTEXT_AFTER.match(after) or m["num2"])
        padded = len(m["num"]) >= 5 and m["num"].startswith("0")
        fields["cited"] = "1" if cited or padded else "0"
        out.append(Found("bates", m.start(), m.end(), m.group(), fields))
    return out


def _dates(text: str) -> list[Found]:
    found = find_dates(text)
    ranges = {id(a): b for a, b in date_ranges(text, found)}
    out = []
    for d in found:
        fields = {"iso": d.iso or "", "approximate": "1" if d.approximate else "0"}
        if id(d) in ranges:
            fields["range_to"] = ranges[id(d)].iso or ""
        out.append(Found("date", d.start, d.end, d.text, fields))
    return out


def money_cents(match: re.Match[str]) -> int:
    whole = int(match["whole"].replace(",", ""))
    cents = int(match["cents"] or 0)
    scale = _SCALE.get((match["scale"] or "").lower(), 1)
    return (whole * 100 + cents) * scale


def _money(text: str) -> list[Found]:
    return [
        Found("amount", m.start(), m.end(), m.group(), {"cents": str(money_cents(m))})
        for m in _MONEY.finditer(text)
    ]


def _quotations(text: str) -> list[Found]:
    out = []
    for m in _QUOTE.finditer(text):
        quoted = m["q1"] or m["q2"] or ""
        # One or two words are a defined term or a word in quotes: still looked up, never ignored.
        kind: Kind = "quotation" if len(quoted.split()) >= MIN_QUOTE_WORDS else "term"
        out.append(Found(kind, m.start(), m.end(), m.group(), {"quote": quoted}))
    return out


def find_money(text: str) -> list[int]:
    """Every amount in a source page, in cents (for the evidence index)."""
    return [money_cents(m) for m in _MONEY.finditer(text)]
