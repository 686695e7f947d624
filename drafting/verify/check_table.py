"""Which check judges which statement: a table from each kind (and each form of a case citation) to its check.

Every check has its own arguments (the matter's sources, the library's opinions, its dockets, the
verdicts given so far); ``Checking`` carries them all, so each entry of the table is one function
of the statement and that context. A kind with no entry is a fault of the extractor, named as such,
never a statement silently judged by another kind's check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from drafting.verify.authorities import Opinion
from drafting.verify.checks_cases import check_belonging, check_case, check_dependent, check_statute
from drafting.verify.checks_record import (
    check_amount,
    check_bates,
    check_date,
    check_deposition,
    check_exhibit,
)
from drafting.verify.checks_sources import check_quotation, check_term
from drafting.verify.docket import check_docket
from drafting.verify.docket_key import docket_variants
from drafting.verify.found import Found
from drafting.verify.model import Flag, Kind
from drafting.verify.pins import full_of
from drafting.verify.sources import MatterSources, cite_key

AMOUNT_CONTEXT = 80  # characters either side of an amount that say whether it is arithmetic
DEPENDENT_FORMS = ("short", "supra")  # a case citation that stands for an earlier full one


@dataclass
class Checking:
    """What the checks of one draft are given: the matter, the library (None: none is set up), the draft,
    and the verdicts so far, which a short form, an Id. and a belonging date take from what they lean on."""

    sources: MatterSources
    draft: str
    opinions: dict[str, Opinion] | None = None
    authorities: MatterSources | None = None  # the library's own pages (statutes, quotations of opinions)
    dockets: dict[str, list[Opinion]] | None = None  # None: no library, not a library without dockets
    uncited: Sequence[Opinion] = ()
    verdicts: dict[int, Flag] = field(default_factory=dict)  # by ``id`` of the statement checked

    def verdict_of(self, item: Found | None) -> Flag | None:
        return self.verdicts.get(id(item)) if item is not None else None


Check = Callable[[Found, Checking], Flag]


def is_dependent(item: Found) -> bool:
    """An Id., a short form or a supra: it takes the verdict of the citation it stands for."""
    return item.kind == "id" or (item.kind == "case" and item.fields.get("form") in DEPENDENT_FORMS)


def check_one(item: Found, checking: Checking) -> Flag:
    """The flag of one statement; what it belongs to (a citation's year, a quotation's date) is checked first."""
    owner = checking.verdict_of(item.owner)
    if item.owner is not None and owner is not None:
        return check_belonging(item, item.owner, owner)
    check = CHECKS.get(item.kind)
    if check is None:  # the extractor made a kind the table lacks: a fault here, not the draft's
        raise KeyError(f"the verifier has no check for a statement of kind {item.kind!r} ({item.text!r})")
    return check(item, checking)


def _dependent(item: Found, checking: Checking) -> Flag:
    return check_dependent(item, checking.verdict_of(item.refers_to), _opinion_of(item, checking.opinions))


def _docket(item: Found, checking: Checking) -> Flag:
    return check_docket(item, checking.dockets)


def _full_case(item: Found, checking: Checking) -> Flag:
    """A reporter citation; one that also gives a docket number and names an unreported opinion the
    library holds by that number is checked by its docket."""
    if item.fields.get("docket") and checking.dockets is not None:
        slot = cite_key(item.fields["volume"], item.fields["reporter"], item.fields["page"])
        known = any(v in checking.dockets for v in docket_variants(item.fields["docket"]))
        if known and slot not in (checking.opinions or {}):
            return check_docket(item, checking.dockets)
    return check_case(item, checking.opinions, checking.uncited)


# A case citation's form ("full", "short", "supra", "docket") picks its check; a form not listed is a full one.
CASE_FORMS: dict[str, Check] = {"short": _dependent, "supra": _dependent, "docket": _docket}


def _case(item: Found, checking: Checking) -> Flag:
    return CASE_FORMS.get(item.fields.get("form", "full"), _full_case)(item, checking)


def _amount(item: Found, checking: Checking) -> Flag:
    start, end = max(0, item.draft_start - AMOUNT_CONTEXT), item.draft_end + AMOUNT_CONTEXT
    return check_amount(item, checking.sources, checking.draft[start:end])


def _quotation(item: Found, checking: Checking) -> Flag:
    return check_quotation(item, checking.sources, checking.opinions, checking.authorities, checking.dockets)


CHECKS: dict[Kind, Check] = {
    "case": _case,
    "id": _dependent,
    "statute": lambda item, checking: check_statute(item, checking.authorities),
    "bates": lambda item, checking: check_bates(item, checking.sources),
    "deposition": lambda item, checking: check_deposition(item, checking.sources),
    "exhibit": lambda item, checking: check_exhibit(item, checking.sources),
    "date": lambda item, checking: check_date(item, checking.sources),
    "amount": _amount,
    "quotation": _quotation,
    "term": lambda item, checking: check_term(item, checking.sources),
}


def _opinion_of(item: Found, opinions: dict[str, Opinion] | None) -> Opinion | None:
    """The library's opinion a short form, supra or Id. ends at, through what it stands for."""
    full = full_of(item)
    if opinions is None or full.kind != "case" or full.fields.get("form") != "full":
        return None
    return opinions.get(cite_key(full.fields["volume"], full.fields["reporter"], full.fields["page"]))
