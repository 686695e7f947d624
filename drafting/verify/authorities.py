"""The attorney's authorities library: a matter of opinions, ingested like evidence.

An opinion is known by its own citations (parallel ones included: U.S., S. Ct. and L. Ed. name
the same opinion) and by its caption. Real files rarely say their citation plainly: a slip
opinion's syllabus cites *Detroit Timber* (200 U.S. 321) before anything else, its running head
reads "Cite as: 569 U. S. ____", and a court's PDF may carry no citation at all. So a citation
counts as the opinion's own only where it stands as one, on a line of its own or after "Cite as:"
or "Citation Numbers:" (never inside a sentence that cites it), in a bound volume's running head
(reporter_heads), or where the attorney gave it
(``chambers authorities add FILE --cite``). An opinion with none is listed with that reason,
never dropped in silence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from drafting.verify.case_names import lone_party, plain_letters
from drafting.verify.extract_citations import extract_citations
from drafting.verify.reporter_heads import head_citations
from drafting.verify.sources import MatterSources, Page, cite_key
from drafting.verify.text import sentence_bounds

if TYPE_CHECKING:
    from drafting.verify.opinion_text import OpinionText

HEAD_PAGES = 6  # a slip opinion's own first page comes after its syllabus
HEAD_CHARS = 6000
CAPTIONS = 3
_CITE_LABEL = re.compile(r"^\s*(?:Cite as:?|Citations?(?: Numbers?)?:|Reported at:?)\s*", re.I)
# Signals, and the history and treatment lines of Westlaw and Lexis printouts: they cite others.
_SIGNAL = re.compile(
    r"^\s*(?:See|see|Cf\.|cf\.|Accord|But|E\.g\.|Compare|quoting|citing|Distinguished|Declined|Called|"
    r"Abrogated|Superseded|Overruled|Cited|Followed|Affirmed by|Reversed by|Vacated by|Reversed and|Questioned|"
    r"Disagreed|Criticized|Limited|Appeal|Certiorari|Cert\.|Rehearing|On remand|Prior History|Subsequent History|"
    r"\d+(?:st|nd|rd|d|th) Dep(?:artmen)?t\.?:)",  # "2d Dept.: 102 A.D.3d 885": the decision below
    re.I,
)
_NEUTRAL_SHAPE = r"\b(?:19|20)\d\d-[A-Z][A-Za-z]{1,5}-\d{1,6}\b"  # "2022-NCSC-1", "2021-Ohio-1234"
# "(1st)" in Illinois' public-domain form: "2018 IL App (1st) 152522"
_CITE_SHAPE = re.compile(rf"\b\d{{1,4}}\s+[A-Z][A-Za-z0-9.'&()\s]{{0,24}}?\s+\d{{1,7}}\b|{_NEUTRAL_SHAPE}")
# A caption line opens with its parties. A line of the body wrapped so that a citation ends it has the
# end of an earlier citation or a signal before the name: "1989).  Cf.  Iaea v.  Sunn,  800 F.2d  861".
_RUNS_ON_FROM_A_SENTENCE = re.compile(
    r"\)\.\s|(?:^|[.;:)]\s+)(?:See|see|Cf\.|cf\.|Accord|But see|E\.g\.|Compare|accord)(?:,|\s)"
)
_ENDS_IN_CITE = re.compile(
    rf"(?:\d{{1,4}}\s+[A-Z][A-Za-z0-9.' &()]{{0,30}}?\s+\d{{1,7}}(?:-[A-Z])?|{_NEUTRAL_SHAPE})"
    r"\s*(?:\([^()]*\))?\W{0,3}$"
)
_PIN = re.compile(r"^\s*,\s*\d+(?:[-–]\d+)?\s*(?:[,.;)]|$)")  # ", 337." but not ", 2008 WL 104105"
# After an opinion's own citation on its line: nothing, a parallel citation, or a court-and-year.
_STANDS_ALONE = re.compile(
    r"^\s*(?:,\s*\d{1,4}\s+[A-Z][A-Za-z0-9.' &]{0,24}?\s+\d{1,7}\s*)*(?:\([^()]*\))?\s*$"
)
# "against" parts a caption only as New York prints it, "-against-" or alone on its line: in a
# sentence ("liability against Hostess") it is prose.
_VERSUS = re.compile(r"(?:^|\s)(?:v\.?|vs\.?|versus|-against-)(?=\s|$)|^[ \t]*-?against-?[ \t]*$", re.M)
# A caption set in capitals sets its "V." in capitals too ("INC. V. KRISTOPHER HUGHES, ET AL."); in a line
# with lower case letters a capital "V." is a middle initial, never the separator.
_VERSUS_CAPS = re.compile(r"(?:^|\s)VS?\.(?=\s|$)")


def _versus(line: str) -> re.Match[str] | None:
    found = _VERSUS.search(line)
    if found is None and not re.search(r"[a-z]", line):
        found = _VERSUS_CAPS.search(line)
    return found


_SUBJECT_CAPTION = re.compile(
    r"^\s*(?:In re|Matter of|In the Matter of|In the Interest of|Ex parte|Appeal of|Application of|Petition of|"
    r"Estate of|Opinions? of the Justices|Advisory Opinion)\b",  # an advisory opinion names no party at all
    re.I,
)
_YEAR = re.compile(r"\((?:[^()]*?\s)?((?:1[89]|20)\d\d)\)")
# The decision's date as the file prints it: "Decided June 13, 2013", "Filed 11 February 2022",
# "Date Filed: 12/22/2020" and "Filed 08/23/05" (ECF stamps), "DECIDED: ...", and Kentucky's
# "RENDERED:  MARCH 29, 2024". Capitalised, so "this Court decided Grutter" in prose is not one.
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|SEPT|OCT|NOV|DEC)[a-zA-Z]*\.?"
_DECIDED = re.compile(
    rf"(?:\b(?P<word>Decided|DECIDED|Rendered|RENDERED|Filed|FILED|Date Filed|Opinion Filed|Opinion filed|Delivered|Dated|Signed|Date:)|"
    rf"^[ \t]*(?P<low>decided|filed)|^[ \t]*(?P<alone>)(?=[A-Z][a-z]{{2,8}}\.?\s+\d{{1,2}},?\s+(?:1[89]|20)\d\d\.?(?:[ \t]*\([^()\n]{{0,30}}\))?\.?\]?[ \t]*$))"
    rf"\s*:?\s*"
    rf"(?:{_MONTH}\s+\d{{1,2}},?\s+(?P<y1>(?:1[89]|20)\d\d)|\d{{1,2}}\s+{_MONTH}\s+(?P<y2>(?:1[89]|20)\d\d)"
    rf"|\d{{1,2}}/\d{{1,2}}/(?:(?P<y3>(?:1[89]|20)\d\d)|(?P<yy>\d\d))\b)",
    re.M,  # a date may stand alone on its line, under the court's name
)
_NEUTRAL_VOLUME = re.compile(r"^((?:19|20)\d\d) [A-Z][^.\s]* \d+$")


def _century(two_digits: str | None) -> str:
    """ "05" of an ECF stamp's "08/23/05" is 2005; "97" of a "Dated: 3/4/97" is 1997."""
    if not two_digits:
        return ""
    return ("20" if int(two_digits) < 50 else "19") + two_digits


