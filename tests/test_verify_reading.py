"""How the verifier reads legal text: normalisation, sentences, party names, Bates numbers, attachment.

Pure functions over short strings taken from, or shaped like, the real material in
tests/verify_real (slip opinion line breaks, Bluebook abbreviations, productions without a
separator).
"""

from __future__ import annotations

import pytest

from drafting.verify.checks_cases import word_in_caption
from drafting.verify.extract_citations import _parties, extract_citations
from drafting.verify.extract_record import extract_record
from drafting.verify.text import normalize_for_match, sections, sentence_bounds
from drafting.verify.verifier import extract


@pytest.mark.parametrize(
    ("source", "quoted"),
    [
        ("a civil war cam\u00adpaign, and a famed", "a Civil War campaign, and a famed"),  # soft hyphen
        ("it was ulti-\nmately affirmed", "it was ultimately affirmed"),  # line-end hyphenation
        ("the Compact pre-\nempts state law", "the Compact pre-empts state law"),
        (
            "a congressionally approved compact, as a federal law, pre-empts",
            "compact, as a federal law, preempts",
        ),
        ("the \ufb01nal judgment", "the final judgment"),  # ligature
        ("Tarrant\u2019s claims lack merit", "Tarrant's claims lack merit"),  # curly apostrophe
        ("under \u00a7\u00a05.05(b)(1)", "under § 5.05(b)(1)"),  # section sign and no-break space
        ("a university\u2019s \u201cjudgment that", "a university's judgment that"),
    ],
)
def test_normalised_source_and_quotation_read_alike(source: str, quoted: str) -> None:
    assert normalize_for_match(quoted) in normalize_for_match(source)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        (
            "Pre-\nempts the  \u201cRule\u201d\u00a0\u2014 [T]he \ufb01rm\u2019s \u00a7\u20091",
            "preempts the rule - the firm's 1",
        ),
        ("a\u00adb  c\t\td", "ab c d"),  # a soft hyphen with no line break, runs of spaces and tabs
        ("  Tab\tand\n\nline  ", "tab and line"),
        ("\u00c9TAT \u2013 x-ray [a]nd (b) *5", "tat - xray and b 5"),  # a letter outside a-z is a space
        ("1,000.00 $ 5% ; :", "1,000.00 $ 5% ; :"),  # kept as they are: nothing to replace
        ("the court's 'clear' rule, the parties' own", "the court's clear rule, the parties own"),  # marks go
        ("-\n-", "- -"),  # a hyphen between no letters is no layout hyphen
        ("", ""),
    ],
)
def test_normalisation_of_each_kind_of_character(text: str, read: str) -> None:
    """Each step is skipped where its character is absent; the reading is the same either way."""
    assert normalize_for_match(text) == read


def test_sentences_never_cut_a_citation_at_a_legal_abbreviation() -> None:
    text = (
        "See Tarrant Reg\u2019l Water Dist. v. Herrmann, 569 U.S. 614 (2013). Next Int'l Elec. Co. v. "
        "Gen. Corp., 905 F. Supp. 2d 121 (D.D.C. 2012); Smith v. Univ. of Tex., 88 Cal. App. 5th 301 (2023). Then."
    )
    got = [text[a:b] for a, b in sentence_bounds(text)]
    assert got == [
        "See Tarrant Reg\u2019l Water Dist. v. Herrmann, 569 U.S. 614 (2013).",
        "Next Int'l Elec. Co. v. Gen. Corp., 905 F. Supp. 2d 121 (D.D.C. 2012); "
        "Smith v. Univ. of Tex., 88 Cal. App. 5th 301 (2023).",
        "Then.",
    ]


@pytest.mark.parametrize(
    ("text", "plaintiff", "defendant"),
    [
        # eyecite reads these right, and its reading is used
        ("Shaboon v. Egyptair, 2013 IL App (1st) 111279-U (2013).", "Shaboon", "Egyptair"),
        # eyecite takes the whole sentence, or "Inc." alone, for the plaintiff: our own reading
        (
            "The Supreme Court settled the matter in Delta Air Lines, Inc. v. Tarrant Reg'l Water Dist., "
            "569 U.S. 614 (2013).",
            "Delta Air Lines, Inc.",
            "Tarrant Reg'l Water Dist.",
        ),
        (
            "The Tenth Circuit was affirmed in a unanimous decision in Oklahoma v. Herrmann, 569 U.S. 614 (2013).",
            "Oklahoma",
            "Herrmann",
        ),
        # a parallel citation is not part of the defendant's name
        (
            "Fisher v. Univ. of Tex. at Austin, 570 U.S. 297, 133 S. Ct. 2411 (2013).",
            "Fisher",
            "Univ. of Tex. at Austin",
        ),
    ],
)
def test_party_names_from_eyecite_where_right_and_our_reading_where_not(
    text: str, plaintiff: str, defendant: str
) -> None:
    cites = [c for c in extract_citations(text) if c.kind == "case"]
    assert (cites[-1].fields["plaintiff"], cites[-1].fields["defendant"]) == (plaintiff, defendant)


