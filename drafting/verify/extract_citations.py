"""Case and statute citations: eyecite first, then the forms it misses.

eyecite skips reporters missing from reporters-db without a word (eyecite 2.7.8), so a
case-shaped citation it did not return is taken by a regular expression and its reporter is
judged against reporters-db (whose keys are roots: editions come from ``EDITIONS``). It also
misses "50 U.S.C. 1701" without a section sign. Its parties and year bleed between nearby
citations (#321), so the parties are read from the text just before the volume instead.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from drafting.verify.case_names import is_opening, last_clause, single_party, strip_opening
from drafting.verify.docket_key import docket_key
from drafting.verify.found import Found
from drafting.verify.pin_text import footnote_after, pin_after

_CASE_SHAPE = re.compile(
    r"\b(?P<volume>\d{1,4}) (?P<reporter>[A-Z][A-Za-z0-9.' ]{0,24}?\.?) (?P<page>\d{1,5})"
    r"(?:, (?P<pin>\d{1,5}(?:[-–]\d{1,5})?))? \((?P<paren>[^()]{0,40}?(?:1[89]|20)\d\d)\)"
)
# North Carolina's public-domain citations ("2022-NCSC-1", "2021-NCCOA-45"), printed at the head of
# every page of its courts' opinions since 2021, are missing from reporters-db (whose hyphenated
# forms are New Mexico's and Ohio's): eyecite returns nothing for them.
_NEUTRAL = re.compile(r"\b(?P<volume>(?:19|20)\d\d)-(?P<reporter>NCSC|NCCOA)-(?P<page>\d{1,6})\b")
NEUTRAL_REPORTERS = frozenset(["NCSC", "NCCOA"])
_STATUTE = re.compile(
    r"\b(?P<title>\d{1,3}) (?P<code>U\.\s?S\.\s?C\.(?:\s?A\.)?|C\.\s?F\.\s?R\.) ?(?:§§?|[Ss]ec(?:tion)?\.?)? ?"
    r"(?P<section>\d+[A-Za-z0-9\-.]*[A-Za-z0-9])"
)
_STATE_CODE = re.compile(
    r"\b(?P<code>(?:[A-Z][a-z]*\.\s?){1,4}(?:Code|Stat\.|Gen\. Laws|Comp\. Laws|Rev\. Stat\.)(?: Ann\.)?)"
    r"(?: [A-Z][a-z.]+)? ?§§? ?(?P<section>\d[\w.\-:]*\w)"
)
# Rules of court, the Sentencing Guidelines and the Constitution, which eyecite does not read: a brief
# quotes them as often as statutes ("Fed. R. Civ. P. 56(a)", "U.S.S.G. § 2L1.2", "U.S. Const. amend. IV"),
# and a quotation, or an Id., rests on them as on a statute.
_COURT_RULE = re.compile(
    r"\bFed\.\s?R\.\s?(?:Civ|Crim|App|Evid|Bankr)\.(?:\s?P\.)?\s?(?P<section>\d+(?:\.\d+)?)(?:\([A-Za-z0-9]{1,4}\))*"
    r"|\bU\.\s?S\.\s?S\.\s?G\.\s?(?:§|[Ss]ec(?:tion|\.)?)\s?(?P<guideline>\d[A-Z]\d\.\d+)(?:\([A-Za-z0-9]{1,4}\))*"
    r"|\bU\.\s?S\.\s?Const\.\s?(?:art\.\s?[IVX]+|amend\.\s?[IVXL]+)(?:,\s?§\s?\d+)?(?:,\s?cl\.\s?\d+)?"
)
_PARTY_SPLIT = re.compile(
    r"(?:(?<!\bInc)(?<!\bCo)(?<!\bCorp)(?<!\bLtd)(?<!\bBros)(?<!\bNo)(?<!\b[A-Z])\.|[;:()\"“”]"
    r"|\bSee\b|\bsee\b|\bIn\b|\bAlso\b|\balso\b|\b[Cc]f\.|\baccord\b)\s*"
)
_NAME_STOP = frozenset(
    [
        "inc",
        "inc.",
        "llc",
        "co",
        "co.",
        "corp",
        "corp.",
        "ltd",
        "ltd.",
        "the",
        "of",
        "and",
        "a",
        "an",
        "company",
        "corporation",
        "systems",
        "etc",  # "Rowe, etc.": the roles a caption runs on with, no one's name
    ]
)


@lru_cache(maxsize=1)
def _editions() -> frozenset[str]:
    from drafting.verify.eyecite_quick import reporter_names

    return frozenset(_squash(n) for n in reporter_names())


def _squash(reporter: str) -> str:
    return re.sub(r"\s+", "", reporter)


def known_reporter(reporter: str) -> bool:
    return reporter in NEUTRAL_REPORTERS or _squash(reporter) in _editions()


def party_words(name: str) -> list[str]:
    """The words of a party's name that identify it (not Inc., LLC, The...)."""
    words = re.findall(r"[A-Za-z][A-Za-z'\-]+", name)
    return [w.lower() for w in words if w.lower() not in _NAME_STOP and len(w) > 1]