def decision_year(pages: list[Page]) -> str:
    """The year the opinion was decided, where its first pages print the date; "Decided" before "Filed".
    An order whose first pages print none is dated at its end: "Dated: October 8, 2019" over the signature."""
    found: list[tuple[int, int, int, str]] = []
    for page in pages[:HEAD_PAGES]:
        for m in _DECIDED.finditer(page.text[:HEAD_CHARS]):
            word = (m["word"] or m["low"] or "").lower()
            # "Decided" first; else the first date printed (the caption's, before any later "Filed")
            year = m["y1"] or m["y2"] or m["y3"] or _century(m["yy"])
            found.append((0 if word.startswith(("decided", "rendered")) else 1, page.index, m.start(), year))
    if not found:  # an order without a dated head is dated at its end, over the judge's signature
        for page in pages[-2:]:
            for m in _DECIDED.finditer(page.text):
                if (m["word"] or "").lower().startswith(("dated", "date:", "signed")):
                    found.append(
                        (1, page.index, m.start(), m["y1"] or m["y2"] or m["y3"] or _century(m["yy"]))
                    )
    return min(found)[3] if found else ""


@dataclass(frozen=True, eq=False)
class Opinion:
    key: str  # the first of its citations, e.g. "569 U.S. 614"
    citations: tuple[str, ...]  # every citation that names it, parallel ones included
    caption: str  # the parties as the opinion prints them, collapsed (for messages)
    words: frozenset[str]  # the caption's words, lower case (for the party check)
    year: str  # the year printed or given with its citation, "" when none
    pages: tuple[Page, ...]
    first_party_only: bool = False  # the copy's caption names its first party alone: the rest is unread

    @property
    def file(self) -> str:
        return self.pages[0].file

    @cached_property
    def circuit(self) -> str:
        """The federal circuit ("1st", "D.C.") whose court of appeals its head names as its own, or ""."""
        from drafting.verify.circuits import circuit_of_head

        return circuit_of_head("\n".join(p.text for p in self.pages[:2]))  # it reads the head's first chars

    @cached_property
    def district(self) -> str:
        """The federal district ("c|california") whose court its head names as its own, or ""."""
        from drafting.verify.districts import district_of_head

        return district_of_head("\n".join(p.text for p in self.pages[:2]))

    @cached_property
    def reading(self) -> OpinionText:
        """Its text without page markers and running heads, and where each reporter page begins.

        Read on first use: most opinions of a library are never cited by a given draft."""
        from drafting.verify.opinion_text import read_opinion

        return read_opinion(list(self.pages), self.citations)


