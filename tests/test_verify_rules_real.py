"""The verifier's general rules, each on the real opinions of tests/verify_real (see its SOURCES.md).

Docket-number citations matched by docket (an unreported Fifth Circuit opinion with no reporter
citation), pins held to the pages a vendor text prints, a quotation placed on its page across a
bracketed parallel-page line, opening words kept out of the plaintiff, short-name citations
compared, the decision year read from the file, and dates and amounts that belong to a citation
or an opinion's words kept out of the record checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drafting.verify import Report, verify_draft
from tests.support.verify_real_corpus import RealCorpus, build_real_corpus, requires_opinions

pytestmark = requires_opinions

PETRO = "Petro-Lubricant Testing Labs., Inc. v. Adelman, 148 A.3d 441"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> RealCorpus:
    return build_real_corpus(tmp_path_factory.mktemp("verify-rules"))


def _verify(corpus: RealCorpus, tmp_path: Path, text: str) -> Report:
    draft = tmp_path / "draft.md"
    draft.write_text(text)
    return verify_draft(corpus.database_file, draft, corpus.matter, corpus.library)


def _flag(report: Report, text: str, occurrence: int = 0):  # type: ignore[no-untyped-def]
    return [f for f in report.flags if f.text == text][occurrence]


def test_docket_citations_are_matched_by_docket_number(corpus: RealCorpus, tmp_path: Path) -> None:
    report = _verify(
        corpus,
        tmp_path,
        "The policy lapsed. St. Pierre v. Standard Ins. Co., No. 21-50498 (5th Cir. Mar. 16, 2022). "
        "It did not. Ramirez v. Standard Ins. Co., No. 21-50498 (5th Cir. 2022). "
        "Nor here. Doe v. Roe, No. 21-50499 (5th Cir. 2022). "
        "Nor in 2021. St. Pierre v. Standard Ins. Co., No. 21-50498 (5th Cir. 2021).\n",
    )
    flags = [f for f in report.flags if f.kind == "case"]
    assert [f.verdict for f in flags] == ["verified", "contradicted", "unverifiable", "contradicted"], flags
    assert "St. Pierre" in flags[1].message and '"Ramirez"' in flags[1].message
    assert flags[2].reason == "not-in-library" and "decided in 2022, not 2021" in flags[3].message
    assert not [f for f in report.flags if f.kind == "bates"], report.flags  # the docket is no Bates number
    dates = [f for f in report.flags if f.kind == "date"]  # the court's, not the record's
    assert dates and all(f.message.startswith("Part of the citation 'No. 21-5049") for f in dates), dates
    assert [f.verdict for f in dates] == ["verified"]  # "Mar. 16, 2022" takes its citation's verdict


def test_pins_and_quotation_pages_are_read_from_the_vendor_star_pages(
    corpus: RealCorpus, tmp_path: Path
) -> None:
    report = _verify(
        corpus,
        tmp_path,
        f'Defendant "also posted a webpage entitled" a list. {PETRO}, 443 (N.J. Super. Ct. App. Div. 2016). '
        f'It was "posted on August 3, 2010." {PETRO}, 444 (N.J. Super. Ct. App. Div. 2016). '
        f"The opinion ends early. {PETRO}, 452 (N.J. Super. Ct. App. Div. 2016). "
        "The rule is settled. Petro-Lubricant, 148 A.3d at 460. "
        'Its site offers "access inside information about what" bosses do. Id. at 443.\n',
    )
    assert _flag(report, '"also posted a webpage entitled"').verdict == "verified"
    moved = _flag(report, '"posted on August 3, 2010."')
    assert (
        moved.verdict == "contradicted"
        and "page 443 of 148 A.3d 441, not at the cited page 444" in moved.message
    )
    wrong_pin = _flag(report, "148 A.3d 441", 2)
    assert wrong_pin.verdict == "contradicted" and "page 452 is not in it" in wrong_pin.message
    short = _flag(report, "148 A.3d at 460")
    assert short.verdict == "contradicted" and "page 460 is not in it" in short.message
    # across the "[447 N.J.Super. 395]" line that splits the sentence in the vendor's text
    assert _flag(report, '"access inside information about what"').verdict == "verified"
    (date,) = [f for f in report.flags if f.kind == "date"]  # the opinion's words, not the record's
    assert date.message.startswith("Part of the quotation") and date.verdict == moved.verdict


def test_a_slip_copy_pin_is_unverifiable_and_a_paragraph_pin_is_checked(
    corpus: RealCorpus, tmp_path: Path
) -> None:
    report = _verify(
        corpus,
        tmp_path,
        "Compacts are contracts. Tarrant Reg'l Water Dist. v. Herrmann, 569 U.S. 614, 628 (2013). "
        "Sweepstakes are games of chance. Gift Surplus, LLC v. State ex rel. Cooper, 2022-NCSC-1, ¶ 20. "
        "Id. ¶ 90.\n",
    )
    tarrant = _flag(report, "569 U.S. 614")
    assert tarrant.verdict == "unverifiable" and tarrant.reason == "no-page-numbers"
    assert _flag(report, "2022-NCSC-1").verdict == "verified"
    beyond = _flag(report, "Id. ¶ 90")
    assert beyond.verdict == "contradicted" and "¶ 90 is not in it" in beyond.message


def test_opening_words_are_not_the_plaintiff_and_short_names_are_compared(
    corpus: RealCorpus, tmp_path: Path
) -> None:
    report = _verify(
        corpus,
        tmp_path,
        "First, Fisher v. University of Texas at Austin, 570 U.S. 297 (2013). "
        "Moreover, Tarrant Reg'l Water Dist. v. Herrmann, 569 U.S. 614 (2013). "
        "See also Fisher, 570 U.S. 297 (2013). See Bollinger, 570 U.S. 297 (2013). "
        "Fisher v. University of Texas at Austin, 570 U.S. 297 (2012).\n",
    )
    fisher, tarrant = _flag(report, "570 U.S. 297"), _flag(report, "569 U.S. 614")
    assert (fisher.verdict, tarrant.verdict) == ("verified", "verified"), (fisher.message, tarrant.message)
    assert _flag(report, "570 U.S. 297", 1).verdict == "verified"
    wrong = _flag(report, "570 U.S. 297", 2)
    assert wrong.verdict == "contradicted" and '"Bollinger"' in wrong.message and "FISHER" in wrong.message
    year = _flag(report, "570 U.S. 297", 3)
    assert year.verdict == "contradicted" and "decided in 2013, not 2012" in year.message


def test_a_short_form_or_supra_takes_the_antecedent_the_sources_bear_out(
    corpus: RealCorpus, tmp_path: Path
) -> None:
    report = _verify(
        corpus,
        tmp_path,
        f"The rule is old. {PETRO} (N.J. Super. Ct. App. Div. 2016). The reply cites it as "
        "Petro-Lubricant Testing Labs., Inc. v. Adelman, 148 A.3d 442 (N.J. Super. Ct. App. Div. 2016). "
        "See Petro-Lubricant, supra, at 444. See also 148 A.3d at 446.\n",
    )
    assert _flag(report, "148 A.3d 442").verdict == "contradicted"  # a page inside 441-447
    supra, short = _flag(report, "supra, at 444"), _flag(report, "148 A.3d at 446")
    assert (supra.verdict, short.verdict) == ("verified", "verified"), (supra.message, short.message)
    assert "148 A.3d 441" in supra.message and "148 A.3d 441" in short.message


def test_a_first_page_inside_a_library_opinion_is_contradicted(corpus: RealCorpus, tmp_path: Path) -> None:
    report = _verify(
        corpus,
        tmp_path,
        "The rule is old. Petro-Lubricant Testing Labs., Inc. v. Adelman, 148 A.3d 443 (2016). "
        "Another case. Smith v. Jones, 148 A.3d 460 (2016).\n",
    )
    inside, beyond = _flag(report, "148 A.3d 443"), _flag(report, "148 A.3d 460")
    assert inside.verdict == "contradicted" and "pages 441-447" in inside.message, inside.message
    assert beyond.verdict == "unverifiable" and beyond.reason == "not-in-library"


def test_a_single_party_caption_with_its_suffix_or_after_a_quotation_is_compared(
    corpus: RealCorpus, tmp_path: Path
) -> None:
    report = _verify(
        corpus,
        tmp_path,
        "The cap applies. In re Hargrove Logistics, Inc., 148 A.3d 441 (2016). It said “so held in In re "
        "Petro.” In re Petro-Lubricant Testing Labs., Inc., 148 A.3d 441 (2016).\n",
    )
    invented, real = [f for f in report.flags if f.text == "148 A.3d 441"]
    assert invented.verdict == "contradicted" and '"Hargrove Logistics, Inc."' in invented.message
    assert real.verdict == "verified", real.message


def test_a_citation_of_an_opinion_added_without_its_citation_says_so(
    corpus: RealCorpus, tmp_path: Path
) -> None:
    report = _verify(
        corpus,
        tmp_path,
        "The policy lapsed. St. Pierre v. Standard Ins. Co., 2022 WL 796252 (5th Cir. 2022). "
        "Nor here. Doe v. Roe, 2022 WL 111111 (5th Cir. 2022).\n",
    )
    named, other = [f for f in report.flags if f.kind == "case"]
    assert named.verdict == "unverifiable" and named.reason == "no-citation", named.message
    assert (
        "st-pierre-v-standard-insurance.pdf" in named.message and '--cite "2022 WL 796252"' in named.message
    )
    assert other.verdict == "unverifiable" and other.reason == "not-in-library"


def test_supra_of_a_parallel_citation_counts_its_pin_in_the_reporter_whose_pages_are_printed(
    corpus: RealCorpus, tmp_path: Path
) -> None:
    report = _verify(
        corpus,
        tmp_path,
        "The rule is old. Petro-Lubricant Testing Labs., Inc. v. Adelman, 447 N.J. Super. 391, 148 A.3d 441 "
        "(App. Div. 2016). See Petro-Lubricant Testing Labs., Inc.., supra, at 399.\n",
    )
    supra = _flag(report, "supra, at 399")
    assert supra.verdict == "verified", supra.message  # page 399 of N.J. Super., not of A.3d (441-447)
    assert "447 N.J. Super. 391" in supra.message