def test_eyecite_parties_that_the_text_does_not_bear_out_are_not_used() -> None:
    text = "In Grutter the Court said so. Fisher v. Univ. of Tex. at Austin, 570 U.S. 297 (2013)."
    at = text.index("570")
    assert _parties(text, at, ("Inc.", "Austin")) == ("Fisher", "Univ. of Tex. at Austin")
    assert _parties(text, at, ("In Grutter the Court said so. Fisher", "Univ. of Tex. at Austin")) == (
        "Fisher",
        "Univ. of Tex. at Austin",
    )


@pytest.mark.parametrize(
    ("word", "caption", "found"),
    [
        ("Univ.", "fisher v university of texas at austin", True),
        ("Reg'l", "tarrant regional water district", True),
        ("Reg\u2019l", "tarrant regional water district", True),
        ("Dist.", "tarrant regional water district", True),
        ("Airlines", "delta air lines inc", True),
        ("Bollinger", "fisher v university of texas at austin", False),
        ("Zicherman", "calvary chapel of bangor v janet t mills", False),
    ],
)
def test_abbreviated_party_words_match_the_caption(word: str, caption: str, found: bool) -> None:
    assert word_in_caption(word.replace("\u2019", "'"), frozenset(caption.split())) is found


@pytest.mark.parametrize(
    ("text", "prefix", "first", "last"),
    [
        ("(ABC0001234)", "ABC", 1234, 1234),  # no separator: the prefix is the letters
        ("(ABC-0001234)", "ABC", 1234, 1234),
        ("(ABC 0001234)", "ABC", 1234, 1234),
        ("(ABC_0001234)", "ABC", 1234, 1234),
        ("ABC0000003-ABC0000004", "ABC", 3, 4),
        ("ABC0000005 through ABC0000006", "ABC", 5, 6),
        ("HPP-000004-06", "HPP", 4, 6),
    ],
)
def test_bates_numbers_as_productions_write_them(text: str, prefix: str, first: int, last: int) -> None:
    (item,) = [i for i in extract_record(text, frozenset({prefix})) if i.kind == "bates"]
    assert (item.fields["prefix"], int(item.fields["first"]), int(item.fields["last"])) == (
        prefix,
        first,
        last,
    )


@pytest.mark.parametrize(
    "text",
    [
        "Matter of Z-Z-O-, 26 I&N Dec. 586 (BIA 2015).",
        "Doe v. F.B.I., 218 F.R.D. 256 (D. Colo. 2003).",
        "Martinez v. Delta Airlines, Inc., 2019 WL 4639462 (Tex. App. 2019).",
        "Matter of A-B-, 27 I&N Dec. 316 (A.G. 2018), and the Board in (BIA 2022).",
    ],
)
def test_agency_and_reporter_abbreviations_are_never_bates_numbers(text: str) -> None:
    assert [i.text for i in extract(text, frozenset()) if i.kind == "bates"] == []


def _pin_of(draft: str, quote_start: str) -> str | None:
    items = extract(draft, frozenset({"ABC"}))
    quote = next(i for i in items if i.kind == "quotation" and i.text.startswith(quote_start))
    return quote.pin.text if quote.pin is not None else None


def test_a_quotation_takes_a_citation_in_its_sentence_or_the_next_of_the_same_paragraph() -> None:
    assert _pin_of('It said "we hold that the claims lack merit" (ABC0000002).', '"we hold') == "ABC0000002"
    assert (
        _pin_of('"We hold that the claims lack merit." Tarrant, 569 U.S. at 620.', '"We hold')
        == "569 U.S. at 620"
    )
    assert _pin_of('"We hold that the claims lack merit." Id. at 620.', '"We hold') == "Id. at 620"
    assert (
        _pin_of(
            'The Board said "a passenger is never at fault." Matter of Z-Z-O-, 26 I&N Dec. 586 (BIA 2015).',
            '"a p',
        )
        == "26 I&N Dec. 586"
    )
    # two sentences on, or across a paragraph break: not its source
    assert _pin_of('"We hold that the claims lack merit." The Court went on. Id. at 620.', '"We hold') is None
    assert _pin_of('"We hold that the claims lack merit."\n\nTarrant, 569 U.S. at 620.', '"We hold') is None


def test_sections_keep_spans_in_the_draft_as_written() -> None:
    draft = "One  line\n\n  Second   paragraph."
    section = next(iter(sections(draft)))
    start = section.text.index("Second")
    assert draft[slice(*section.original(start, start + 6))] == "Second"