@dataclass(frozen=True)
class Unindexed:
    file: str
    reason: str


@dataclass(frozen=True)
class OwnCitation:
    key: str
    year: str


def parse_citation(text: str) -> OwnCitation | None:
    """One citation as the attorney writes it ("569 U.S. 614 (2013)"), or None if none is there."""
    for item in extract_citations(text):
        if item.kind == "case" and item.fields.get("form") == "full":
            year = _YEAR.search(text[item.end :])
            key = cite_key(item.fields["volume"], item.fields["reporter"], item.fields["page"])
            return OwnCitation(key, year[1] if year else "")
    return None


def own_citations(pages: list[Page]) -> list[OwnCitation]:
    """The citations an opinion gives for itself: labelled lines, then lines that are only citations."""
    found: list[OwnCitation] = []
    lines = [pages[0].title] + [line for p in pages[:HEAD_PAGES] for line in p.text[:HEAD_CHARS].splitlines()]
    after_prose = False  # the head matter, where an opinion names itself, ends where its prose begins
    previous_words = 0
    for line in lines:
        words = _prose_words(line)
        # a slip typed in a narrow column ("denying  in forma  pauperis status.") has short lines: its
        # prose begins where two lines running on have a sentence's words between them
        after_prose = (
            after_prose
            or words >= PROSE_WORDS
            or (min(words, previous_words) >= 3 and words + previous_words >= PROSE_WORDS)
        )
        previous_words = words
        if not _CITE_SHAPE.search(line) or _SIGNAL.match(line):
            continue
        labelled = bool(_CITE_LABEL.match(line))
        # "Trammell v. / Trammell / , / 589 So.2d 743" after prose: the body cites another case. Only a line
        # with a year goes on, as it may hold the court's public-domain citation (see below).
        if after_prose and not labelled and not re.search(r"\b(?:19|20)\d\d\b", line):
            continue
        if not labelled and not _ENDS_IN_CITE.search(line):
            continue  # a cheap look first: an own citation ends its line (eyecite is dear, lines many)
        body = _CITE_LABEL.sub("", line).strip()
        for item in extract_citations(body):
            if item.kind != "case" or item.fields.get("form") != "full":
                continue
            if _PIN.match(body[item.end :]):
                continue  # "200 U. S. 321, 337": a pin is how one cites another case, not oneself
            if not (labelled or _STANDS_ALONE.match(body[item.end :])):
                continue  # "656 F. 3d 1222, affirmed.": words after it, so a sentence cites it
            before = body[: item.start].strip().rstrip(",").strip()
            if not labelled and before and not _names_a_caption(before) and not _ends_citation(before):
                continue  # words before it: part of a sentence
            if not labelled and _RUNS_ON_FROM_A_SENTENCE.search(before):
                continue  # "1989). Cf. Iaea v. Sunn, 800 F.2d 861": a body line that cites another case
            year = _YEAR.search(body[item.end :])
            key = cite_key(item.fields["volume"], item.fields["reporter"], item.fields["page"])
            if after_prose and not labelled and not _own_public_domain(key):
                continue  # a public-domain citation may follow a slip's notice of its own publication
            if all(c.key != key for c in found):
                found.append(OwnCitation(key, year[1] if year else ""))
    for key in head_citations(pages, HEAD_PAGES, HEAD_CHARS):  # a bound volume's running head
        if all(c.key != key for c in found):
            found.append(OwnCitation(key, ""))
    return found


