"""The party scrub: a matter's names and identifiers become stable placeholders in every export.

A fine-tuning set leaves the office more easily than a client file (to a training box, a colleague,
a vendor), so the attorney can replace each party's names, e-mail addresses and other identifiers
with placeholders such as ``[PARTY-A]``. The matter keeps the list, so a name gets the same
placeholder in every export and every row, and within a row in the prompt, the draft and the final
text alike: a model trained on scrubbed data still sees who did what to whom.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corrections.errors import CorrectionsError
from corrections.party_forms import scrub_names
from corrections.store import add_party_name, party_list
from evidence.identifiers import Pattern

# The demo matter's parties (evidence/sample_matter.py), each with the variants its documents use.
SAMPLE_PARTIES: tuple[tuple[str, ...], ...] = (
    ("Harbor Point Provisions LLC", "Harbor Point Provisions", "Harbor Point"),
    ("Calder Refrigeration Systems, Inc.", "Calder Refrigeration Systems", "Calder Refrigeration"),
    ("Marcus Calder", "m.calder@calder-refrig.example"),
    ("14 Quay Street, Port Ellery", "14 Quay Street"),
)


def add_party(db_path: Path, matter: str, name: str, *, same_as: str | None = None) -> str:
    """Record ``name`` for ``matter``; returns its placeholder (``same_as``'s, for a variant of a name)."""
    name = " ".join(name.split())
    if not name:
        raise CorrectionsError("A party needs a name, e.g. --add 'Harbor Point Provisions LLC'.")
    known = party_list(db_path, matter)
    if name in known:
        return known[name]
    if same_as is not None:
        if same_as not in known:
            raise CorrectionsError(
                f"'{same_as}' is not a party of {matter} yet. Add it first, then add '{name}' with "
                f"--same-as '{same_as}'.",
                title="Unknown party",
            )
        placeholder = known[same_as]
    else:
        placeholder = _placeholder(len(set(known.values())))
    add_party_name(db_path, matter, name, placeholder)
    return placeholder


def add_parties(db_path: Path, matter: str, parties: tuple[tuple[str, ...], ...]) -> None:
    """Each tuple is one party: its main name first, then the variants that get the same placeholder."""
    for main, *variants in parties:
        add_party(db_path, matter, main)
        for variant in variants:
            add_party(db_path, matter, variant, same_as=main)


def _placeholder(index: int) -> str:
    letters = string.ascii_uppercase
    tag = letters[index % 26] + (str(index // 26) if index >= 26 else "")
    return f"[PARTY-{tag}]"


class Scrubber:
    """Replaces every piece of personal data ``patterns`` find (e-mail addresses, phone, card, account
    and social security numbers, dates of birth, street addresses) with its kind, e.g. ``[EMAIL]``, then
    every listed name and its shorter forms (party_forms.py), longest first, whole words only, ignoring
    case. A one-word form written all in lower case is an ordinary word in prose ("the seller", "a
    marsh") and stays; inside a file name or handle ("halvorsen-deposition.pdf") it is the name and goes.

    The patterns run first so an e-mail address goes whole ("m.calder@calder-refrig.example", not
    "m.[PARTY-C]@..."); one the attorney listed as a party's name gets that party's placeholder.
    Fields that are hashes or timestamps are left to the names alone: a run of digits inside a sha256 is
    not a social security number."""

    def __init__(self, names: Mapping[str, str], patterns: Sequence[Pattern] = ()) -> None:
        names = scrub_names(names)
        self.names = {_key(n): p for n, p in names.items()}
        ordered = sorted(names, key=len, reverse=True)
        alternatives = "|".join(r"\s+".join(map(_word, n.split())) for n in ordered)
        self.pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE) if ordered else None
        self.patterns = tuple(patterns)

    def text(self, value: str, *, personal_data: bool = True) -> str:
        if personal_data:
            for found in self.patterns:
                for start, end in sorted(found.spans(value), reverse=True):
                    listed = self.names.get(_key(value[start:end]))
                    value = value[:start] + (listed or f"[{found.name.upper()}]") + value[end:]
        if self.pattern is not None:
            value = self.pattern.sub(self._placeholder, value)
        return value

    def _placeholder(self, match: re.Match[str]) -> str:
        found = match.group(0)
        if found.islower() and " " not in found and not _in_a_handle(match):
            return found
        return self.names[_key(found)]

    def deep(self, value: Any, key: str = "") -> Any:
        """Every string inside lists and dicts (the keys are field names and stay)."""
        if isinstance(value, str):
            return self.text(value, personal_data=not _NOT_PROSE.search(key))
        if isinstance(value, list):
            return [self.deep(v, key) for v in value]
        if isinstance(value, dict):
            return {k: self.deep(v, k) for k, v in value.items()}
        return value


def _key(name: str) -> str:
    """One key for the spellings of a name the scrub treats alike: case, spacing and the apostrophe
    ("O'Keefe" typed, "O’Keefe" as a word processor writes it)."""
    return " ".join(name.replace("’", "'").split()).casefold()


def _word(word: str) -> str:
    return re.escape(word.replace("’", "'")).replace("'", "['’]")


def _in_a_handle(match: re.Match[str]) -> bool:
    """Whether the word is part of a file name, path or handle: joined to the next part by - / or a dot."""
    text, start, end = match.string, match.start(), match.end()
    before, after = text[start - 1 : start], text[end : end + 2]
    return (
        before in ("-", "/", "\\", ".")
        or after[:1] in ("-", "/", "\\")
        or (after[:1] == "." and after[1:2].isalnum())
    )


_NOT_PROSE = re.compile(r"sha256$|_at$|^server_build$")  # hashes and timestamps of the pairs export
