"""Case names as courts and citation manuals write them: abbreviations, opening words, one-party captions.

The abbreviations are those of The Bluebook: A Uniform System of Citation, table T6 (case names
and institutional authors) and table T10 (geographical terms), as lower-case word -> the word
it stands for. A caption may print either form and a draft may write either, so both sides are
read as the full word before they are compared.
"""

from __future__ import annotations

import re
import unicodedata

# Table T6: words in case names.
CASE_NAME_WORDS: dict[str, str] = {
    "acad": "academy",
    "admin": "administration",
    "admr": "administrator",
    "agric": "agriculture",
    "all": "alliance",
    "am": "america",
    "amer": "american",
    "ass'n": "association",
    "assn": "association",
    "assoc": "associate",
    "assocs": "associates",
    "atl": "atlantic",
    "auth": "authority",
    "auto": "automobile",
    "ave": "avenue",
    "bankr": "bankruptcy",
    "bd": "board",
    "bhd": "brotherhood",
    "bldg": "building",
    "bros": "brothers",
    "bus": "business",
    "cas": "casualty",
    "cent": "central",
    "chem": "chemical",
    "cmty": "community",
    "cnty": "county",
    "coal": "coalition",
    "coll": "college",
    "comm'n": "commission",
    "comm": "committee",
    "comm'r": "commissioner",
    "commc'n": "communication",
    "commc'ns": "communications",
    "comp": "compensation",
    "condo": "condominium",
    "cong": "congress",
    "consol": "consolidated",
    "constr": "construction",
    "cont'l": "continental",
    "coop": "cooperative",
    "corp": "corporation",
    "corr": "correction",
    "ctr": "center",
    "def": "defense",
    "dep't": "department",
    "dept": "department",
    "det": "detention",
    "dev": "development",
    "dir": "director",
    "disc": "discount",
    "dist": "district",
    "distrib": "distributor",
    "distribs": "distributors",
    "div": "division",
    "e": "east",
    "econ": "economic",
    "educ": "education",
    "elec": "electric",
    "elecs": "electronics",
    "emp": "employment",
    "emps": "employees",
    "enf't": "enforcement",
    "eng'g": "engineering",
    "engg": "engineering",
    "eng'r": "engineer",
    "ent": "entertainment",
    "envtl": "environmental",
    "equal": "equality",
    "equip": "equipment",
    "exch": "exchange",
    "exec": "executive",
    "exp": "export",
    "fam": "family",
    "fed": "federal",
    "fed'n": "federation",
    "fid": "fidelity",
    "fin": "finance",
    "found": "foundation",
    "gen": "general",
    "gov't": "government",
    "grp": "group",
    "guar": "guaranty",
    "hosp": "hospital",
    "hous": "housing",
    "imp": "import",
    "inc": "incorporated",
    "indem": "indemnity",
    "indep": "independent",
    "indus": "industries",
    "info": "information",
    "ins": "insurance",
    "inst": "institute",
    "int'l": "international",
    "inv": "investment",
    "invs": "investments",
    "lab": "laboratory",
    "labs": "laboratories",
    "liab": "liability",
    "ltd": "limited",
    "mach": "machine",
    "mach'y": "machinery",
    "maint": "maintenance",
    "mfg": "manufacturing",
    "mfr": "manufacturer",
    "mfrs": "manufacturers",
    "med": "medical",
    "mem'l": "memorial",
    "merch": "merchant",
    "metro": "metropolitan",
    "mgmt": "management",
    "mkt": "market",
    "mktg": "marketing",
    "mortg": "mortgage",
    "mun": "municipal",
    "mut": "mutual",
    "n": "north",
    "nat'l": "national",
    "ne": "northeast",
    "nw": "northwest",
    "org": "organization",
    "pac": "pacific",
    "p'ship": "partnership",
    "pship": "partnership",
    "pharm": "pharmaceutical",
    "pharms": "pharmaceuticals",
    "prob": "probation",
    "prod": "production",
    "prods": "products",
    "prof'l": "professional",
    "prop": "property",
    "props": "properties",
    "prot": "protection",
    "pub": "public",
    "publ'g": "publishing",
    "publ'n": "publication",
    "r.r": "railroad",
    "ry": "railway",
    "rd": "road",
    "rec": "recreation",
    "ref": "refining",
    "reg'l": "regional",
    "rehab": "rehabilitation",
    "reprod": "reproductive",
    "res": "resource",
    "rest": "restaurant",
    "ret": "retirement",
    "rsch": "research",
    "rts": "rights",
    "s": "south",
    "sav": "savings",
    "sch": "school",
    "schs": "schools",
    "sci": "science",
    "se": "southeast",
    "sec": "securities",
    "serv": "service",
    "servs": "services",
    "soc": "social",
    "soc'y": "society",
    "socy": "society",
    "sol": "solution",
    "sols": "solutions",
    "sq": "square",
    "sr": "senior",
    "sta": "station",
    "subcomm": "subcommittee",
    "sur": "surety",
    "sw": "southwest",
    "sys": "systems",
    "tech": "technology",
    "techs": "technologies",
    "tel": "telephone",
    "telecomm": "telecommunication",
    "tpk": "turnpike",
    "transcon": "transcontinental",
    "transp": "transportation",
    "tr": "trust",
    "twp": "township",
    "u": "university",
    "univ": "university",
    "util": "utility",
    "utils": "utilities",
    "vill": "village",
    "w": "west",
    "cty": "county",
}

