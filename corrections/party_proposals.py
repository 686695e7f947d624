"""Proposing a matter's parties from its indexed documents, and recording the ones he confirms.

Confirmed names go into the same list as names he adds by hand (scrub.py), each proposal's shorter
forms with its placeholder, so an export scrubs every form a document uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from corrections.errors import CorrectionsError
from corrections.party_finder import MatterPage, ProposedParty, propose_from_pages
from corrections.scrub import add_party, party_list
from evidence.matters import get_matter
from evidence.pages import matter_page_texts


def check_matter(db_path: Path, matter: str) -> None:
    """evidence.errors.MatterNotFound, naming the known matters, unless ``matter`` is one: parties stored
    under a misspelt name would be read by no export, and the scrub would miss them."""
    get_matter(db_path, matter)


def propose_parties(db_path: Path, matter: str) -> list[ProposedParty]:
    """The parties the matter's documents name (evidence.errors.MatterNotFound for an unknown matter)."""
    pages = (MatterPage(*row) for row in matter_page_texts(db_path, matter))
    return propose_from_pages(pages)


def unconfirmed(db_path: Path, matter: str, proposals: Sequence[ProposedParty]) -> list[ProposedParty]:
    """The proposals whose name is not in the matter's party list yet."""
    known = {name.casefold() for name in party_list(db_path, matter)}
    return [p for p in proposals if p.name.casefold() not in known]


def choose(proposals: Sequence[ProposedParty], numbers: str) -> list[ProposedParty]:
    """The proposals numbered (from 1, as listed) in ``numbers``: "all", or e.g. "1,3,4"."""
    if numbers.strip().casefold() == "all":
        return list(proposals)
    chosen = []
    for item in numbers.split(","):
        item = item.strip()
        if not item.isdigit() or not 1 <= int(item) <= len(proposals):
            raise CorrectionsError(
                f"'{item}' is not one of the proposals (1 to {len(proposals)}). Give their numbers as "
                "listed by --propose, e.g. --confirm 1,3, or --confirm all.",
                title="No such proposal",
            )
        chosen.append(proposals[int(item) - 1])
    return chosen


def confirm_parties(db_path: Path, matter: str, chosen: Sequence[ProposedParty]) -> dict[str, str]:
    """Add each chosen party and its shorter forms; returns every name added with its placeholder."""
    added: dict[str, str] = {}
    for party in chosen:
        added[party.name] = add_party(db_path, matter, party.name)
        for variant in party.variants:
            added[variant] = add_party(db_path, matter, variant, same_as=party.name)
    return added