_PUBLIC_DOMAIN_KEY = re.compile(r"^(?:19|20)\d\d [A-Z][^.\s]* \d+(?:\([A-Z]\))?$")


def _own_public_domain(key: str) -> bool:
    """ "2026 NYSlipOp 01932", "2018 WI 11": a court's own citation by year, never a database's (WL, LEXIS)."""
    return bool(_PUBLIC_DOMAIN_KEY.match(key)) and not re.search(r"\b(?:WL|LEXIS)\b", key)


def _names_a_caption(before: str) -> bool:
    """'NORTHGATE FOODS, INC. v. ARCTIC COIL CO.' before the citation: a caption line, not prose."""
    return bool(_VERSUS.search(before)) and (_caption_like(before) or not re.search(r"\b[a-z]{3,}\b", before))


def _ends_citation(before: str) -> bool:
    """An earlier parallel citation on the same line ("520 F.3d 1, 2008 WL 104105")."""
    return bool(re.search(r"\d\s*$", before)) and bool(_CITE_SHAPE.search(before))


def captions(pages: list[Page], own_keys: set[str]) -> list[str]:
    """The opinion's caption blocks: 'X v. Y' in its first pages that no citation of another case follows."""
    found: list[str] = []
    for page in pages[:HEAD_PAGES]:
        if len(found) >= CAPTIONS:
            break
        lines = layout_lines(page.text[:HEAD_CHARS])
        for index, line in enumerate(lines):
            versus = _versus(line)
            if not (versus or _SUBJECT_CAPTION.match(line)) or _is_prose(line):
                continue
            after = " ".join(lines[index : index + 3])[versus.start() if versus else 0 :]
            if _cites_another(after, own_keys) or ", supra" in after:
                continue
            block = " ".join(lines[i].strip() for i in _caption_lines(lines, index))
            block = re.sub(r"\s+", " ", block).strip()
            if block and block not in found:
                found.append(block)
            if len(found) >= CAPTIONS:
                break
    title = pages[0].title  # file metadata: "11-889 Tarrant Regional Water Dist. v. Herrmann (06/13/2013)"
    if _VERSUS.search(title) and not _cites_another(title, own_keys):
        found.append(re.sub(r"\s+", " ", title).strip())
    return found


FLAT_LINE_CHARS = 1000
_COLUMN_GAP = re.compile(r"[ \t]{3,}")


def layout_lines(text: str) -> list[str]:
    """The text's lines; where a copy's text was flattened to a line or two (a PDF's layout joined
    with runs of spaces), each run of three or more spaces is read as the line break it stood for."""
    lines = text.splitlines()
    if len(lines) <= 2 and len(text) > FLAT_LINE_CHARS:
        return [part for line in lines for part in _COLUMN_GAP.split(line)]
    return lines