# A pin may name a footnote, as the Bluebook writes it: "275 n.1", "275 & n.1", "275 nn.1-2".
FOOTNOTE = r"(?:\s*(?:&\s*)?nn?\.\s?\d+(?:[-–]\d+)?)"
_YEAR_AFTER = re.compile(rf"(?:,\s*\d+(?:[-–]\d+)?{FOOTNOTE}?)*\s*\([^()]{{0,40}}?((?:1[89]|20)\d\d)\)")


def year_after(text: str, end: int) -> str:
    """The year in the parenthetical right after a citation ("..., 211 (9th Cir. 2008)"), or ""."""
    match = _YEAR_AFTER.match(text, end)
    return match[1] if match else ""


def circuit_after(text: str, end: int) -> str:
    """The federal circuit in the parenthetical right after a citation ("9th" of "(9th Cir. 2008)"), or ""."""
    from drafting.verify.circuits import circuit_cited

    match = _YEAR_AFTER.match(text, end)
    return circuit_cited(match[0]) if match else ""


def court_after(text: str, end: int) -> str:
    """The parenthetical right after a citation ("(S.D.N.Y. 2012)"), where it gives a year, or ""."""
    match = _YEAR_AFTER.match(text, end)
    return match[0] if match else ""


_PARALLEL_TAIL = re.compile(r"(?:,\s*\d{1,4}\s+[A-Z][A-Za-z0-9.' &]{0,24}?\s+\d{1,7}(?:,\s*\d+)?)+\s*$")
# Inside a defendant's name there is no citation, no closed parenthetical, no sentence's end.
_NOT_A_NAME = re.compile(r"\d{1,4}\s+[A-Z][A-Za-z0-9.' &]{0,24}?\s+\d|\)\.?\s|[a-z]{3,}[.:;]\s+[A-Z]")
# Where eyecite could find something: a volume before a capitalised reporter, Id., supra, Ibid.
# Two expressions, not one alternation: one that begins with a digit lets the scan jump from digit
# to digit, and the words are looked for only in a text that holds their letters.
_VOLUME_THEN_REPORTER = re.compile(r"\d[\s-]+[A-Z]")
_SHORT_FORM_WORD = re.compile(r"\b[Ii]d\.|\bsupra\b|\b[Ii]bid\b")


def _may_hold_a_case(text: str) -> bool:
    if _VOLUME_THEN_REPORTER.search(text):
        return True
    return ("d." in text or "supra" in text or "bid" in text) and bool(_SHORT_FORM_WORD.search(text))


_PIN_AFTER = re.compile(r"\d+(?:[-–]\d+)?")
# The pin eyecite leaves unread after "Id." or "supra," where a footnote follows it ("Id. at 274 n.1").
_DEPENDENT_PIN = re.compile(rf",?\s*(?P<pin>at\s+\*?\d{{1,5}}(?:[-–]\d{{1,5}})?)(?={FOOTNOTE})")
_NEXT_ID = re.compile(r"\s+(?P<id>[Ii]d\.|[Ii]bid\.)(?=\s|$)")
_ID_PIN = re.compile(r",?\s*(?P<pin>at\s+\*?\d{1,5}(?:[-–]\d{1,5})?)")
_CONNECTORS = frozenset(
    ["of", "the", "and", "&", "for", "de", "la", "del", "du", "von", "van", "ex", "rel.", "on", "in"]
)
_LEADING = frozenset(["of", "the", "and", "&", "for", "on", "in"])
MAX_PARTY_WORDS = 12


def _name_run(left: str) -> str:
    """The trailing run of a name in ``left``: capitalised words and the small words between them.

    "The Supreme Court settled the matter in Delta Air Lines, Inc" gives "Delta Air Lines, Inc".
    """
    tokens = left.split()
    start = len(tokens)
    for index in range(len(tokens) - 1, -1, -1):
        word = tokens[index].strip(",")
        if word[:1].isupper() or word[:1].isdigit() or word.lower() in _CONNECTORS:
            start = index
            continue
        break
    while start < len(tokens) and tokens[start].lower() in _LEADING:
        start += 1
    return " ".join(tokens[start:])


