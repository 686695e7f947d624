"""The same opinions in other real-world layouts: the verifier must reach the same verdicts on each.

A few real opinions (the shared real corpus, and tune-part opinions of the wide corpus where it is
assembled; never a held-back one) are printed again by tests/support/relayout.py with their page
boundaries in other forms (``*N``, ``[*N]``, ``[N]``, "Page N" lines, bracketed lines, a break
inside a hyphenated word, parallel pages as ``*N``/``**N``) and inside a court's sheets (wrapped and
hyphenated lines, slip-page footers, running heads, ECF stamps, form feeds, a real PDF, pleading
paper), with a scan's split words, or with the caption wrapped too. No layout changes a word or the
page a word is on, so each true and fabricated item generated from the original file
(tests/verify_wide/generate.py), and quotations of sentences a page break runs through, must get
the verdict they get on the original. The sheets end inside the quoted sentences, so every head
and footer lies where it can break a quotation. Below them, the rules the layouts called for.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import pytest

from drafting.verify import load_matter_index, verify_with
from drafting.verify.authorities import captions
from drafting.verify.checks_quotes import scan_defects_only
from drafting.verify.library import add_citations
from drafting.verify.opinion_text import read_opinion
from drafting.verify.sources import Page
from drafting.verify.text import normalize_for_match
from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from tests.support.relayout import crossing_sentences, layouts, split_pages
from tests.support.verify_library import ingest_library, record_and_opinions, verify_text
from tests.verify_wide.assemble import load_manifest
from tests.verify_wide.generate import Draft, case_name, extra_drafts, opinion_drafts
from tests.verify_wide.score import verdict_of
from tests.verify_wide.split import recorded_heldout

# One of each way the sources print their pages: Fastcase's bracketed lines of two reporters, a
# slip opinion with none, the Caselaw Access Project's stars, and Columbia's "Page N" lines.
OPINIONS = (
    "petro-lubricant-v-adelman.txt",
    "fisher-v-university-of-texas.txt",
    "wester-v-missouri-department-of-labor-and-industrial-relatio-134-s-w-3d-757.txt",
    "rockstad-v-global-finance-investment-co-41-p-3d-583.txt",
)
PER_OPINION = 3
SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "verify_real" / "opinions"
GIVEN = json.loads((Path(__file__).parent / "verify_real" / "citations.json").read_text())
LAYOUTS = (
    "star",
    "star-in-word",
    "lexis-star",
    "bare-bracket",
    "page-line",
    "bracket-line",
    "bracket-split-word",
    "parallel-stars",
    "lexis-parallel",
    "ocr-spacing",
    "wrapped",
    "wrapped-hyphen",
    "wrapped-caption",
    "footer-dash",
    "footer-bare",
    "footer-of",
    "two-sheets-footer-of",
    "head-cite",
    "head-parties",
    "head-court",
    "ecf",
    "form-feeds",
    "pdf",
    "pdf-star",
    "pdf-split-word",
    "pdf-pleading-paper",
    "pdf-two-pages-parties",
)
Key = tuple[str, int, str]  # draft, item's start, its category


def _source(name: str) -> Path | None:
    named = os.environ.get("CHAMBERS_REAL_OPINIONS")
    for folder in (Path(named) if named else None, SHARED):
        if folder is not None and (folder / name).is_file():
            return folder / name
    return None


def _file_name(name: str, data: str | bytes) -> str:
    return Path(name).stem + (".pdf" if isinstance(data, bytes) else ".txt")


def _crossing_drafts(entry: dict, text: str) -> list[Draft]:
    """Quotations of sentences a page break runs through, cited to either page (true) or to a page
    they are not on (fabricated): the marker inside them, in whatever form, is not part of them."""
    cites = [c for c in entry["cites"] if re.fullmatch(r"\d+ .+ \d+", c)]
    if not cites:
        return []
    cite = cites[0]
    draft, name, year = Draft(f"{Path(entry['name']).stem}.crossing"), case_name(entry), entry.get("year")
    pages = sorted({n for n, _ in split_pages(text, cite).pages})
    for start, end, sentence in crossing_sentences(text, cite):
        other = next((p for p in pages if p not in (start, end)), None)
        for pin, category in (
            (start, "true-cross-quote"),
            (end, "true-cross-end-quote"),
            (other, "cross-page"),
        ):
            if pin is not None:
                quote = f"\u201c{sentence}\u201d"
                truth = "fabricated" if category == "cross-page" else "true"
                draft.add(
                    f"The court wrote that {quote} {name}, {cite}, {pin} ({year}).",
                    [(category, truth, ("quotation",), quote, entry["name"], cite)],
                )
    return [draft] if draft.items else []


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[Key, tuple[str, str]]]:
    """Each layout's verdict (and message) on every generated item, the original's under "original"."""
    found = {name: _source(name) for name in OPINIONS}
    present = {name: path for name, path in found.items() if path is not None}
    if "petro-lubricant-v-adelman.txt" not in present:
        pytest.skip("the real opinions are not here: put them in ../shared/corpus/verify_real/opinions")
    logging.disable(logging.WARNING)
    root = tmp_path_factory.mktemp("relayout")
    database = root / "chambers.sqlite3"
    record = root / "record"
    record.mkdir()
    (record / "note.txt").write_text("The record of this matter is not cited here.\n")
    create_matter(database, "m", [record])
    ingest_matter(database, "m", tessdata=None)
    manifest = {e["name"]: e for e in load_manifest()}
    drafts = []
    folders: dict[str, Path] = {}
    for name, path in present.items():
        entry, text = manifest[name], path.read_text(encoding="utf-8")
        made = opinion_drafts(entry, text, PER_OPINION) + extra_drafts(entry, text, PER_OPINION)
        made += _crossing_drafts(entry, text)
        drafts += made
        quoted = [
            i.text.strip("\u201c\u201d") for d in made for i in d.items or [] if i.category.endswith("quote")
        ]
        for layout, data in layouts(entry, text, quoted).items():
            folder = folders.setdefault(layout, root / "layouts" / layout)
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / _file_name(name, data)
            target.write_bytes(data) if isinstance(data, bytes) else target.write_text(data, encoding="utf-8")
    out: dict[str, dict[Key, tuple[str, str]]] = {}
    for layout, folder in folders.items():
        library = f"library-{layout}"
        create_matter(database, library, [folder])
        ingest_matter(database, library, tessdata=None)
        for name, cites in GIVEN.items():  # the attorney's citations of the slip opinions
            for path in folder.glob(Path(name).stem + ".*"):
                add_citations(database, library, path, cites)
        index = load_matter_index(database, "m", library)
        seen: dict[Key, tuple[str, str]] = {}
        for draft in drafts:
            report = verify_with(database, draft.text, draft.name + ".md", index)
            for item in draft.items or []:
                over = [
                    f
                    for f in report.flags
                    if f.start < item.end and item.start < f.end and f.kind in item.kinds
                ]
                over.sort(key=lambda f: (item.kinds.index(f.kind), abs(f.start - item.start)))
                seen[(draft.name, item.start, item.category)] = (
                    (verdict_of(over[0]), over[0].message) if over else ("none", "")
                )
        out[layout] = seen
    logging.disable(logging.NOTSET)
    return out


def test_no_held_back_opinion_is_relaid() -> None:
    assert not set(OPINIONS) & set(recorded_heldout())


def test_the_original_layout_gets_true_items_right_and_blocks_the_fabricated(
    verdicts: dict[str, dict[Key, tuple[str, str]]],
) -> None:
    """The items are worth comparing: on the original files no true item is contradicted and no
    fabricated one verified (a layout that agrees with the original agrees with the truth)."""
    original = verdicts["original"]
    assert len(original) >= 40
    crossing = [verdict for key, (verdict, _) in original.items() if "cross" in key[2]]
    assert len(crossing) >= 3 and "contradicted" in crossing and "verified" in crossing
    wrong = [
        (key, verdict)
        for key, (verdict, _) in original.items()
        if (verdict == "contradicted") == key[2].startswith("true") or verdict == "none"
        if verdict != "unverifiable"
    ]
    assert not wrong


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_reaches_the_original_verdicts(
    verdicts: dict[str, dict[Key, tuple[str, str]]], layout: str
) -> None:
    original, laid = verdicts["original"], verdicts[layout]
    changed = [
        f"{key[0]} {key[2]}@{key[1]}: {original[key][0]} -> {laid[key][0]}: {laid[key][1][:200]}"
        for key in original
        if laid[key][0] != original[key][0]
    ]
    assert not changed, "\n".join(changed)


def _pages(text: str) -> list[Page]:
    return [Page(0, 0, 0, "opinion.txt", "opinion.txt", "opinion", 1, None, text, "")]


def test_bare_bracketed_numbers_are_pages_only_where_they_run_as_the_reporters_pages_do() -> None:
    paged = "10 F.4th 100\nThe first page [101] runs on to the second [102] and the third.\n"
    reading = read_opinion(_pages(paged), ("10 F.4th 100",))
    assert reading.series["10 F.4th 100"].numbers == [101, 102]
    assert "first page runs on to the second and the third" in reading.text
    notes = "10 F.4th 100\nAs held [1] and again [2], see Roe, 5 A.D.3d 240 [2009]; Doe [1986].\n"
    reading = read_opinion(_pages(notes), ("10 F.4th 100",))  # footnote calls and New York's years
    assert "10 F.4th 100" not in reading.series
    assert "as held 1 and again 2" in reading.text and "2009" in reading.text


def test_a_footnote_printed_after_the_last_page_lies_on_the_page_its_star_names() -> None:
    # In re Marriage of Lyle, 199 Wash. App. 629, as the CAP conversion prints it (cut short): the
    # judges' line of page 634 out of place at the top, the body's pages 630-634, then the footnotes,
    # each opening with the star of the page it stands on.
    text = (
        "199 Wash. App. 629 (2017)\n*634 Fearing, C.J., and Korsmo, J., concur.\n*630 Pennell, J.\n"
        "The judge may act on a motion for revision. *631 The petition was supported. *632 It was "
        "remanded. *633 The judge may issue findings. *634 The grounds were shown.\n"
        "*632 1 The constitution states commissioners are empowered to act.\n"
        "*633 2 Prior to modification, neither parent had been obliged to make support payments.\n"
        "A third note, on the same page as the second.\n"
    )
    reading = read_opinion(_pages(text), ("199 Wash. App. 629",))
    series = reading.series["199 Wash. App. 629"]
    assert series.page_at(reading.text.index("the grounds were shown")) == 634
    assert series.page_at(reading.text.index("1 the constitution states")) == 632
    assert series.page_at(reading.text.index("2 prior to modification")) == 633
    assert series.page_at(reading.text.index("a third note")) == 633
    assert series.page_at(reading.text.index("fearing")) == 629  # a judges' line out of place stays out
    assert series.last == 634
    # a star out of order in the body, a footnote call, is no page
    body = "10 F.4th 100\nFirst. *101 Second *102 third, as in note *1 and *103 fourth.\n*3 A note.\n"
    series = read_opinion(_pages(body), ("10 F.4th 100",)).series["10 F.4th 100"]
    assert series.numbers == [101, 102, 103]


def test_a_star_after_at_in_a_citation_is_a_pin_into_another_opinion_not_a_page() -> None:
    # Bingham v. Massachusetts, 616 F.3d 1 (1st Cir. 2010), as vendor text (cut short): its own star
    # pages run *2 to *4, among Westlaw pins of the district court's unpaged rulings.
    text = (
        "616 F.3d 1 (2010)\n*2 LYNCH, Chief Judge.\n"
        "The district court dismissed the suit, Bingham v. Massachusetts (Bingham I), No. 08-11770, "
        "2009 WL 1259963, at *1-2 (D.Mass. May 6, 2009), and affirmed that, 2009 WL 1886128, at *2. "
        "We do not reach the Eleventh Amendment issues, nor *3 do we reach any other. See Bingham I, "
        "at *1. Id. at *1. The proprietors included *4 Indians who had improved the land.\n"
    )
    reading = read_opinion(_pages(text), ("616 F.3d 1",))
    series = reading.series["616 F.3d 1"]
    assert series.numbers == [2, 3, 4]
    assert "2009 wl 1259963, at 1-2" in reading.text  # the pin stays, its star normalized away
    assert series.page_at(reading.text.index("indians who had improved")) == 4
    # a page break after the word "at" in a sentence is still a page
    plain = "10 F.4th 100\nThe court looked at *101 the evidence and at *102 the record.\n"
    assert read_opinion(_pages(plain), ("10 F.4th 100",)).series["10 F.4th 100"].numbers == [101, 102]


def test_a_bracketed_citation_of_another_case_in_the_same_volume_is_no_page() -> None:
    # United States v. Welch, 15 F.3d 1202 (1st Cir. 1993), as public.resource.org prints it: no page
    # markers of its own, and its citations of Sepulveda, in the same volume, in brackets.
    text = (
        "15 F.3d 1202\nCYR, Circuit Judge.\nSee United States v. Sepulveda, (1st Cir.1993) [15 F.3d 1161] "
        "(affirming convictions); see also United States v. Sepulveda (1st Cir.1993) [15 F.3d 1216].\n"
    )
    assert "15 F.3d 1202" not in read_opinion(_pages(text), ("15 F.3d 1202",)).series
    paged = "15 F.3d 1202\nFirst words. [15 F.3d 1203] Second page. [15 F.3d 1204] Third page.\n"
    assert read_opinion(_pages(paged), ("15 F.3d 1202",)).series["15 F.3d 1202"].numbers == [1203, 1204]


LONG = (
    "the statute of limitations on a claim of defamation runs from the first publication, and the court "
    "has repeatedly held that a later posting which is not materially changed is no new publication"
)


@pytest.mark.parametrize(
    ("quoted", "source", "excused"),
    [
        ("the court repeatedly held", "the court rpea tedly held", True),  # split, a letter dropped
        ("the court repeatedly held", "the court repea tedly held", True),
        ("the cross-appeal is moot", "the crossappeal is moot", True),  # spacing only
        ("the court was bound here", "the court is bound here", False),  # a changed word, no split
        ("a court repeatedly held", "the court repea tedly held", False),  # a changed word beside a split
        (LONG.replace("is", "was"), LONG.replace("repeatedly", "repea tedly"), False),  # within four edits
        ("the court repeatedly held", "the court rep ortedly held", False),  # a split word, but another
    ],
)
def test_a_scan_defect_excuses_a_split_word_never_a_changed_one(
    quoted: str, source: str, excused: bool
) -> None:
    assert scan_defects_only(quoted, source) is excused


def test_a_quotation_a_scan_broke_is_still_held_to_its_page(tmp_path: Path) -> None:
    record, opinions = record_and_opinions(tmp_path)
    (opinions / "alpha-v-beta.txt").write_text(
        "ALPHA CO. v. BETA CORP.\n10 F.4th 100 (2d Cir. 2021)\nThe first page says the contract is void.\n"
        "[10 F.4th 101]\nThe second page says damages are owed.\n[10 F.4th 102]\n"
        "The third page holds that the court rpea tedly declined to award them.\n"
    )
    database = ingest_library(tmp_path, record, opinions)
    quote = "\u201cthe court repeatedly declined to award them\u201d"
    flags = {}
    for pin in (102, 101):
        report = verify_text(
            database,
            tmp_path,
            f"It held {quote} Alpha Co. v. Beta Corp., 10 F.4th 100, {pin} (2d Cir. 2021).\n",
        )
        flags[pin] = next(f for f in report.flags if f.kind == "quotation")
    assert (flags[102].severity, flags[102].verdict) == ("warn", "verified")
    assert flags[101].severity == "block" and "page 102" in flags[101].message, flags[101].message


def _sheets(*texts: str) -> list[Page]:
    return [Page(i, i, 0, "order.pdf", "order.pdf", "order", i + 1, None, t, "") for i, t in enumerate(texts)]


def test_a_short_orders_footer_and_party_head_printed_once_are_not_its_words() -> None:
    reading = read_opinion(
        _sheets(
            "ALPHA CO. v. BETA CORP.\nThe court finds that the con-\nPage 1 of 2\n",
            "ALPHA v. BETA\ntract was void from the start.\nPage 2 of 2\n",
        ),
        (),
    )
    assert "the court finds that the contract was void from the start" in reading.text
    assert reading.text.startswith("alpha co. v. beta corp.")  # the caption on the first page stays


@pytest.mark.parametrize(
    ("top", "head"),
    [
        ("ALPHA v. BETA", True),
        ("Alpha Co. v. Beta Corp., Inc.", True),
        ("IN RE EADY", True),
        ("UNITED STATES BOARD OF TAX APPEALS", True),  # the court's name, as the first page prints it
        ("UNITED STATES COURT OF FEDERAL CLAIMS", False),  # a heading the first page does not print
        ("In Alpha v. Beta, the court held that the contract", False),
        ("the court held in Alpha v. Beta that", False),
    ],
)
def test_only_a_page_top_that_names_the_case_is_a_running_head(top: str, head: bool) -> None:
    first = "United States Board of Tax Appeals\nFirst page of the order.\n"
    reading = read_opinion(_sheets(first, f"{top}\nThe order is affirmed.\n"), ())
    assert (normalize_for_match(top) not in reading.text[reading.pdf_offsets[1] :]) is head


def test_a_party_name_a_pdf_wrapped_at_its_margin_stays_in_the_caption() -> None:
    caption = (
        "447 N.J.Super. 391\nPetro-Lubricant Testing Laboratories, Inc., and John Wintermute,\n"
        "Plaintiffs-Appellants/Cross-Respondents,\nv.\nAsher Adelman, Defendant-Respondent.\n"
    )
    found = captions(_pages(caption), {"447 N.J.Super. 391"})
    assert found and "Petro-Lubricant Testing Laboratories" in found[0], found


def test_a_text_copys_form_feeds_are_its_pages_and_a_caption_skips_pleading_line_numbers() -> None:
    text = "ALPHA CO. v. BETA CORP.\nThe court finds that the con-\n\fALPHA v. BETA\ntract was void.\n"
    assert "finds that the contract was void" in read_opinion(_pages(text), ()).text
    pleading = "1\nALPHA CO.,\n2\nPlaintiff,\n3\nv.\n4\nBETA CORP.,\n5\nDefendant.\n"
    assert captions(_pages(pleading), set()) == ["ALPHA CO., Plaintiff, v. BETA CORP., Defendant."]


def test_an_uncited_quotation_a_page_break_runs_through_is_found_in_the_library(tmp_path: Path) -> None:
    record, opinions = record_and_opinions(tmp_path)
    (opinions / "alpha-v-beta.txt").write_text(
        "ALPHA CO. v. BETA CORP.\n10 F.4th 100 (2d Cir. 2021)\nThe court held that the contract\n"
        "[10 F.4th 101]\nwas void from the start.\n"
    )
    database = ingest_library(tmp_path, record, opinions)
    report = verify_text(
        database, tmp_path, "The contract failed: \u201cthe contract was void from the start.\u201d\n"
    )
    flag = next(f for f in report.flags if f.kind == "quotation")
    assert flag.severity == "warn" and "authorities library" in flag.message, flag.message


def test_a_page_marker_at_a_pages_top_is_never_taken_for_its_running_head() -> None:
    reading = read_opinion(
        _sheets("ALPHA v. BETA\n10 F.3d 210\n*211\nFirst.\n", "*212\nSecond.\n"), ("10 F.3d 210",)
    )
    assert reading.series["10 F.3d 210"].numbers == [211, 212]


def test_a_bracketed_page_a_line_end_broke_in_two_is_still_a_page() -> None:
    text = "58 Va.App. 244\nThe first page says that the document was only an [58 Va.App.\n250] authentication.\n"
    reading = read_opinion(_pages(text), ("58 Va.App. 244",))
    assert reading.series["58 Va.App. 244"].numbers == [250]
    assert "was only an authentication" in reading.text
