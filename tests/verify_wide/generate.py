"""Generated drafts over the wide corpus: each opinion's own sentences and pages, true and mutated.

Everything true here comes from the opinion file and the manifest (its citations as the source's
metadata gives them), never from the verifier: the page of a sentence is read from the file's own
page markers (``*675``, ``[148 A.3d 443]``, ``Page 1112``). Each fabricated item changes one
thing of a true one: a word of a quotation, the page a quotation is cited to, the first page, the
volume, the plaintiff, the year, or a pin past the opinion's last page. The items are
deterministic: the same corpus gives the same drafts, byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pymupdf

INVENTED_PARTIES = ("Hargrove Logistics, Inc.", "Bellweather Holdings LLC", "Quintana-Marsh", "Orville Trask")
# Fabricated authorities that courts found invented in filings written with AI tools (SOURCES.md).
SANCTIONED = (
    ("Varghese v. China Southern Airlines Co.", "925 F.3d 1339", "(11th Cir. 2019)"),
    ("Shaboon v. Egyptair", "2013 IL App (1st) 111279-U", ""),
    ("Petersen v. Iran Air", "905 F. Supp. 2d 121", "(D.D.C. 2012)"),
    ("Martinez v. Delta Airlines, Inc.", "2019 WL 4639462", "(Tex. App. 2019)"),
    ("Estate of Durden v. KLM Royal Dutch Airlines", "2017 WL 2418825", "(Ga. Ct. App. 2017)"),
    ("Miller v. United Airlines, Inc.", "174 F.3d 366", "(4th Cir. 1999)"),
    ("Aguirre v. Reese", "2013 WL 6577085", "(D. Nev. 2013)"),
    ("McNair v. Everly", "2019 WL 2560069", "(E.D. Mich. 2019)"),
)
_SWAPS = {
    "not": "always",
    "is": "was",
    "was": "is",
    "the": "a",
    "a": "the",
    "and": "or",
    "or": "and",
    "may": "must",
}


@dataclass(frozen=True)
class Item:
    category: str  # what was generated: true-cite, true-quote, word, page, volume, party, year, ...
    truth: str  # true | fabricated
    kinds: tuple[str, ...]  # the flag kinds that may carry its verdict
    start: int
    end: int
    text: str
    opinion: str
    slot: str  # the citation slot it names, "vol reporter page"


Mark = tuple[str, str, tuple[str, ...], str, str, str]  # category, truth, kinds, text, opinion, slot


@dataclass
class Draft:
    name: str
    text: str = ""
    items: list[Item] | None = None

    def add(self, sentence: str, marks: list[Mark]) -> None:
        """Append ``sentence`` and record each (category, truth, kinds, text, opinion, slot) in it."""
        base = len(self.text)
        self.items = self.items or []
        cursor = 0
        for category, truth, kinds, text, opinion, slot in marks:
            at = sentence.index(text, cursor)
            self.items.append(
                Item(category, truth, kinds, base + at, base + at + len(text), text, opinion, slot)
            )
            cursor = at + len(text)
        self.text += sentence + "\n\n"


def case_name(entry: dict) -> str:
    """The case's name: the manifest's own, or as its description begins with it."""
    if entry.get("case_name"):
        return str(entry["case_name"])
    what = entry["what"]
    match = re.match(r"^(.*?), (?=\d|No\.|Nos\.|T\.\s?C\.|MDL|\()", what)
    return (match.group(1) if match else what.split(",")[0]).strip()


def _split_cite(cite: str) -> tuple[str, str, str] | None:
    match = re.fullmatch(r"(\d+) (.+?) (\d+)", cite.strip())
    return (match.group(1), match.group(2), match.group(3)) if match else None


def _text_pages(path: Path) -> str:
    if path.suffix == ".pdf":
        with pymupdf.open(path) as doc:
            return "\n".join(page.get_text() for page in doc)
    return path.read_text(encoding="utf-8", errors="replace")


def _marker_pattern(volume: str, reporter: str) -> re.Pattern[str]:
    squeezed = re.escape(reporter.replace(" ", "")).replace(r"\.", r"\.\s?")
    # a bracket may hold parallel pages that break at one place: "[920 N.Y.S.2d 298 , 16 N.Y.3d 283]"
    return re.compile(
        rf"\[(?:[^\]\[]{{0,40}}?[,;]\s*)?{volume}\s?{squeezed}\s(\d+)\s*(?:[,;][^\]\[]{{0,40}})?\]"
        # a star after ", at", "Id. at" or a Westlaw number's "at" is a pin into another court's opinion
        # ("2009 WL 1259963, at *2", "2004 WL 1852966 at *37")
        rf"|(?<!\*)(?<!, at )(?<![Ii]d\. at )(?<!\d at )\*{{1,3}}(\d+)\b|^Page (\d+)$",
        re.MULTILINE,
    )


PAGE_STEP = 12  # the most pages one marker may move on from the last, as a vendor skips headnotes


def paged_sentences(text: str, volume: str, reporter: str, first: int) -> tuple[list[tuple[int, str]], int]:
    """Sentences that lie wholly on one page, each with that page, and the last page seen."""
    out: list[tuple[int, str]] = []
    page = first
    last = first
    pattern = _marker_pattern(volume, reporter)
    for line in text.splitlines():
        pieces = pattern.split(line)
        # re.split with 3 groups gives text, g1, g2, g3, text, ...
        for index in range(0, len(pieces), 4):
            chunk = pieces[index] or ""
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", chunk.strip()):
                if _quotable(sentence):
                    out.append((page, sentence))
            if index + 3 < len(pieces):
                number = next((g for g in pieces[index + 1 : index + 4] if g), None)
                # a page runs on from the one before it; a number far past it ("[15 F.3d 1216]" in a copy
                # of 15 F.3d 1202) is a citation of another case in the same volume
                if number and first <= int(number) <= min(first + 400, page + PAGE_STEP):
                    page = int(number)
                    last = max(last, page)
    # A sentence printed twice (a headnote repeating the opinion) has no one page: leave it out. The
    # count ignores case, as a quotation's check does: "The court held" is also in "... that the court held".
    counts: dict[str, int] = {}
    for _, sentence in out:
        counts[sentence] = counts.get(sentence, 0) + 1
    lowered = text.lower()
    return [
        (page, sentence)
        for page, sentence in out
        if counts[sentence] == 1 and lowered.count(sentence.lower()) == 1
    ], last


def _in_capitals(sentence: str) -> bool:
    """ "GOLDEN INVESTMENT CORP. and ARMAND ROBERTS, Defendants, Appellants.": a caption's words, which
    a brief never quotes; a slip repeats them over each docket it decides."""
    words = re.findall(r"[A-Za-z]{2,}", sentence)
    return 3 * sum(w.isupper() for w in words) >= len(words)


def _quotable(sentence: str) -> bool:
    return (
        60 <= len(sentence) <= 220
        and not _in_capitals(sentence)
        and sentence.endswith(".")
        and re.fullmatch(r"[A-Za-z0-9 ,;:'’()\-.]+", sentence) is not None
        and len(re.findall(r"\d", sentence)) <= 4
        and " v. " not in sentence
        and "  " not in sentence  # a run of spaces is a layout's column gap, not the court's words
        and not sentence.endswith(" v.")
        and not re.search(r"\b(Id|See|Cf|Ibid)\b|\b[A-Z]\.$|\b(Mr|Ms|Dr|No|Co|Inc|Corp|Jr|St)\.", sentence)
    )


def _mutate_word(sentence: str) -> str | None:
    words = sentence.split(" ")
    for index, word in enumerate(words):
        if word in _SWAPS and index > 0:
            return " ".join([*words[:index], _SWAPS[word], *words[index + 1 :]])
    return None


def opinion_drafts(entry: dict, text: str, per_opinion: int = 8) -> list[Draft]:
    """A true draft and a fabricated one over the opinion's first reporter or neutral citation."""
    cites = [c for c in (_split_cite(c) for c in entry["cites"]) if c]
    if not cites:
        return []
    volume, reporter, first = cites[0]
    neutral = int(volume) > 1700  # a public-domain citation: paragraphs, not pages
    name = case_name(entry)
    plaintiff, _, defendant = name.partition(" v. ")
    year = entry.get("year")
    slot = f"{volume} {reporter} {first}"
    year_part = f" ({year})" if year else ""
    sentences, last = ([], int(first)) if neutral else paged_sentences(text, volume, reporter, int(first))
    step = max(1, len(sentences) // per_opinion) if sentences else 1
    chosen = sentences[::step][:per_opinion]
    stem = Path(entry["name"]).stem
    true, fab = Draft(f"{stem}.true"), Draft(f"{stem}.fabricated")
    o = entry["name"]
    true.add(
        f"The leading case is {name}, {slot}{year_part}.", [("true-cite", "true", ("case",), slot, o, slot)]
    )
    for page, sentence in chosen:
        quote = f"\u201c{sentence}\u201d"
        cite = f"{slot}, {page}"
        true.add(
            f"The court wrote that {quote} {name}, {cite}{year_part}. Id. at {page}.",
            [
                ("true-quote", "true", ("quotation",), quote, o, slot),
                ("true-pin", "true", ("case",), slot, o, slot),
                ("true-id", "true", ("id",), f"Id. at {page}", o, slot),
            ],
        )
        short = f"{volume} {reporter} at {page}"
        true.add(
            f"See {plaintiff.split(',')[0]}, {short}.", [("true-short", "true", ("case",), short, o, slot)]
        )
        altered = _mutate_word(sentence)
        if altered:
            fab.add(
                f"The court wrote that \u201c{altered}\u201d {name}, {cite}{year_part}.",
                [("word", "fabricated", ("quotation",), f"\u201c{altered}\u201d", o, slot)],
            )
        other = next((p for p, _ in sentences if p != page), None)
        if other is not None:
            fab.add(
                f"The court wrote that {quote} {name}, {slot}, {other}{year_part}.",
                [("quote-page", "fabricated", ("quotation", "case"), quote, o, slot)],
            )
    wrong_page = f"{volume} {reporter} {int(first) + 2}"
    wrong_volume = f"{int(volume) + 1} {reporter} {first}"
    fab.add(
        f"The leading case is {name}, {wrong_page}{year_part}.",
        [("page", "fabricated", ("case",), wrong_page, o, slot)],
    )
    fab.add(
        f"The leading case is {name}, {wrong_volume}{year_part}.",
        [("volume", "fabricated", ("case",), wrong_volume, o, slot)],
    )
    invented = INVENTED_PARTIES[sum(map(ord, stem)) % len(INVENTED_PARTIES)]
    wrong_name = f"{invented} v. {defendant}" if defendant else f"In re {invented}"
    fab.add(
        f"The leading case is {wrong_name}, {slot}{year_part}.",
        [("party", "fabricated", ("case",), slot, o, slot)],
    )
    if year:
        fab.add(
            f"The leading case is {name}, {slot} ({int(year) + 3}).",
            [("year", "fabricated", ("case",), slot, o, slot)],
        )
    if not neutral and sentences:
        beyond = f"{slot}, {last + 40}"
        # Where the copy prints no page after its first, its last page is unknown to anyone reading it:
        # a pin past it can only be unverifiable, so it is not counted among the held slots' fabrications
        # the verifier must contradict.
        category = "pin-range" if last > int(first) else "pin-range-unpaged"
        fab.add(
            f"The leading case is {name}, {beyond}{year_part}.",
            [(category, "fabricated", ("case",), slot, o, slot)],
        )
    return [d for d in (true, fab) if d.items]


LEADS = ("See", "See also", "Cf.", "First,", "Moreover,", "Accord", "But see")


def _joined_sentences(text: str) -> list[str]:
    """Sentences of a text without page markers, its lines joined, none broken by a line-end hyphen.

    A line that is only a number is a slip page's number or a margin's line number: a page may end
    there, with its footer, so no sentence runs over it; the piece after it continues one."""
    out: list[str] = []
    for index, chunk in enumerate(re.split(r"\n[ \t]*\d+[ \t]*(?=\n)", text)):
        joined = " ".join(line.strip() for line in chunk.splitlines() if line.strip())
        pieces = re.split(r"(?<=[.!?])\s+(?=[A-Z])", joined)
        out += [s for s in pieces[1 if index else 0 :] if _quotable(s) and "- " not in s]
    return out


def _paragraph_sentences(text: str) -> list[tuple[str, str]]:
    """(paragraph number, sentence) for each quotable sentence of a line that opens with a ``¶ N``."""
    out = []
    for line in text.splitlines():
        match = re.match(r"\s*¶\s?(\d+)\s+(.*)", line)
        if match:
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", match.group(2)):
                if _quotable(sentence):
                    out.append((match.group(1), sentence))
    return out


def _one_digit_off(number: str) -> str:
    """The number with its last digit changed, the way a docket or neutral number is mistyped."""
    digits = [i for i, c in enumerate(number) if c.isdigit()]
    at = digits[-1]
    return number[:at] + str((int(number[at]) + 3) % 10) + number[at + 1 :]


def extra_drafts(entry: dict, text: str, per_opinion: int = 8) -> list[Draft]:
    """Signals, parallel citations, supra, docket citations and paragraph pins, true and mutated."""
    stem, o = Path(entry["name"]).stem, entry["name"]
    true, fab = Draft(f"{stem}.more-true"), Draft(f"{stem}.more-fabricated")
    name = case_name(entry)
    lead = LEADS[sum(map(ord, stem)) % len(LEADS)]
    cites = [c for c in (_split_cite(c) for c in entry["cites"]) if c]
    year_part = f" ({entry['year']})" if entry.get("year") else ""
    if cites:
        slots = [" ".join(c) for c in cites[:2]]
        marks: list[Mark] = [("true-signal", "true", ("case",), slots[0], o, slots[0])]
        marks += [("true-parallel", "true", ("case",), slot, o, slot) for slot in slots[1:]]
        true.add(f"{lead} {name}, {', '.join(slots)}{year_part}.", marks)
        volume, reporter, first = cites[0]
        plaintiff = name.partition(" v. ")[0].split(",")[0]
        if int(volume) < 1700:
            paged, last = paged_sentences(text, volume, reporter, int(first))
            for page in sorted({p for p, _ in paged})[:2]:
                true.add(
                    f"{plaintiff}, supra, at {page}.",
                    [("true-supra", "true", ("case",), f"supra, at {page}", o, slots[0])],
                )
            if paged:
                fab.add(
                    f"The leading case is {name}, {slots[0]}{year_part}.",
                    [("true-cite", "true", ("case",), slots[0], o, slots[0])],
                )
                fab.add(
                    f"{plaintiff}, supra, at {last + 40}.",
                    [("supra-range", "fabricated", ("case",), f"supra, at {last + 40}", o, slots[0])],
                )
    for neutral in [" ".join(c) for c in cites if int(c[0]) > 1700]:
        paragraphs = _paragraph_sentences(text)
        for number, sentence in paragraphs[:: max(1, len(paragraphs) // per_opinion) or 1][:per_opinion]:
            quote = f"\u201c{sentence}\u201d"
            true.add(
                f"The court wrote that {quote} {name}, {neutral}, ¶ {number}.",
                [
                    ("true-para-quote", "true", ("quotation",), quote, o, neutral),
                    ("true-para", "true", ("case",), neutral, o, neutral),
                ],
            )
            other = next((n for n, _ in paragraphs if n != number), None)
            if other:
                fab.add(
                    f"The court wrote that {quote} {name}, {neutral}, ¶ {other}.",
                    [("para-quote", "fabricated", ("quotation", "case"), quote, o, neutral)],
                )
        wrong = _one_digit_off(neutral)
        fab.add(
            f"The leading case is {name}, {wrong}.", [("neutral", "fabricated", ("case",), wrong, o, neutral)]
        )
    if entry.get("docket"):
        docket, court_date = entry["docket"], entry["court_date"]
        true.add(
            f"{lead} {name}, {docket} ({court_date}).",
            [("true-docket", "true", ("case",), docket, o, docket)],
        )
        sentences = _joined_sentences(text)
        for sentence in sentences[:: max(1, len(sentences) // 4) or 1][:4]:
            quote = f"\u201c{sentence}\u201d"
            true.add(
                f"The court wrote that {quote} {name}, {docket} ({court_date}).",
                [("true-docket-quote", "true", ("quotation",), quote, o, docket)],
            )
            altered = _mutate_word(sentence)
            if altered:
                fake = f"\u201c{altered}\u201d"
                fab.add(
                    f"The court wrote that {fake} {name}, {docket} ({court_date}).",
                    [("docket-word", "fabricated", ("quotation",), fake, o, docket)],
                )
        wrong = _one_digit_off(docket)
        fab.add(
            f"The leading case is {name}, {wrong} ({court_date}).",
            [("docket", "fabricated", ("case",), wrong, o, docket)],
        )
    return [d for d in (true, fab) if d.items]


def sanctioned_draft() -> Draft:
    draft = Draft("sanctioned.fabricated")
    for name, cite, paren in SANCTIONED:
        draft.add(
            f"Plaintiff relies on {name}, {cite}{' ' + paren if paren else ''}.",
            [("sanctioned", "fabricated", ("case",), cite, "", cite)],
        )
    return draft


def generate(opinions: Path, entries: list[dict], per_opinion: int = 8) -> list[Draft]:
    """Every generated draft over ``entries`` (manifest entries whose files are in ``opinions``)."""
    drafts: list[Draft] = []
    for entry in sorted(entries, key=lambda e: e["name"]):
        path = opinions / entry["name"]
        if path.is_file():
            text = _text_pages(path)
            drafts.extend(opinion_drafts(entry, text, per_opinion))
            drafts.extend(extra_drafts(entry, text, per_opinion))
    drafts.append(sanctioned_draft())
    return drafts