_PROSE_WORD = re.compile(r"(?<![\w'’-])[a-z]{3,}\b")
_CAPTION_SMALL_WORDS = frozenset(
    ["and", "the", "for", "rel", "ex", "its", "his", "her", "capacity", "official"]
)
PROSE_WORDS = 8  # a caption line has a few small words ("and", "ex rel."); a sentence has many


def _prose_words(line: str) -> int:
    return sum(w not in _CAPTION_SMALL_WORDS for w in _PROSE_WORD.findall(line))


def _is_prose(line: str) -> bool:
    """A sentence of the opinion's body (a text with a paragraph to a line): "against" in it is no caption."""
    return _prose_words(line) >= PROSE_WORDS


_NOT_CAPTION = re.compile(
    r"^\s*(?:ON WRIT|ON PETITION|CERTIORARI|APPEAL|ON APPEAL|SUPREME COURT|UNITED STATES COURT|IN THE|No\.|"
    r"DOCKET|Before|BEFORE|Argued|Decided|Filed|\[|Syllabus|Opinion of the Court|Per Curiam)",
)
_PARTY_ROLE = re.compile(
    r"\b(?:Plaintiffs?|Defendants?|Appell(?:ant|ee)s?|Petitioners?|Respondents?)\b", re.I
)


def _caption_lines(lines: list[str], at: int) -> list[int]:
    """The 'v.' line, its neighbours, and the caption-like lines (upper case, or party roles) around it."""
    chosen = [at]
    for step in (-1, 1):
        index = at + step
        first = True
        while 0 <= index < len(lines) and len(chosen) < 12:
            line = lines[index]
            if not line.strip() or line.strip().isdigit():  # a pleading paper's line number
                index += step
                continue
            if _NOT_CAPTION.match(line) or not (
                first or _caption_like(line) or _names_a_party(line, step) or _wraps_on(lines, index, step)
            ):
                break
            chosen.append(index)
            first = False
            index += step
        if step > 0:
            chosen += _parties_after_the_court_below(lines, index)
    return sorted(chosen)


LOOK_PAST = 8


def _parties_after_the_court_below(lines: list[str], at: int) -> list[int]:
    """Kentucky's layout: "APPEAL FROM ... COURT" and the judge's line between "v." and the
    appellees, whose block ends in their role ("APPELLEES"). Those party lines, where the role comes."""
    run: list[int] = []
    for index in range(at, min(len(lines), at + LOOK_PAST + 6)):
        line = lines[index]
        if not line.strip():
            continue
        if _PARTY_ROLE.search(line) and (run or _caption_like(line)):
            return [*run, index]
        if _caption_like(line) and not _NOT_CAPTION.match(line) and not _COURT_BELOW.search(line):
            run.append(index)
        elif run or index - at > LOOK_PAST:
            return []
    return []


_COURT_BELOW = re.compile(r"\b(?:APPEAL FROM|HONORABLE|JUDGE|ACTION NO|CIRCUIT COURT|DISTRICT COURT)\b")


NAME_LINE_CHARS = 80  # a printed line: a court's PDF wraps a long party name at its margin


def _names_a_party(line: str, step: int) -> bool:
    """ "Vanessa St. Pierre," above its "Plaintiff—Appellant,": a name line, ending in its comma; or
    "Petro-Lubricant Testing Laboratories, Inc., and John Wintermute," where a PDF wrapped the name."""
    short = len(line.strip()) <= NAME_LINE_CHARS
    return step < 0 and short and line.rstrip().endswith(",") and not _is_prose(line)


_LINE_ENDS_MID_NAME = re.compile(r"[A-Za-z,&'’-]$")


