"""Checks of case and statute citations against the authorities library.

A reporter slot (volume, reporter, page) that holds a real opinion proves nothing by itself:
fabricated citations are often put on real slots. So every distinctive word of both parties
named in the draft must be in the caption the opinion prints (abbreviations as the Bluebook
makes them: "Univ." for University, "Reg'l" for Regional), or the citation blocks and the
message shows what the slot really holds; one word misspelled by a slip of the keys ("Twombley") is
the right case with a spelling warning. Short forms, supra and Id. take the verdict of the
citation they stand for: after a blocked citation they are never "ok".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from drafting.verify.authorities import Opinion
from drafting.verify.case_names import caption_acronyms, full_word, plain_letters, written_acronyms
from drafting.verify.checks_record import make_flag, where
from drafting.verify.circuits import circuit_cited
from drafting.verify.districts import district_cited, district_name
from drafting.verify.extract_citations import known_reporter, party_words
from drafting.verify.found import Found, could_hold, pin_page
from drafting.verify.model import Flag
from drafting.verify.opinion_text import Series
from drafting.verify.pins import check_pin
from drafting.verify.sources import MatterSources, Page, cite_key
from drafting.verify.text import normalize_for_match

# Words that name a kind of party, not which one: they tell no case from another.
_GENERIC = frozenset(
    [
        "united",
        "states",
        "america",
        "people",
        "state",
        "commonwealth",
        "et",
        "al",
        "ex",
        "rel",
        "re",
        "matter",
        "estate",
        "petitioner",
        "petitioners",
        "respondent",
        "respondents",
        "appellant",
        "appellants",
        "appellee",
        "appellees",
        "plaintiff",
        "plaintiffs",
        "defendant",
        "defendants",
        "county",
        "city",
        "town",
        "government",
        "commissioner",
        "secretary",
        "director",
    ]
)


def distinctive(name: str) -> list[str]:
    # "Z-Z-O-": initials joined by hyphens are as many one-letter words, which tell nothing apart
    words = party_words(plain_letters(name).replace("-", " "))
    return [w for w in words if w.rstrip(".") not in _GENERIC]


# Case-name abbreviations (the Bluebook's table T6) that are not the start of the word they stand
# for, so the prefix rule below cannot read them: "Labs." is Laboratories, "Cnty." County.
_CONTRACTIONS = {
    "bhd": "brotherhood",
    "bldg": "building",
    "bros": "brothers",
    "cmty": "community",
    "cnty": "county",
    "ctr": "center",
    "engg": "engineering",
    "envtl": "environmental",
    "grp": "group",
    "invs": "investments",
    "labs": "laboratories",
    "lab": "laboratory",
    "mfg": "manufacturing",
    "mfrs": "manufacturers",
    "mgmt": "management",
    "mktg": "marketing",
    "prods": "products",
    "props": "properties",
    "pship": "partnership",
    "rsch": "research",
    "rts": "rights",
    "sch": "school",
    "servs": "services",
    "socy": "society",
    "sys": "systems",
}


CONTRACTION_LETTERS = 4  # "Doe" is no contraction of "donate": three letters fit too many words


def _contracts(short: str, word: str) -> bool:
    """Whether ``short`` keeps the first and last letters of ``word`` and others of it in order, as a
    contraction does ("intl" of "international", "dept" of "department")."""
    if short[0] != word[0] or short[-1] != word[-1]:
        return False
    letters = iter(word[1:-1])
    return all(letter in letters for letter in short[1:-1])


def word_in_caption(word: str, caption: frozenset[str]) -> bool:
    """Whether a party's word is in the caption, as written or as its abbreviation stands for."""
    word = word.lower().rstrip(".")
    if word in caption or _CONTRACTIONS.get(word) in caption:
        return True
    if (word.endswith("s") and word[:-1] in caption) or f"{word}s" in caption:
        return True  # "Department of Corrections" for the caption's "DEPARTMENT OF CORRECTION"
    full = full_word(word)  # either side may abbreviate: "Mgmt." in the draft, "Reg'l" in the caption
    expanded = {full_word(w) for w in caption}
    if full in expanded or all(part in caption or part in expanded for part in full.split()):
        return True
    if "'" in word:  # Reg'l, Int'l, Ass'n, Dep't: the caption word starts and ends alike
        head, _, tail = word.partition("'")
        return any(w.startswith(head) and w.endswith(tail) and len(w) > len(word) for w in caption)
    if any(w.startswith(word) for w in caption if len(w) > len(word)) and len(word) >= 2:
        return True  # Univ. -> university, Tex. -> texas, Dist. -> district
    if len(word) >= CONTRACTION_LETTERS and any(_contracts(word, w) for w in caption if len(w) > len(word)):
        return True  # "Intl", "Natl", "Dept", "Labr": a contraction written without its apostrophe
    # "Airlines" for "Air Lines", "Northgate" for "North Gate": a word the caption writes as two.
    return any(word.startswith(w) and word[len(w) :] in caption for w in caption if 1 < len(w) < len(word))