# Abbreviations of case names (the Bluebook's table T6, and "ex rel."): their period ends no sentence.
_NAME_ABBREVIATION = re.compile(
    r"\b(?:Acad|Admin|Agric|Ass'n|Auth|Bankr|Bd|Bhd|Bldg|Bros|Bus|Cas|Chem|Cmty|Cnty|Coll|Comm'n|Commc'ns|"
    r"Comp|Consol|Constr|Cont'l|Corp|Ctr|Dep't|Dev|Dist|Distrib|Div|Econ|Educ|Elec|Enf't|Eng'g|Envtl|Equip|"
    r"Exch|Fed|Fed'n|Fin|Found|Gen|Gov't|Grp|Hosp|Hous|Inc|Indem|Indep|Indus|Info|Ins|Inst|Int'l|Inv|Invs|"
    r"Lab|Labs|Liab|Ltd|Mach|Mfg|Mgmt|Med|Mem'l|Mkt|Mktg|Mortg|Mun|Mut|Nat'l|Org|Pac|Pharm|Prods|Prop|Props|"
    r"Pub|Reg'l|Rehab|Res|Rsch|Sav|Sch|Sec|Serv|Servs|Soc'y|Sys|Tech|Tel|Telecomm|Transp|Twp|Univ|Util|Vill|"
    r"rel)\.(?=[\s,])"
)


def _without_name_abbreviations(name: str) -> str:
    """ "Carolina Indus. Comm'n" as "Carolina Indus Comm'n": what is left of a period may end a sentence."""
    return _NAME_ABBREVIATION.sub(lambda m: m.group()[:-1], name)


def _parties(text: str, volume_start: int, eyecite: tuple[str, str] = ("", "")) -> tuple[str, str]:
    """The "X v. Y, " just before a citation's volume: eyecite's reading where the text bears it out."""
    window = text[max(0, volume_start - 240) : volume_start]
    window = _PARALLEL_TAIL.sub("", window.rstrip().rstrip(",")) + ","
    if " v. " not in window:
        return "", ""
    if _eyecite_is_right(window, *eyecite):
        return strip_opening(eyecite[0].strip(" ,")), eyecite[1].strip(" ,")
    left, _, right = window.rpartition(" v. ")
    if _NOT_A_NAME.search(_without_name_abbreviations(right)):
        return "", ""  # the "v." belongs to an earlier citation: this one names no parties
    left = _without_name_abbreviations(left)  # "Testing Labs., Inc.": its periods end no sentence
    plaintiff = _name_run(_PARTY_SPLIT.split(left)[-1].strip(" ,"))
    if not party_words(plaintiff):  # "Inc." alone: the name is the segment before it
        pieces = [p for p in _PARTY_SPLIT.split(left) if p.strip()]
        plaintiff = _name_run(left[-120:]) if len(pieces) < 2 else _name_run(", ".join(pieces[-2:]))
    defendant = right.strip().rstrip(",").strip()
    return last_clause(strip_opening(plaintiff)), defendant


# "Fin. Oversight & Mgmt. Bd. for P.R., supra": a name's small words ("for", "de", "ex rel.") are in it.
_SHORT_NAME = re.compile(
    r"(?:^|[\s(])(?P<name>[A-Z][\w'’.&-]*(?:\s+(?:of|the|and|&|for|de|la|del|du|von|van|ex|rel\.|on|[A-Z][\w'’.&-]*)){0,8}"
    r"(?:,\s*(?:Inc|LLC|Co|Corp|Ltd|L\.P|N\.A)\.*)?),\s*$"  # "Testing Labs., Inc., supra"
)


def short_name(text: str, volume_start: int) -> str:
    """The name of a citation that gives only one ("Fisher, 570 U.S. 297"), opening words aside; or ""."""
    match = _SHORT_NAME.search(text[max(0, volume_start - 80) : volume_start])
    if not match or " v. " in match["name"]:
        return ""
    name = strip_opening(match["name"])
    name = single_party(name) or name  # "IN RE KNC", as a reporter's short name writes it
    if is_opening(match["name"]) or _SHORT_FORM_WORD.search(name) or not party_words(name):
        return ""
    return name


_SUBJECT = re.compile(
    r"\b(?:In re|[Mm]atter of|In the [Mm]atter of|In the Interest of|Ex parte|Appeal of|Application of|Petition of)\s+"
    r"(?P<name>[^,;()“”\"]{1,80}?(?:,\s*(?:Inc|LLC|L\.L\.C|Co|Corp|Ltd|N\.A|P\.C)\.?)?),"  # never across a quotation's close: "... Matter of A.” Matter of B,"
    # then the parties' roles a caption names ("Christy Lyle, Respondent, and Keith Lyle, Appellant,"):
    # words only, no citation, no "v." and no parenthetical between them and the volume
    r"(?:(?:(?! v\. )[^,;()“”\"\d]){1,60},)*\s*$"
)