def _wraps_on(lines: list[str], index: int, step: int) -> bool:
    """A party's name wrapped over printed lines ("Arthur J. LICARI, as he is Trustee of Colonial Drive
    Realty" / "Trust, Plaintiff, Appellant,"): going up, a short line that stops mid-name above the
    caption's line; going down, a short line below one that stopped mid-name."""
    line, nearer = lines[index].strip(), lines[index - step].strip()
    above, below = (line, nearer) if step < 0 else (nearer, line)
    return (
        bool(_LINE_ENDS_MID_NAME.search(above))
        and not above.endswith(("v.", "vs."))
        and len(line) <= NAME_LINE_CHARS
        and not _is_prose(line)
        and bool(below)
        and not _NOT_CAPTION.match(below)
    )


def _caption_like(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return bool(letters) and (upper / len(letters) >= 0.6 or bool(_PARTY_ROLE.search(line)))


def _cites_another(after: str, own_keys: set[str]) -> bool:
    """Whether a citation of some other case follows within a sentence of this 'v.'."""
    collapsed = re.sub(r"\s+", " ", after).strip()
    first, end = sentence_bounds(collapsed)[0]
    sentence = collapsed[first:end]
    if not _CITE_SHAPE.search(sentence):
        return False
    keys = {
        cite_key(i.fields["volume"], i.fields["reporter"], i.fields["page"])
        for i in extract_citations(sentence)
        if i.kind == "case" and i.fields.get("form") == "full"
    }
    return bool(keys - own_keys) or (not keys and bool(re.search(r",\s*\d+\s+[A-Z]", sentence)))


CAPTION_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


_INITIALS = re.compile(r"\b[a-z](?:(?:\.\s?|/)[a-z]\b)+")


def caption_words(text: str) -> frozenset[str]:
    """The caption's words, and its initials run together ("K.N.C." is also "knc", "F/V" is "fv", as
    drafts write them). The "v." between the parties is no initial: "v. F.D. RICH" gives "fd"."""
    text = plain_letters(text.lower())
    initials = {
        re.sub(r"[./\s]", "", m.group()) for side in _VERSUS.split(text) for m in _INITIALS.finditer(side)
    }
    return frozenset(CAPTION_WORD.findall(text)) | initials


def index_opinions(
    library: MatterSources, given: dict[str, list[str]] | None = None
) -> tuple[dict[str, Opinion], list[Unindexed]]:
    """Every opinion of the library under each of its citations, and those that could not be indexed.

    ``given`` maps a file's sha256 to the citations the attorney gave for it; they come first.
    """
    opinions: dict[str, Opinion] = {}
    unindexed: list[Unindexed] = []
    for pages in library.documents.values():
        stated = [c for text in (given or {}).get(pages[0].sha256, []) if (c := parse_citation(text))]
        cites = stated + [c for c in own_citations(pages) if all(c.key != s.key for s in stated)]
        if not cites:
            unindexed.append(
                Unindexed(
                    pages[0].file,
                    "no citation of its own in its caption, header lines, 'Cite as:' line or file metadata "
                    "(a slip opinion's 'Cite as: 569 U. S. ____' has no page yet); "
                    f'give it with `chambers authorities add "{pages[0].path}" --cite "VOLUME REPORTER PAGE"`',
                )
            )
            continue
        keys = {c.key for c in cites}
        blocks = captions(pages, keys)
        lone = "" if blocks else lone_party(pages[0].text)
        # a public-domain citation's volume is its year ("2022-NCSC-1"), or else the file's date line
        neutral = next((m[1] for c in cites if (m := _NEUTRAL_VOLUME.match(c.key))), "")
        year = next((c.year for c in cites if c.year), "") or neutral or decision_year(pages)
        opinion = Opinion(
            key=cites[0].key,
            citations=tuple(c.key for c in cites),
            caption=blocks[0] if blocks else lone,
            words=caption_words(" ".join(blocks) or lone),
            year=year,
            pages=tuple(pages),
            first_party_only=bool(lone),
        )
        for cite in cites:
            if cite.key in opinions and opinions[cite.key].pages[0].document_id != pages[0].document_id:
                unindexed.append(
                    Unindexed(
                        pages[0].file,
                        f"{cite.key} is already the citation of {opinions[cite.key].file}; the first one keeps it",
                    )
                )
                continue
            opinions[cite.key] = opinion
    return opinions, unindexed