SLIP_LETTERS = 5  # a shorter word one letter off another is as likely a different name ("Lee", "Lea")


def one_slip(word: str, other: str) -> bool:
    """Whether ``word`` is ``other`` typed with one slip of the keys: a letter changed, dropped or
    added, or two side by side swapped ("Twombley" for Twombly, "Commerical" for Commercial). The
    first letter is kept, as a misspelled name keeps it; a name that differs there is another name."""
    if word == other or word[:1] != other[:1] or min(len(word), len(other)) < SLIP_LETTERS:
        return False
    if len(word) == len(other):
        differ = [i for i, (a, b) in enumerate(zip(word, other, strict=True)) if a != b]
        swapped = len(differ) == 2 and differ[1] == differ[0] + 1 and word[differ[0]] == other[differ[1]]
        return len(differ) == 1 or (swapped and word[differ[1]] == other[differ[0]])
    shorter, longer = sorted((word, other), key=len)
    return len(longer) == len(shorter) + 1 and any(
        longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer))
    )


def _absent(name: str, opinion: Opinion) -> list[str]:
    absent = [w for w in distinctive(name) if not word_in_caption(w, opinion.words)]
    # an agency named by its initials ("Secretary, HUD") is the caption's words spelled out
    return [] if set(absent) <= written_acronyms(name) & caption_acronyms(opinion.caption) else absent


def _roles(opinion: Opinion) -> tuple[str, ...]:
    return ("plaintiff",) if opinion.first_party_only else ("plaintiff", "defendant", "subject", "name")


def _parties_against(item: Found, opinion: Opinion) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(role, name) of each party the caption lacks, and (draft's word, caption's word) of each party
    whose one absent word is a caption word with one slip: the right case misspelled, not a wrong one."""
    missing, slips = [], []
    for role in _roles(opinion):
        name = item.fields.get(role, "")
        absent = _absent(name, opinion)
        if len(absent) == 1:
            word = plain_letters(absent[0].lower()).rstrip(".")
            near = sorted(w for w in opinion.words if one_slip(word, w))
            if near:
                slips.append((absent[0], near[0]))
                continue
        if absent:
            missing.append((role, name))
    return missing, slips


def misspelled_words(item: Found, opinion: Opinion) -> list[tuple[str, str]]:
    """(draft's word, caption's word) for each party misspelled by one slip."""
    return _parties_against(item, opinion)[1]


def missing_parties(item: Found, opinion: Opinion) -> list[tuple[str, str]]:
    """(role, name) of each party named in the draft whose distinctive words are not all in the
    caption, but for one word misspelled (``misspelled_words``)."""
    return _parties_against(item, opinion)[0]


def spelling_flag(item: Found, opinion: Opinion, page: Page, *, slot: str, key: str) -> Flag | None:
    """The warning for a right citation whose party name is misspelled: the caption's spelling."""
    slips = misspelled_words(item, opinion)
    if not slips:
        return None
    spelled = "; ".join(f'"{word}" is spelled "{caption}" there' for word, caption in slips)
    return make_flag(
        item,
        "warn",
        f"Check the spelling: {slot} is {opinion.caption!r} ({opinion.file}); {spelled}.",
        [page],
        normalized=key,
        verdict="verified",
    )


