"""Case and statute citations: eyecite first, then the forms it misses.

eyecite skips reporters missing from reporters-db without a word (REFERENCE §5.2), so a
case-shaped citation it did not return is taken by a regular expression and its reporter is
judged against reporters-db (whose keys are roots: editions come from ``EDITIONS``). It also
misses "50 U.S.C. 1701" without a section sign. Its parties and year bleed between nearby
citations (#321), so the parties are read from the text just before the volume instead.
"""

from __future__ import annotations

import re
from functools import lru_cache

from eyecite import get_citations
from eyecite.models import FullCaseCitation, FullLawCitation, IdCitation, ShortCaseCitation, SupraCitation

from drafting.verify.found import Found

_CASE_SHAPE = re.compile(
    r"\b(?P<volume>\d{1,4}) (?P<reporter>[A-Z][A-Za-z0-9.' ]{0,24}?\.?) (?P<page>\d{1,5})"
    r"(?:, (?P<pin>\d{1,5}(?:[-–]\d{1,5})?))? \((?P<paren>[^()]{0,40}?(?:1[89]|20)\d\d)\)"
)
_STATUTE = re.compile(
    r"\b(?P<title>\d{1,3}) (?P<code>U\.\s?S\.\s?C\.(?:\s?A\.)?|C\.\s?F\.\s?R\.) ?(?:§§?|[Ss]ec(?:tion)?\.?)? ?"
    r"(?P<section>\d+[A-Za-z0-9\-.]*[A-Za-z0-9])"
)
_STATE_CODE = re.compile(
    r"\b(?P<code>(?:[A-Z][a-z]*\.\s?){1,4}(?:Code|Stat\.|Gen\. Laws|Comp\. Laws|Rev\. Stat\.)(?: Ann\.)?)"
    r"(?: [A-Z][a-z.]+)? ?§§? ?(?P<section>\d[\w.\-:]*\w)"
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
    ]
)


@lru_cache(maxsize=1)
def _editions() -> frozenset[str]:
    import reporters_db

    names = set(reporters_db.EDITIONS) | set(reporters_db.VARIATIONS_ONLY)
    return frozenset(_squash(n) for n in names)


def _squash(reporter: str) -> str:
    return re.sub(r"\s+", "", reporter)


def known_reporter(reporter: str) -> bool:
    return _squash(reporter) in _editions()


def party_words(name: str) -> list[str]:
    """The words of a party's name that identify it (not Inc., LLC, The...)."""
    words = re.findall(r"[A-Za-z][A-Za-z'\-]+", name)
    return [w.lower() for w in words if w.lower() not in _NAME_STOP and len(w) > 1]


_YEAR_AFTER = re.compile(r"(?:,\s*\d+(?:[-–]\d+)?)*\s*\([^()]{0,40}?((?:1[89]|20)\d\d)\)")


def year_after(text: str, end: int) -> str:
    """The year in the parenthetical right after a citation ("..., 211 (9th Cir. 2008)"), or ""."""
    match = _YEAR_AFTER.match(text, end)
    return match[1] if match else ""


def _parties(text: str, volume_start: int) -> tuple[str, str]:
    """The "X v. Y, " just before a citation's volume, read from the text itself."""
    window = text[max(0, volume_start - 160) : volume_start]
    if not window.rstrip().endswith(",") or " v. " not in window:
        return "", ""
    left, _, right = window.rpartition(" v. ")
    plaintiff = _PARTY_SPLIT.split(left)[-1].strip(" ,")
    defendant = right.strip().rstrip(",").strip()
    return plaintiff, defendant


def extract_citations(text: str) -> list[Found]:
    """Cases (full, short, id., supra) and statutes in one section of collapsed text."""
    items: list[Found] = []
    taken: list[tuple[int, int]] = []
    for cite in get_citations(text):
        start, end = cite.span()
        if isinstance(cite, FullCaseCitation):
            plaintiff, defendant = _parties(text, start)
            fields = {"form": "full", "year": year_after(text, end), **_volume_reporter_page(cite)}
            fields |= {"plaintiff": plaintiff, "defendant": defendant}
            items.append(Found("case", start, end, text[start:end], fields))
            taken.append((start, end))
        elif isinstance(cite, ShortCaseCitation):
            fields = {"form": "short", **_volume_reporter_page(cite)}
            fields["antecedent"] = cite.metadata.antecedent_guess or ""
            items.append(Found("case", start, end, text[start:end], fields))
            taken.append((start, end))
        elif isinstance(cite, SupraCitation):
            items.append(
                Found(
                    "case",
                    start,
                    end,
                    text[start:end],
                    {"form": "supra", "antecedent": cite.metadata.antecedent_guess or ""},
                )
            )
        elif isinstance(cite, IdCitation):
            items.append(Found("id", start, end, text[start:end], {"pin": cite.metadata.pin_cite or ""}))
        elif isinstance(cite, FullLawCitation):
            items.append(_statute_item(start, end, text[start:end]))
            taken.append((start, end))
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
                    "volume": m["volume"],
                    "reporter": _squash(m["reporter"]),
                    "page": m["page"],
                    "plaintiff": plaintiff,
                    "defendant": defendant,
                    "unparsed": "1",
                },
            )
        )
    for pattern in (_STATUTE, _STATE_CODE):
        for m in pattern.finditer(text):
            if _overlaps(taken, m.start(), m.end()):
                continue
            items.append(_statute_item(m.start(), m.end(), m.group()))
            taken.append((m.start(), m.end()))
    return items


def _volume_reporter_page(cite: FullCaseCitation | ShortCaseCitation) -> dict[str, str]:
    """What eyecite parsed of a full or short cite: volume, reporter (its corrected form, squashed), page."""
    groups = cite.groups
    reporter = _squash(cite.corrected_reporter() or groups.get("reporter", ""))
    return {"volume": groups.get("volume") or "", "reporter": reporter, "page": groups.get("page") or ""}


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in taken)


def _statute_item(start: int, end: int, cited: str) -> Found:
    key = re.sub(r"[\s§.]+", " ", cited).replace("Sec", "").replace("section", "").strip().lower()
    return Found("statute", start, end, cited, {"key": re.sub(r"\s+", " ", key)})
