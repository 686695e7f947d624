"""The date a docket citation gives, in the forms an opinion prints it.

A docket number names a case, not one decision: a library may hold several orders of one case
("No. 5:17-cv-00072": an order on Daubert motions, then one on motions in limine). The citation's
parenthetical dates the one it means ("N.D. Cal. Apr. 17, 2020"); the order prints that date in
words ("Dated: April 17, 2020") or in its ECF stamp ("Filed 04/17/20").
"""

from __future__ import annotations

import re

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_CITED_DATE = re.compile(
    r"\b(?P<month>Jan|Feb|Mar|Apr|May|June?|July?|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?\s+(?P<day>\d{1,2}),\s*"
    r"(?P<year>(?:19|20)\d\d)\b"
)
_PRINTED_DATE = re.compile(
    r"\b(?P<month>January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?\s+(?P<day>\d{1,2}),\s*(?P<year>(?:19|20)\d\d)\b"
    r"|\b(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>(?:19|20)?\d\d)\b"
)


def cited_date(paren: str) -> tuple[int, int, int] | None:
    """(year, month, day) of a citation's parenthetical, "Apr. 17, 2020"; None where it gives no full date."""
    found = _CITED_DATE.search(paren)
    if found is None:
        return None
    return int(found["year"]), _MONTHS.index(found["month"][:3].lower()) + 1, int(found["day"])


def without_date(paren: str) -> str:
    """The parenthetical less its date: the court alone ("N.D. Cal."), whose words may name an opinion's court."""
    return _CITED_DATE.sub("", paren)


def printed_dates(text: str) -> set[tuple[int, int, int]]:
    """Every full date the text prints, in words or as a stamp's MM/DD/YY."""
    out = set()
    for m in _PRINTED_DATE.finditer(text):
        if m["month"]:
            out.add((int(m["year"]), _MONTHS.index(m["month"][:3].lower()) + 1, int(m["day"])))
        elif 1 <= int(m["m"]) <= 12 and 1 <= int(m["d"]) <= 31:
            year = (
                int(m["y"])
                if len(m["y"]) == 4
                else 2000 + int(m["y"])
                if int(m["y"]) < 50
                else 1900 + int(m["y"])
            )
            out.add((year, int(m["m"]), int(m["d"])))
    return out