def wrong_name_or_year(
    item: Found, opinion: Opinion, key: str, page: Page, *, slot: str, decided: str, parties: bool = True
) -> Flag | None:
    """The block for a draft that names parties the opinion's caption lacks, or another decision
    year; ``slot`` and ``decided`` say how the message names the opinion (by citation or docket)."""
    missing = missing_parties(item, opinion) if parties else []
    if missing:
        who = " and ".join(f'the {role} "{name}"' for role, name in missing)
        return make_flag(
            item,
            "block",
            f"Wrong case name: {slot} is {opinion.caption!r} ({opinion.file}); {who} named in the draft "
            f"{'are' if len(missing) > 1 else 'is'} not in its caption.",
            [page],
            normalized=key,
        )
    year = item.fields.get("year", "")
    if year and opinion.year and year != opinion.year:
        return make_flag(
            item, "block", f"{decided} was decided in {opinion.year}, not {year}.", [page], normalized=key
        )
    court = _another_court(item, opinion)
    if court:
        return make_flag(
            item, "block", f"{decided} was decided by {court} ({opinion.file}).", [page], normalized=key
        )
    return None


def _another_court(item: Found, opinion: Opinion) -> str:
    """Where the citation names another circuit or district than the opinion's head, both, in words."""
    circuit = item.fields.get("circuit") or circuit_cited(item.fields.get("court", ""))
    if circuit and opinion.circuit and circuit != opinion.circuit:
        return f"the Court of Appeals for the {opinion.circuit} Circuit, not the {circuit} Circuit"
    district = district_cited(item.fields.get("court", ""))
    if district and opinion.district and district != opinion.district:
        return f"the District Court for {district_name(opinion.district)}, not {district_name(district)}"
    return ""