# Table T10: states, territories and cities as case names abbreviate them.
GEOGRAPHIC_WORDS: dict[str, str] = {
    "ala": "alabama",
    "ariz": "arizona",
    "ark": "arkansas",
    "cal": "california",
    "colo": "colorado",
    "conn": "connecticut",
    "del": "delaware",
    "d.c": "district of columbia",
    "fla": "florida",
    "ga": "georgia",
    "haw": "hawaii",
    "ill": "illinois",
    "ind": "indiana",
    "kan": "kansas",
    "ky": "kentucky",
    "la": "louisiana",
    "me": "maine",
    "md": "maryland",
    "mass": "massachusetts",
    "mich": "michigan",
    "minn": "minnesota",
    "miss": "mississippi",
    "mo": "missouri",
    "mont": "montana",
    "neb": "nebraska",
    "nev": "nevada",
    "n.h": "new hampshire",
    "n.j": "new jersey",
    "n.m": "new mexico",
    "n.y": "new york",
    "n.c": "north carolina",
    "n.d": "north dakota",
    "okla": "oklahoma",
    "or": "oregon",
    "pa": "pennsylvania",
    "r.i": "rhode island",
    "s.c": "south carolina",
    "s.d": "south dakota",
    "tenn": "tennessee",
    "tex": "texas",
    "vt": "vermont",
    "va": "virginia",
    "wash": "washington",
    "w. va": "west virginia",
    "wis": "wisconsin",
    "wyo": "wyoming",
    "p.r": "puerto rico",
    "v.i": "virgin islands",
    "balt": "baltimore",
    "bos": "boston",
    "dall": "dallas",
    "mia": "miami",
    "phx": "phoenix",
    "l.a": "los angeles",
    "phila": "philadelphia",
    "pitt": "pittsburgh",
    "s.f": "san francisco",
    "chi": "chicago",
    "u.s": "united states",
}

ABBREVIATIONS: dict[str, str] = {**CASE_NAME_WORDS, **GEOGRAPHIC_WORDS}

# Words that open a sentence or a citation clause and never begin a party's name. An adverb or
# an ordinal opens only with its comma ("First, Fisher v. ..."), since "First National Bank" is a
# name; a signal needs none ("See also Fisher v. ...").
_ADVERBS = (
    r"First|Second|Third|Fourth|Fifth|Finally|Moreover|Further|Furthermore|However|Similarly|Additionally|"
    r"Indeed|Thus|Accordingly|Likewise|Notably|Still|Yet|Then|Here|There|Also|Consequently|Therefore|"
    r"Nevertheless|Nonetheless|Instead|Rather|Again|Importantly|Specifically|In addition|For example|"
    r"For instance|In short|In sum|By contrast|In contrast|Similarly"
)
_SIGNALS = (
    r"See generally|See also|See, e\.g\.,|See e\.g\.,|See|But see|But cf\.|Cf\.|E\.g\.,|Accord|Compare|Contra|"
    r"see also|see|cf\.|accord|e\.g\.,|And|But|Under"
)
_OPENING = re.compile(rf"(?:^|(?<=[\s,(;]))(?:(?:{_ADVERBS}),\s+|(?:{_SIGNALS})\s+)")
_JUNK = re.compile(r"^[\d\W_]+")


def strip_opening(name: str) -> str:
    """ "First, Fisher" -> "Fisher", "2013, Moreover, Tarrant" -> "Tarrant": no opening is the plaintiff."""
    name = name.strip()
    ends = [m.end() for m in _OPENING.finditer(name)]
    rest = name[ends[-1] :] if ends else name
    rest = _JUNK.sub("", rest).strip()
    return rest if rest.strip(" ,") else name


def is_opening(name: str) -> bool:
    """Whether the words are only an opening or a signal ("See also", "Moreover,"): no name at all."""
    return strip_opening(name + " ") == name.strip() and bool(_OPENING.match(name.strip() + " "))