def _subject(text: str, volume_start: int) -> str:
    """The X of "Matter of X, 26 I&N Dec. 586" or "In re X, 821 F.2d 1147": a case with no adverse party."""
    match = _SUBJECT.search(text[max(0, volume_start - 120) : volume_start])
    return match["name"].strip() if match else ""


def _eyecite_is_right(window: str, plaintiff: str, defendant: str) -> bool:
    """eyecite's parties, where the text right before the citation reads "plaintiff v. defendant"."""
    if not plaintiff or not defendant or len(plaintiff.split()) > MAX_PARTY_WORDS:
        return False
    named = f"{plaintiff} v. {defendant}".rstrip(", .")
    return (
        window.rstrip(", .").endswith(named)
        and bool(party_words(plaintiff))
        and not _looks_like_prose(plaintiff)
    )


def _looks_like_prose(name: str) -> bool:
    return any(w.islower() and w not in _CONNECTORS for w in name.split())


_DOCKET_IN_NAME = re.compile(r",\s*Nos?\.\s*([A-Z]{0,5}[- ]?\d[\dA-Za-z]*(?:[-–:][\dA-Za-z]+)*)\s*,?\s*$")


def extract_citations(text: str) -> list[Found]:
    """Cases (full, short, id., supra, docket numbers) and statutes in one section of collapsed text."""
    from drafting.verify.docket import cited_dockets

    # eyecite takes most of a second to import (it builds its tokenizer from reporters-db), so it is
    # imported here, on first use, and `chambers verify` with a bad draft or no sources answers at once.
    items: list[Found] = []
    taken: list[tuple[int, int]] = []
    if _may_hold_a_case(text):
        _eyecite_citations(text, items, taken)
    for m in _CASE_SHAPE.finditer(text):
        if _overlaps(taken, m.start(), m.end()):
            continue
        plaintiff, defendant = _parties(text, m.start())
        if not plaintiff:
            continue  # a number, a word and a number with a year after it: not a case without "X v. Y"
        items.append(
            Found(
                "case",
                m.start("volume"),
                m.end("page"),
                text[m.start("volume") : m.end("page")],
                {
                    "form": "full",
                    "year": year_after(text, m.end("page")),
                    "circuit": circuit_after(text, m.end("page")),
                    "court": court_after(text, m.end("page")),
                    "volume": m["volume"],
                    "reporter": _squash(m["reporter"]),
                    "page": m["page"],
                    "pin": pin_after(text, m.end("page")),
                    "plaintiff": plaintiff,
                    "defendant": defendant,
                    "unparsed": "1",
                },
            )
        )
    for m in _NEUTRAL.finditer(text) if "-NC" in text else ():
        if not _overlaps(taken, m.start(), m.end()):
            items.append(_neutral_item(text, m))
            taken.append((m.start(), m.end()))
    items.extend(cited_dockets(text, taken))
    patterns: tuple[re.Pattern[str], ...] = (_STATUTE, _STATE_CODE) if "§" in text else (_STATUTE,)
    if "R." in text or "U.S." in text:
        patterns += (_COURT_RULE,)
    for pattern in patterns:
        for m in pattern.finditer(text):
            if _overlaps(taken, m.start(), m.end()):
                continue
            section = m.groupdict().get("section") or m.groupdict().get("guideline") or ""
            items.append(_statute_item(m.start(), m.end(), m.group(), section))
            taken.append((m.start(), m.end()))
    return items


