"""A docket number as one key, however it is printed: "11–345" and "11-345", "ED 108783" and "ED108783"."""

from __future__ import annotations

import re

# The Southern and Eastern Districts of New York cite a case as "12 Civ. 5708" or "09 Cr. 1184", the
# number its stamp prints as "1:12-cv-05708".
_NEW_YORK_FORM = re.compile(r"^(\d{2})\s+(Civ|Cr|Crim)\.\s+(\d+)$", re.IGNORECASE)


def docket_key(docket: str) -> str:
    new_york = _NEW_YORK_FORM.match(docket.strip())
    if new_york:
        kind = "CV" if new_york[2].lower() == "civ" else "CR"
        return f"{new_york[1]}-{kind}-{new_york[3]}"
    return re.sub(r"[\s–]", lambda m: "-" if m.group() == "–" else "", docket).upper().strip("-.")


_OFFICE = re.compile(r"^\d{1,2}:")  # a federal court's office number: "1:12-cv-05708"
# The judges' initials a court appends, the district judge's and the magistrate judge's:
# "...-JSR", "...-FL", "...-GW-FFM", "...-CAS-KSX" (a C.D. Cal. magistrate's "x").
_JUDGE = re.compile(r"(?:-[A-Z]{2,4})+$")


def docket_variants(key: str) -> list[str]:
    """The forms one docket number is cited in: with and without the office number, the judge's
    initials and the zeros that pad the case number, as a court's stamp and a brief's "No. 12-cv-5708"
    write it."""
    bare = _JUDGE.sub("", _OFFICE.sub("", key))
    forms = [key, _OFFICE.sub("", key), _JUDGE.sub("", key), bare]
    return list(dict.fromkeys([*forms, *(_ZEROS.sub("", form) for form in forms)]))


# A federal case number is printed padded to five digits ("12-cv-05708") and cited without ("12-cv-5708").
_ZEROS = re.compile(r"(?<=-(?:CV|CR|MC|MJ|PO)-)0+(?=\d)")