def full_word(word: str) -> str:
    """The word an abbreviation stands for ("mgmt" -> "management"); the word itself otherwise."""
    word = word.lower().rstrip(".").replace("’", "'")
    return ABBREVIATIONS.get(word, word)


_SINGLE_PARTY = re.compile(
    r"^\s*(?:In re|In the Matter of|Matter of|Ex parte|Application of|Petition of)\s+", re.I
)
_EX_REL = re.compile(r"^(?P<state>.*?)\s+ex rel\.?\s+(?P<relator>.+)$", re.I)


def single_party(name: str) -> str:
    """The party of an "In re", "Ex parte" or "Matter of" caption, or "" when the name is not one."""
    match = _SINGLE_PARTY.match(name)
    return name[match.end() :].strip(" ,") if match else ""


def relator(name: str) -> str:
    """ "State ex rel. Cooper" -> "Cooper": the distinctive party of an ex rel. caption (the state is generic)."""
    match = _EX_REL.match(name.strip())
    return match["relator"].strip(" ,") if match else name


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʻ": "'", "`": "'", "´": "'", "ʼ": "'"})


def plain_letters(text: str) -> str:
    """ "HAWAI‘I" and "Hawai'i", "DÍAZ-GARCÍA" and "Diaz-Garcia" alike: every apostrophe and okina as
    one, and every letter without its accent, as drafts, slugs and reporters' indexes write names."""
    text = text.translate(_APOSTROPHES)
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


_SUFFIX = re.compile(
    r"^(?:Inc|Co|Corp|Ltd|LLC|L\.L\.C|LLP|L\.P|LP|N\.A|P\.C|P\.A|PLLC|S\.A|AG|GmbH|Jr|Sr|II|III|IV|et al)\b\.?"
)


def last_clause(plaintiff: str) -> str:
    """ "Virginia, Attorney Grievance Comm'n" -> "Attorney Grievance Comm'n": a comma not before a
    corporate suffix ("Smith, Inc.") ends the words before the name."""
    parts = plaintiff.split(", ")
    keep = [parts[-1]]
    for part in reversed(parts[:-1]):
        if _SUFFIX.match(keep[0]):
            keep.insert(0, part)
        else:
            break
    return ", ".join(keep)


# Words an agency's initials pass over: the "and" of "Housing and Urban Development" (HUD).
_CONNECTIVES = frozenset({"of", "and", "the", "for", "on", "in", "&"})
# Initials are written in capitals ("HUD", "NLRB") but not always: a case name taken from a slug or
# typed in haste reads "Ascap"; what makes the word initials is that the caption's words give them.
_WRITTEN_ACRONYM = re.compile(r"\b[A-Za-z]{3,6}\b")


def written_acronyms(name: str) -> set[str]:
    """The words of a draft's party name that may be initials ("HUD", "NLRB", "Ascap"), lower-cased."""
    return {word.lower() for word in _WRITTEN_ACRONYM.findall(name)}


def caption_acronyms(caption: str) -> frozenset[str]:
    """The initials of every run of three to six words within one comma-separated part of a caption:
    "Secretary, United States Department of Housing and Urban Development" gives "hud" (and "dhud",
    "usdhud"), so a draft that names the agency by its initials names a party the caption holds."""
    out: set[str] = set()
    for part in re.split(r"[,;:()\[\]\n]", caption):
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z'’\-]*", part) if w.lower() not in _CONNECTIVES]
        for start in range(len(words)):
            for size in range(3, 7):
                if start + size <= len(words):
                    out.add("".join(w[0] for w in words[start : start + size]).lower())
    return frozenset(out)


# A copy whose caption was cut after its first party prints that party with its role and no "v.":
# "TOWN OF MERRIMAC, Plaintiff-Appellant," alone above the opinion.
_LONE_PARTY = re.compile(
    r"^[ \t]*(?P<name>[^,\n]{2,80}(?:,[ \t]*(?:Inc|LLC|Ltd|Co|Corp)\.?)?),[ \t]*"
    r"(?:Plaintiffs?|Petitioners?|Appellants?)(?:[-\u2013\u2014 ](?:Appellants?|Appellees?|Respondents?))?,?[ \t]*$",
    re.M,
)
LONE_PARTY_LINES = 12


def lone_party(text: str) -> str:
    """The first party of a copy whose caption names no other (see ``_LONE_PARTY``); else ""."""
    found = _LONE_PARTY.search("\n".join(text.splitlines()[:LONE_PARTY_LINES]))
    return found["name"].strip() if found else ""
