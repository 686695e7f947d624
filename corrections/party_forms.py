"""The shorter forms a confirmed name is written in, for the scrub to replace with the name's placeholder.

A letter says "Wexford" for "Wexford Tile Co.", "Bellmont Builders" without its "LLC", and "Mr. O'Keefe" for
"Thomas O'Keefe"; the attorney's own edit does too, though the matter's documents may never have used
that form. So every name in the list brings its forms with it, whether he confirmed a proposal or typed it:
an organisation its name without the company form and that name's leading words ("Wexford Tile",
"Wexford"), a person the surname and the first name.

A form he listed himself always keeps its own placeholder; one derived from two parties' names ("Calder",
of "Calder Refrigeration, Inc." and "Marcus Calder") goes to the one listed first, as a scrub that left it
would leave the name.
"""

from __future__ import annotations

from collections.abc import Mapping

from corrections.party_names import is_organisation, is_person, organisation_core

# Leading words too common to stand for a company on their own: "First" of "First Federal Bank, N.A.".
_NOT_ALONE = {
    "the",
    "a",
    "an",
    "first",
    "second",
    "third",
    "new",
    "old",
    "great",
    "north",
    "south",
    "east",
    "west",
    "central",
    "national",
    "american",
    "united",
    "general",
    "global",
    "international",
    "pacific",
    "atlantic",
    "royal",
    "standard",
    "premier",
    "best",
    "all",
    "one",
    "true",
    "home",
    "city",
    "state",
    "county",
    "mr",
    "ms",
    "mrs",
    "dr",
    "st",
    "mount",
    "saint",
    "lake",
    "river",
    "park",
}
_JOINERS = {"&", "and", "of", "the", "for"}


def derived_forms(name: str) -> list[str]:
    """The shorter forms of one listed name, longest first (none for an address, an e-mail or a term)."""
    if is_organisation(name):
        words = organisation_core(name).split()
        forms = [" ".join(words[:n]) for n in range(len(words), 0, -1)]
        return [
            f
            for f in forms
            if f.split()[-1].casefold() not in _JOINERS
            and not (" " not in f and f.casefold() in _NOT_ALONE)
            and len(f) >= 3
            and f != name
        ]
    if is_person(name):
        words = [w for w in name.split() if not (len(w) == 2 and w.endswith("."))]  # initials say nothing
        if len(words) < 2:
            return []
        return [w for w in (words[-1], words[0]) if len(w) >= 3 and w.casefold() not in _NOT_ALONE]
    return []


def scrub_names(listed: Mapping[str, str]) -> dict[str, str]:
    """``listed`` (name -> placeholder) with each name's shorter forms added under its placeholder."""
    names = dict(listed)
    known = {name.casefold() for name in names}
    for name, placeholder in listed.items():
        for form in derived_forms(" ".join(name.split())):
            if form.casefold() not in known:
                names[form] = placeholder
                known.add(form.casefold())
    return names


def shorter_forms(listed: Mapping[str, str]) -> dict[str, list[str]]:
    """Per placeholder, the forms the scrub adds to the listed names, to show him what it will replace."""
    out: dict[str, list[str]] = {}
    for form, placeholder in scrub_names(listed).items():
        if form not in listed:
            out.setdefault(placeholder, []).append(form)
    return out
