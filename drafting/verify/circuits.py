"""Which federal court of appeals decided an opinion, as its head names it and as a citation gives it.

A real reporter slot under the right name is not yet the case cited: "(2d Cir. 2010)" for an opinion of
the First Circuit is another decision or none. The head of a court of appeals' opinion names its court in
every vendor's and court's layout ("United States Court of Appeals, First Circuit.", "UNITED STATES COURT
OF APPEALS FOR THE SECOND CIRCUIT", the line numbers of pleading paper between). A head that names two
circuits so (a writ of certiorari "to the United States Court of Appeals for the Ninth Circuit" above
another) names none: the check is made only where the court is certain.
"""

from __future__ import annotations

import re

_ORDINALS = {
    "first": "1st",
    "second": "2d",
    "third": "3d",
    "fourth": "4th",
    "fifth": "5th",
    "sixth": "6th",
    "seventh": "7th",
    "eighth": "8th",
    "ninth": "9th",
    "tenth": "10th",
    "eleventh": "11th",
    "district of columbia": "D.C.",
    "federal": "Fed.",
}
_NAMES = "|".join(name.replace(" ", r"\s+") for name in _ORDINALS)
_HEAD = re.compile(
    rf"court\s+of\s+appeals[\s,.\d]{{0,60}}?(?:for\s+the\s+)?({_NAMES})\s+circuit\b", re.IGNORECASE
)
_CITED = re.compile(r"(?<![\w.])(1st|2d|2nd|3d|3rd|[4-9]th|10th|11th|D\.\s?C\.|Fed\.)\s?Cir\.")
HEAD_CHARS = 4000


# "... certiorari to the United States Court of Appeals for the Tenth Circuit", "on petition for review of
# an order of the Board ... within the Ninth Circuit": the court the case came from, not the one deciding it
_ANOTHER_COURT = re.compile(
    r"\b(?:to|from|of|by|in|before|within)\s+the\s+(?:united\s+states\s+)?$", re.IGNORECASE
)


def circuit_of_head(head: str) -> str:
    """The circuit ("1st", "D.C.") whose court of appeals the head names as its own, if exactly one."""
    head = head[:HEAD_CHARS]
    named = {
        _ORDINALS[re.sub(r"\s+", " ", m[1].lower())]
        for m in _HEAD.finditer(head)
        if not _ANOTHER_COURT.search(head[max(0, m.start() - 40) : m.start()])
    }
    return named.pop() if len(named) == 1 else ""


def circuit_cited(parenthetical: str) -> str:
    """The circuit a citation's parenthetical gives ("1st Cir. 2010", "2nd Cir. Oct. 16, 2008"), or ""."""
    match = _CITED.search(parenthetical)
    if match is None:
        return ""
    written = match[1].replace(" ", "")
    return {"2nd": "2d", "3rd": "3d"}.get(written, written)