def check_case(item: Found, opinions: dict[str, Opinion] | None, uncited: Sequence[Opinion] = ()) -> Flag:
    reporter = item.fields["reporter"]
    key = cite_key(item.fields["volume"], reporter, item.fields["page"])
    if not known_reporter(reporter):
        return make_flag(
            item, "block", f"No such reporter: '{reporter}' is not in reporters-db.", normalized=key
        )
    if opinions is None:
        return make_flag(
            item,
            "block",
            "Unverifiable: not in your authorities library (no library is set up for this matter).",
            normalized=key,
            verdict="unverifiable",
            reason="no-library",
        )
    opinion = opinions.get(key)
    inside = _page_inside(item, opinions) if opinion is None else None
    if inside is not None:
        holder, series = inside
        return make_flag(
            item,
            "block",
            f"No opinion begins on page {item.fields['page']}: pages {series.first}-{series.last} of "
            f"{item.fields['volume']} {reporter} are {holder.caption!r} ({holder.file}), and the page lies "
            "inside it.",
            [holder.pages[0]],
            normalized=key,
        )
    named_as = _uncited_match(item, uncited) if opinion is None else None
    if named_as is not None:
        return make_flag(
            item,
            "block",
            f"Unverifiable: {key} is not a citation of any opinion in your library, but {named_as.file} "
            f"({named_as.caption!r}) was added without a citation. If it is this one, give it: "
            f'`chambers authorities add "{named_as.file}" --cite "{key}"` (its path is in `authorities list`).',
            [named_as.pages[0]],
            normalized=key,
            verdict="unverifiable",
            reason="no-citation",
        )
    if opinion is None:
        return make_flag(
            item,
            "block",
            "Unverifiable: the opinion is not in your authorities library. Add it with "
            "`chambers authorities add FILE`, or acknowledge this item.",
            normalized=key,
            verdict="unverifiable",
            reason="not-in-library",
        )
    page = opinion.pages[0]
    named = " v. ".join(
        n for n in (item.fields.get(r, "") for r in ("plaintiff", "defendant", "subject", "name")) if n
    )
    if not opinion.words:
        return make_flag(
            item,
            "warn",
            f"{key} is in your library ({opinion.file}), but its caption could not be read to compare the parties.",
            [page],
            normalized=key,
        )
    wrong = wrong_name_or_year(item, opinion, key, page, slot=key, decided=f"The opinion at {key}")
    if wrong is not None:
        return wrong
    year = item.fields.get("year", "")
    pin = check_pin(item, opinion)
    if pin is not None and pin.verdict != "verified":
        contradicted = pin.verdict == "contradicted"
        return make_flag(
            item,
            "block",
            f"{PIN_ONLY[0] if contradicted else PIN_ONLY[1]}: {pin.message} ({opinion.file}).",
            [page],
            normalized=key,
            verdict="contradicted" if contradicted else "unverifiable",
            reason="" if contradicted else "no-page-numbers",
        )
    if opinion.first_party_only and named:
        return make_flag(
            item,
            "warn",
            f"{key} is in your library ({opinion.file}), but its caption names only {opinion.caption!r}: "
            "the other party cannot be compared.",
            [page],
            normalized=key,
            verdict="unverifiable",
            reason="not-checkable",
        )
    if year and not opinion.year:
        return make_flag(
            item,
            "block",
            f"Unverifiable year: {key} is {opinion.caption!r} ({opinion.file}), but the library has no decision "
            f"year for it, so {year} cannot be checked. Give it with `chambers authorities add FILE --cite "
            f'"{key} ({year})"`, or acknowledge this item.',
            [page],
            normalized=key,
            verdict="unverifiable",
            reason="no-year",
        )
    misspelled = spelling_flag(item, opinion, page, slot=key, key=key)
    if misspelled is not None:
        return misspelled
    if not named or not any(distinctive(n) for n in named.split(" v. ")):
        return make_flag(
            item,
            "warn",
            f"{key} is in your library, but the draft names no parties to compare.",
            [page],
            normalized=key,
            verdict="verified",
        )
    return make_flag(
        item,
        "ok",
        f"Verified against your authorities library: {opinion.caption!r}, {where(page)}.",
        [page],
        normalized=key,
    )


CAPTION_WORDS = 80


def _uncited_match(item: Found, uncited: Sequence[Opinion]) -> Opinion | None:
    """The opinion added without a citation whose caption holds every party the draft names."""
    if not any(distinctive(item.fields.get(r, "")) for r in ("plaintiff", "defendant", "subject", "name")):
        return None
    return next(
        (o for o in uncited if 0 < len(o.words) <= CAPTION_WORDS and not missing_parties(item, o)), None
    )  # a caption read from prose (hundreds of words) would hold any name


def _page_inside(item: Found, opinions: dict[str, Opinion]) -> tuple[Opinion, Series] | None:
    """A library opinion of the same volume whose printed pages hold the cited first page strictly
    inside them: another opinion may begin on a page where one ends, never on one in the middle."""
    if not item.fields["page"].isdigit():
        return None
    page, slot = int(item.fields["page"]), f"{item.fields['volume']} {item.fields['reporter']}"
    for key, opinion in opinions.items():
        if key.rsplit(" ", 1)[0] != slot:
            continue
        series = opinion.reading.series.get(key)
        if series is not None and series.first < page < series.last:
            return opinion, series
    return None


PIN_ONLY = ("Wrong pin", "Unverifiable pin")


