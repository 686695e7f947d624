"""A docket number as one key, however it is printed: "11–345" and "11-345", "ED 108783" and "ED108783"."""

from __future__ import annotations

import re


def docket_key(docket: str) -> str:
    return re.sub(r"[\s–]", lambda m: "-" if m.group() == "–" else "", docket).upper().strip("-.")


_OFFICE = re.compile(r"^\d{1,2}:")  # a federal court's office number: "1:12-cv-05708"
# The judges' initials a court appends, the district judge's and the magistrate judge's:
# "...-JSR", "...-FL", "...-GW-FFM", "...-CAS-KSX" (a C.D. Cal. magistrate's "x").
_JUDGE = re.compile(r"(?:-[A-Z]{2,4})+$")


def docket_variants(key: str) -> list[str]:
    """The forms one docket number is cited in: with and without the office number and the
    judge's initials, as a court's stamp and a brief's "No. 12-cv-05708" write it."""
    bare = _JUDGE.sub("", _OFFICE.sub("", key))
    return list(dict.fromkeys([key, _OFFICE.sub("", key), _JUDGE.sub("", key), bare]))