def _eyecite_citations(text: str, items: list[Found], taken: list[tuple[int, int]]) -> None:
    """What eyecite finds: full and short case citations, supra, Id. and the statutes it knows."""
    # eyecite takes most of a second to import (it builds its tokenizer from reporters-db), so it is
    # imported here, on first use: a draft of record cites only, or a bad input, never pays for it.
    from drafting.verify.eyecite_quick import get_citations

    cites = get_citations(text)  # first: it decides how eyecite is imported
    from eyecite.models import FullCaseCitation, FullLawCitation, IdCitation, ShortCaseCitation, SupraCitation

    for cite in cites:
        start, end = cite.span()
        if isinstance(cite, FullCaseCitation):
            meta = cite.metadata
            plaintiff, defendant = _parties(text, start, (meta.plaintiff or "", meta.defendant or ""))
            fields = {"form": "full", "year": year_after(text, end), "circuit": circuit_after(text, end)}
            fields["court"] = court_after(text, end)
            fields |= _volume_reporter_page(cite)
            fields["pin"] = pin_after(text, end)
            if footnote := footnote_after(text, end):
                fields["footnote"] = footnote
            fields |= {"plaintiff": plaintiff, "defendant": defendant, "subject": _subject(text, start)}
            if not (plaintiff or defendant or fields["subject"]):
                fields["name"] = short_name(text, start)
            docket = _DOCKET_IN_NAME.search(defendant)
            if docket:  # "Standard Ins. Co., No. 21-50498, 2022 WL 796252": the docket names it too
                fields["defendant"], fields["docket"] = defendant[: docket.start()], docket_key(docket[1])
            items.append(Found("case", start, end, text[start:end], fields))
            taken.append((start, end))
        elif isinstance(cite, ShortCaseCitation):
            pin = _PIN_AFTER.match(text, end) if text[start:end].endswith("at ") else None
            end = pin.end() if pin else end  # "569 U.S. at 627 n.8": eyecite stops before the pin
            fields = {"form": "short", **_volume_reporter_page(cite)}
            fields["antecedent"] = cite.metadata.antecedent_guess or ""
            items.append(Found("case", start, end, text[start:end], fields))
            taken.append((start, end))
        elif isinstance(cite, SupraCitation):
            pinned, end = _pin_unread(text, end, cite.metadata.pin_cite or "")
            fields = {
                "form": "supra",
                "antecedent": cite.metadata.antecedent_guess or "",
                "name": short_name(text, start),  # eyecite guesses one word: "Corp." of a name
                "pin": pinned,
            }
            items.append(Found("case", start, end, text[start:end], fields))
        elif isinstance(cite, IdCitation):
            pinned, end = _pin_unread(text, end, cite.metadata.pin_cite or "")
            items.append(Found("id", start, end, text[start:end], {"pin": pinned}))
        elif isinstance(cite, FullLawCitation):
            items.append(_statute_item(start, end, text[start:end]))
            taken.append((start, end))
    _ids_right_after_ids(text, items)


def _ids_right_after_ids(text: str, items: list[Found]) -> None:
    """The Id. that directly follows an Id. or Ibid. ("Ibid. Id. at 5"): eyecite's pattern takes the
    space after the first with it, which leaves the second no space before it to match."""
    pending = [i for i in items if i.kind == "id"]
    starts = {i.start for i in items}
    while pending:
        match = _NEXT_ID.match(text, pending.pop().end)
        if match is None or match.start("id") in starts:
            continue
        pin = _ID_PIN.match(text, match.end())
        end = pin.end("pin") if pin else match.end()
        found = Found(
            "id", match.start("id"), end, text[match.start("id") : end], {"pin": pin["pin"] if pin else ""}
        )
        items.append(found)
        starts.add(found.start)
        pending.append(found)


def _pin_unread(text: str, end: int, pin: str) -> tuple[str, int]:
    """eyecite's pin of an Id. or supra, or the one it left unread before a footnote, and the span's end."""
    if pin:
        return pin, end
    match = _DEPENDENT_PIN.match(text, end)
    return (match["pin"], match.end("pin")) if match else ("", end)


def _neutral_item(text: str, m: re.Match[str]) -> Found:
    """A public-domain citation: the year is its volume, the court its reporter, the number its page."""
    plaintiff, defendant = _parties(text, m.start())
    fields = {"form": "full", "year": m["volume"], "volume": m["volume"], "reporter": m["reporter"]}
    fields["pin"] = pin_after(text, m.end())
    fields |= {
        "page": m["page"],
        "plaintiff": plaintiff,
        "defendant": defendant,
        "subject": _subject(text, m.start()),
    }
    return Found("case", m.start(), m.end(), m.group(), fields)


def _volume_reporter_page(cite: Any) -> dict[str, str]:
    """What eyecite parsed of a full or short cite: volume, reporter (its corrected form, squashed), page."""
    groups = cite.groups
    reporter = _squash(cite.corrected_reporter() or groups.get("reporter", ""))
    return {"volume": groups.get("volume") or "", "reporter": reporter, "page": groups.get("page") or ""}


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in taken)


def _statute_item(start: int, end: int, cited: str, section: str = "") -> Found:
    """``section``: the number a page must print to be this law's text ("1983", "56", "2L1.2")."""
    key = re.sub(r"[\s§.]+", " ", cited).replace("Sec", "").replace("section", "").strip().lower()
    return Found("statute", start, end, cited, {"key": re.sub(r"\s+", " ", key), "section": section})