def check_dependent(item: Found, verdict: Flag | None, opinion: Opinion | None = None) -> Flag:
    """A short form, supra or Id.: the verdict of the citation it stands for, never better."""
    label = "'Id.'" if item.kind == "id" else "A short form"
    if item.refers_to is None or verdict is None:
        if item.kind == "id" and item.fields.get("stands_for"):
            return make_flag(
                item,
                "warn",
                f"'Id.' of {item.fields['stands_for']!r}, a record or guideline cite that chambers does not "
                "read: check it against the record by hand, then acknowledge this item.",
                verdict="unverifiable",
                reason="not-checkable",
            )
        if item.kind == "id":
            return make_flag(item, "warn", "'Id.' with no earlier citation to refer to.")
        return make_flag(
            item,
            "warn",
            "A short form whose full citation is not earlier in the draft; it cannot be checked.",
        )
    note = f"{label} of {item.refers_to.text}"
    if item.refers_to.kind == "statute":  # "Id. § 5032" after "18 U.S.C. § 5031": the statute's verdict
        return make_flag(
            item,
            verdict.severity,
            f"{note}: {verdict.message}",
            verdict=verdict.verdict,
            reason=verdict.reason,
        )
    if _pin_before_first_page(item, item.refers_to):
        return make_flag(
            item,
            "block",
            f"{note}, pinned to page {item.fields['page']}, before the page that opinion begins on: the pin "
            "cannot be in it. Correct the page, or cite the opinion the page belongs to.",
            normalized=item.refers_to.text,
        )
    pin = check_pin(item, opinion) if opinion is not None else None
    if verdict.message.startswith(PIN_ONLY):  # the case is right, only the full citation's pin was not
        verdict = replace(verdict, severity="ok", verdict="verified")
    if pin is not None and pin.verdict == "contradicted":
        return make_flag(
            item, "block", f"{note}, with a wrong pin: {pin.message}.", normalized=item.refers_to.text
        )
    if verdict.verdict == "verified" and pin is not None and pin.verdict == "unverifiable":
        return make_flag(
            item,
            "block",
            f"{note}, which is verified, but its pin is not: {pin.message}.",
            normalized=item.refers_to.text,
            verdict="unverifiable",
            reason="no-page-numbers",
        )
    if verdict.severity == "ok":
        return make_flag(item, "ok", f"{note}, which is verified.", normalized=item.refers_to.text)
    return make_flag(
        item,
        verdict.severity,
        f"{note}, which is not verified: {verdict.message}",
        normalized=item.refers_to.text,
        verdict=verdict.verdict,
        reason=verdict.reason,
    )


def _pin_before_first_page(item: Found, full: Found) -> bool:
    """ "570 U.S. at 250" for "570 U.S. 297": same volume and reporter, a page before the first."""
    if item.kind != "case" or item.fields.get("form") != "short":
        return False
    same_slot = (item.fields["volume"], item.fields["reporter"]) == (
        full.fields.get("volume"),
        full.fields.get("reporter"),
    )
    return same_slot and not could_hold(full, pin_page(item.fields.get("page", "")))


def check_statute(item: Found, library: MatterSources | None) -> Flag:
    if library is not None:
        needle = normalize_for_match(item.text.replace("§", " "))
        page = library.find_exact(needle)
        if page is not None:
            return make_flag(item, "ok", f"In your authorities library: {where(page)}.", [page], needle)
    return make_flag(
        item,
        "warn",
        f"Not checked: the text of {item.text} is not in your authorities library.",
        normalized=item.fields["key"],
        reason="not-checkable",
    )


def check_belonging(item: Found, owner: Found, verdict: Flag) -> Flag:
    """A decision's date in its citation, or an amount in an opinion's words: the verdict of its owner.

    Neither is a fact of the matter's record, so the record is not asked; it stands or falls with
    the citation (whose year is checked) or the quotation (checked word for word).
    """
    what = "the citation" if owner.kind == "case" else "the quotation"
    return make_flag(
        item,
        verdict.severity,
        f"Part of {what} {owner.text!r}, not a fact of the record: {verdict.message}",
        normalized=owner.text,
        verdict=verdict.verdict,
        reason=verdict.reason,
    )
