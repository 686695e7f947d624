"""Which federal district court decided an opinion, as its head names it and as a citation gives it.

As with circuits, a real slot under the right name is not yet the case cited: "(S.D.N.Y. 2012)" for an
opinion of the Central District of California is another decision or none. A district court's head names
its court in every layout: "UNITED STATES DISTRICT COURT / CENTRAL DISTRICT OF CALIFORNIA", "United States
District Court, M.D. North Carolina.", "U.S. District Court — Eastern District of North Carolina". A head
that names two districts so (a case transferred from one to the other) names none, and a head that names a
court of appeals is an appellate opinion's, whose district is the court below: neither is compared.
A district is told by its state and its part of it ("c|california"; "|new jersey" for a state that is one
district).
"""

from __future__ import annotations

import re

from drafting.verify.case_names import GEOGRAPHIC_WORDS

HEAD_CHARS = 1500  # the caption block: further on, an opinion names other courts (the one a case came from)
_UNABBREVIATED = ("alaska", "hawaii", "idaho", "iowa", "ohio", "utah", "guam")  # table T10 writes them whole
_CITIES = {"baltimore", "boston", "dallas", "miami", "phoenix", "los angeles", "philadelphia", "pittsburgh"}
_CITIES |= {"san francisco", "chicago", "united states"}
_STATES = ({*GEOGRAPHIC_WORDS.values()} - _CITIES) | set(_UNABBREVIATED)
_STATE_NAMES = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(_STATES, key=len, reverse=True))
_PARTS = {"northern": "n", "southern": "s", "eastern": "e", "western": "w", "middle": "m", "central": "c"}
_HEAD_NAMED = re.compile(
    rf"\b(?:(northern|southern|eastern|western|middle|central)\s+)?district\s+of\s+({_STATE_NAMES})\b",
    re.IGNORECASE,
)
_HEAD_ABBREVIATED = re.compile(
    rf"district\s+court,\s+(?:([NSEWMC])\.\s?)?D\.\s?({_STATE_NAMES})\b", re.IGNORECASE
)
_DISTRICT_COURT = re.compile(r"district\s+court", re.IGNORECASE)
_APPELLATE = re.compile(r"court\s+of\s+appeals?|supreme\s+court", re.IGNORECASE)
_ANOTHER_COURT = re.compile(
    r"\b(?:to|from|by|within|removed|transferred)\s+the\s+(?:united\s+states\s+)?$", re.I
)


def _written(abbreviation: str) -> str:
    """Table T10's key as a citation writes it: "n.y" is "N.Y.", "w. va" is "W. Va.", "cal" is "Cal."."""
    return re.sub(r"(?:^|(?<=[\s.]))[a-z]", lambda m: m[0].upper(), abbreviation) + "."


_ABBREVIATED = {_written(a): n for a, n in GEOGRAPHIC_WORDS.items() if n in _STATES}
_ABBREVIATED |= {n.title(): n for n in _UNABBREVIATED if n != "hawaii"}  # "Haw." is in the table
_CITED_STATES = "|".join(
    re.escape(a).replace(r"\.", r"\.\s?").replace(r"\ ", r"\s?")
    for a in sorted(_ABBREVIATED, key=len, reverse=True)
)
_CITED = re.compile(rf"(?<![\w.])(?:([NSEWMC])\.\s?)?D\.\s?({_CITED_STATES})(?![a-z])")
_SPACES = re.compile(r"[\s.]+")


def _state_of_written(written: str) -> str:
    plain = _SPACES.sub("", written).lower()
    return next((n for a, n in _ABBREVIATED.items() if _SPACES.sub("", a).lower() == plain), "")


def district_of_head(head: str) -> str:
    """The district ("c|california") whose court the head names as its own, if exactly one; else ""."""
    head = head[:HEAD_CHARS]
    if not _DISTRICT_COURT.search(head) or _APPELLATE.search(head):
        return ""
    named = {
        f"{_PARTS.get(m[1].lower(), '') if m[1] else ''}|{' '.join(m[2].lower().split())}"
        for m in _HEAD_NAMED.finditer(head)
        if not _ANOTHER_COURT.search(head[max(0, m.start() - 60) : m.start()])
    }
    named |= {
        f"{(m[1] or '').lower()}|{' '.join(m[2].lower().split())}" for m in _HEAD_ABBREVIATED.finditer(head)
    }
    return named.pop() if len(named) == 1 else ""


def district_cited(parenthetical: str) -> str:
    """The district a citation's parenthetical gives ("S.D.N.Y. 2012", "D. Mass."), as ``district_of_head``
    names it; "" where it names none (a circuit, a state court)."""
    match = _CITED.search(parenthetical)
    if match is None:
        return ""
    return f"{(match[1] or '').lower()}|{_state_of_written(match[2])}"


def district_name(key: str) -> str:
    """ "c|california" as a person reads it: "the Central District of California"."""
    part, state = key.split("|")
    words = {v: k for k, v in _PARTS.items()}
    place = "Columbia" if state == "district of columbia" else state.title()
    return f"the {words[part].title() + ' ' if part else ''}District of {place}"
