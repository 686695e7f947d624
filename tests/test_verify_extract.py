"""Extraction: spans index the draft as written, and the forms eyecite misses are caught."""

from __future__ import annotations

from drafting.verify.dates import find_dates
from drafting.verify.verifier import extract


def test_spans_point_into_the_draft_even_across_newlines() -> None:
    draft = "See Foo v. Bar, 1 F.3d 2\n(9th Cir. 1999), and the invoice of\n$25,200.00 (HPP-000004)."
    items = extract(draft, frozenset({"HPP"}))
    assert {(i.kind, draft[i.draft_start : i.draft_end]) for i in items} >= {
        ("case", "1 F.3d 2"),
        ("amount", "$25,200.00"),
        ("bates", "HPP-000004"),
    }
    amount = next(i for i in items if i.kind == "amount")
    assert amount.pin is not None and amount.pin.kind == "bates"


def test_statutes_without_a_section_sign_and_unknown_reporters_and_gpu_names() -> None:
    draft = "Under 50 U.S.C. 1701, see Smith v. Jones, 12 Fake. Rep. 4 (2001) (citing RTX 3060)."
    items = {(i.kind, i.text): i for i in extract(draft, frozenset({"HPP"}))}
    assert ("statute", "50 U.S.C. 1701") in items
    assert items[("case", "12 Fake. Rep. 4")].fields["unparsed"] == "1"
    rtx = items[("bates", "RTX 3060")]
    assert rtx.fields["known"] == "0" and rtx.fields["cited"] == "1"


def test_dates_in_us_formats_ranges_and_on_or_about() -> None:
    text = "On or about May 1 to May 24, 2024; 04/02/2024; 2 Apr 2024; 2024-01-15; 1/15/24; June 12."
    found = find_dates(text)
    assert [d.iso for d in found] == [
        "2024-05-01",
        "2024-05-24",
        "2024-04-02",
        "2024-04-02",
        "2024-01-15",
        "2024-01-15",
        "2024-06-12",
    ]
    assert found[0].approximate and not found[1].approximate
    items = extract(text, frozenset())
    first = next(i for i in items if i.kind == "date")
    assert first.fields["range_to"] == "2024-05-24"


def test_short_forms_and_id_resolve_to_their_full_citation() -> None:
    draft = "Foo v. Bar, 1 F.3d 2, 3 (9th Cir. 1999).\n\nLater: Id. at 4. Foo, 1 F.3d at 5."
    items = extract(draft, frozenset())
    full = next(i for i in items if i.kind == "case" and i.fields["form"] == "full")
    short = next(i for i in items if i.kind == "case" and i.fields["form"] == "short")
    id_cite = next(i for i in items if i.kind == "id")
    assert short.refers_to is full and id_cite.refers_to is full


def test_a_pin_before_a_citations_first_page_points_short_forms_and_supra_elsewhere() -> None:
    draft = (
        "Foo v. Bar, 570 U.S. 297, 310 (2013). Opposing counsel cites Foo v. Bar, 570 U.S. 329 (2013). "
        "See 570 U.S. at 310. Foo, supra, at 312. Id. at 313. Foo, supra, at 340. 570 U.S. at 331. Foo, supra, at *2."
    )
    items = extract(draft, frozenset())
    true_cite, mis_paged = [i for i in items if i.kind == "case" and i.fields["form"] == "full"]
    targets = [i.refers_to for i in items if i.kind == "id" or i.fields.get("form") in ("short", "supra")]
    # 310, 312 and 313 cannot lie in an opinion beginning on page 329; 340 and 331 can, and the later
    # citation is then taken; a star page says nothing about reporter pages.
    assert targets == [true_cite, true_cite, true_cite, mis_paged, mis_paged, mis_paged]


def test_a_word_or_two_in_quotation_marks_is_a_term_and_still_checked() -> None:
    items = extract('The "Completion Date" passed; he said "we finished the panels" then.', frozenset())
    assert [(i.kind, i.fields["quote"]) for i in items if i.kind in ("term", "quotation")] == [
        ("term", "Completion Date"),
        ("quotation", "we finished the panels"),
    ]


def test_collapsed_sections_map_every_character_back_to_the_draft() -> None:
    import random

    from drafting.verify.text import sections

    rng = random.Random(1)
    pieces = ["a", "b", " ", "  ", "\n", "\n\n", "\t", "# ", "x.", " \n", "\r\n"]
    for _ in range(500):
        draft = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 80)))
        for section in sections(draft, limit=20):
            assert "  " not in section.text and section.text == section.text.strip()
            for i, ch in enumerate(section.text):
                start, end = section.original(i, i + 1)
                assert draft[start:end] == ch or (ch == " " and draft[start:end].isspace())


def test_hyphenated_public_domain_citations_reporters_db_lacks_and_ex_rel_parties() -> None:
    draft = (
        "Gift Surplus, LLC v. State ex rel. Cooper, 2022-NCSC-1, ¶ 37, follows Sandhill Amusements, "
        "Inc. v. State, 2021-NCCOA-45."
    )
    items = {i.text: i for i in extract(draft, frozenset())}
    gift = items["2022-NCSC-1"].fields
    assert (gift["volume"], gift["reporter"], gift["page"], gift["year"]) == ("2022", "NCSC", "1", "2022")
    assert (gift["plaintiff"], gift["defendant"]) == ("Gift Surplus, LLC", "State ex rel. Cooper")
    assert items["2021-NCCOA-45"].fields["plaintiff"] == "Sandhill Amusements, Inc."
    # an abbreviation before a capital ends no sentence: the defendant is still read
    (abbreviated,) = extract("Gift Surplus, LLC v. Carolina Indus. Comm'n, 2022-NCSC-1, ¶ 3.", frozenset())
    assert abbreviated.fields["defendant"] == "Carolina Indus. Comm'n"
    # Ohio's hyphenated form is eyecite's own: a text with nothing else in it still goes to eyecite
    (ohio,) = extract("The rule is settled. State v. Doe, 2021-Ohio-1234.", frozenset())
    assert (ohio.text, ohio.fields["reporter"], ohio.fields["defendant"]) == ("2021-Ohio-1234", "Ohio", "Doe")


def test_a_short_form_pinned_before_its_opinions_first_page_is_blocked() -> None:
    from drafting.verify.checks_cases import check_dependent
    from drafting.verify.checks_record import make_flag

    items = extract("Foo v. Bar, 570 U.S. 297 (2013). 570 U.S. at 250. 570 U.S. at 301.", frozenset())
    full = next(i for i in items if i.kind == "case" and i.fields["form"] == "full")
    verified = make_flag(full, "ok", "Verified.")
    before, inside = [check_dependent(i, verified) for i in items if i.fields.get("form") == "short"]
    assert before.severity == "block" and "pinned to page 250, before the page" in before.message
    assert inside.severity == "ok"


def test_eyecite_overlap_notes_never_reach_the_terminal() -> None:
    """A fresh process, as `chambers` is: reading a library's opinion (not only a draft) stays quiet."""
    import subprocess
    import sys

    code = (
        "import logging; logging.basicConfig(level=logging.WARNING)\n"
        "from drafting.verify.authorities import parse_citation\n"
        "print(parse_citation('Id. 1 U.S. 1 (1990)'))\n"
        "from drafting.verify.extract_citations import extract_citations\n"
        "extract_citations('Smith v. Jones, 1 U.S. 1, 5 U.S.C. § 552 (1990).')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "1 U.S. 1" in done.stdout
    assert "Unknown overlap" not in done.stderr, done.stderr
