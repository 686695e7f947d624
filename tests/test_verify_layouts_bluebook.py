"""Short forms as the Bluebook writes them, and more layouts of the wide corpus's vendors and courts.

Each opinion below copies, in a few lines, a layout of a file of the wide corpus (tests/verify_wide):
the Caselaw Access Project's star page inside a word the page break split ("be*760 cause"); a Tax
Court bound volume, whose only citation is its running head ("202  140 UNITED STATES TAX COURT
REPORTS  (200)"), and the Tax Court's docket numbers ("19556-14S L"); an ECF stamp's two-digit
year; Fastcase's parallel pages in one bracket; an advisory opinion's caption, which names no
party. The drafts cite them with Id., supra and short forms pinned as the Bluebook pins them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drafting.verify import Report
from drafting.verify.authorities import captions
from drafting.verify.sources import Page
from drafting.verify.text import sentence_bounds
from drafting.verify.verifier import extract
from tests.support.verify_library import ingest_library, record_and_opinions, verify_text

CAP_SPLIT_TEXT = """134 S.W.3d 757
Tina WESTER, Plaintiff-Appellant, v. MISSOURI DEPARTMENT OF LABOR, Defendant-Respondent.
Decided May 4, 2004.
*758 The claimant appeals the denial of her unemployment benefits.
*759 The commission found that she was properly denied benefits be*760 cause she left her work without good cause.
*761 We affirm the decision of the commission.
"""
TAX_COURT_TEXT = """MICHAEL KEITH SHENK, PETITIONER v. COMMISSIONER
OF INTERNAL REVENUE, RESPONDENT
Docket No. 5706–12.                            Filed May 6, 2013.
P claimed dependency exemption deductions for his three children.
200
(200)                          SHENK v. COMMISSIONER                                        201
The custodial parent did not execute any release of the claim.
202                 140 UNITED STATES TAX COURT REPORTS                                   (200)
Petitioner is not entitled to head-of-household filing status.
"""
TAX_DOCKET_TEXT = """UNITED STATES TAX COURT
MINNIE MAE HOWELL, Petitioner v. COMMISSIONER OF INTERNAL REVENUE, Respondent
Docket No. 19556-14S L.                       Filed August 6, 2015.
The collection action is sustained.
"""
ECF_TEXT = """Case 3:04-cv-00098-SI   Document 199   Filed 08/23/05   Page 1 of 2
UNITED STATES DISTRICT COURT
FOR THE NORTHERN DISTRICT OF CALIFORNIA
EDWARD ALVARADO, et al., Plaintiffs,
v.
FEDEX CORPORATION, Defendant.
The motion to quash the subpoena is denied.
"""
PARALLEL_TEXT = """16 N.Y.3d 272
945 N.E.2d 484
BLEECKER STREET TENANTS CORP., Respondent,
v.
BLEEKER JONES LLC et al., Appellants.
Decided February 24, 2011.
[16 N.Y.3d 273]
The appeal presents the question whether renewal options are subject to the rule.
[945 N.E.2d 485 , 16 N.Y.3d 274]
The lessee then had sixty days to exercise such renewal option.
[16 N.Y.3d 275]
We hold that the rule does not apply to options to renew leases.
"""
FIRST_PAGE_TEXT = """134 S.Ct. 985
187 L.Ed.2d 773
William GRONER, petitioner, v. Eric K. SHINSEKI, Secretary of Veterans Affairs.
Decided January 13, 2014.
The motion of petitioner for leave to proceed in forma pauperis is denied.
"""
ADVISORY_TEXT = """294 Ala. 571
319 So.2d 699
OPINION OF THE JUSTICES
No. 203.
Supreme Court of Alabama.
August 25, 1975.
The Justices answer the questions the Governor put to them.
"""


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bluebook")
    record, opinions = record_and_opinions(root)
    files = {
        "wester.txt": CAP_SPLIT_TEXT,
        "shenk.txt": TAX_COURT_TEXT,
        "howell.txt": TAX_DOCKET_TEXT,
        "alvarado.txt": ECF_TEXT,
        "bleecker.txt": PARALLEL_TEXT,
        "groner.txt": FIRST_PAGE_TEXT,
        "justices.txt": ADVISORY_TEXT,
    }
    for name, text in files.items():
        (opinions / name).write_text(text)
    return ingest_library(root, record, opinions)


def _verdicts(report: Report, kind: str) -> list[tuple[str, str]]:
    return [(f.text, f.verdict) for f in report.flags if f.kind == kind]


def test_a_star_page_inside_a_split_word_is_a_page_boundary(database: Path, tmp_path: Path) -> None:
    report = verify_text(
        database,
        tmp_path,
        "She quit. Wester v. Mo. Dep't of Labor, 134 S.W.3d 757, 759 (2004). She \"was properly denied benefits "
        'because she left her work without good cause." Id. at 759. "The commission found that she was properly '
        'denied benefits." Id. at 760.\n',
    )
    quotes = [f for f in report.flags if f.kind == "quotation"]
    assert quotes[0].verdict == "verified", quotes[0].message  # "be*760 cause" read as "because"
    assert quotes[1].verdict == "contradicted" and "page 759" in quotes[1].message


def test_a_tax_court_bound_volume_is_known_by_its_running_head(database: Path, tmp_path: Path) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The exemption was denied. Shenk v. Commissioner, 140 T.C. 200 (2013). It was denied. Shenk v. "
        "Commissioner, 140 T.C. 200 (2014).\n",
    )
    assert _verdicts(report, "case") == [("140 T.C. 200", "verified"), ("140 T.C. 200", "contradicted")]


def test_docket_numbers_with_the_tax_courts_suffix_and_an_ecf_stamps_two_digit_year(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The levy stands. Howell v. Commissioner, No. 19556-14S L (T.C. Aug. 6, 2015). The subpoena stands. "
        "Alvarado v. FedEx Corp., No. 3:04-cv-00098 (N.D. Cal. Aug. 23, 2005). It stood again. Alvarado v. "
        "FedEx Corp., No. 3:04-cv-00098 (N.D. Cal. Aug. 23, 2006).\n",
    )
    dockets = [f for f in report.flags if f.kind == "case"]
    assert [f.verdict for f in dockets] == ["verified", "verified", "contradicted"], [
        f.message for f in dockets
    ]
    assert "2005, not 2006" in dockets[2].message


def test_id_after_parallel_citations_counts_its_pin_in_the_reporter_that_has_the_page(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        'The lessee "then had sixty days to exercise such renewal option." Bleecker St. Tenants Corp. v. '
        "Bleeker Jones LLC, 16 N.Y.3d 272, 274, 945 N.E.2d 484, 485 (2011). Id. at 274. Id. at 485. "
        'It held that "the rule does not apply to options to renew leases." Id. at 275. Id. at 290 n.3.\n',
    )
    ids = _verdicts(report, "id")
    assert ids == [
        ("Id. at 274", "verified"),
        ("Id. at 485", "verified"),
        ("Id. at 275", "verified"),
        ("Id. at 290", "contradicted"),  # a pin with a footnote is still a pin
    ], [f.message for f in report.flags if f.kind == "id"]
    assert {f.verdict for f in report.flags if f.kind == "quotation"} == {"verified"}


def test_supra_at_the_first_page_takes_the_parallel_that_begins_there(database: Path, tmp_path: Path) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The motion failed. Groner v. Shinseki, 134 S. Ct. 985, 187 L. Ed. 2d 773 (2014). Groner, supra, at 985.\n",
    )
    supra = next(f for f in report.flags if f.text.startswith("supra"))
    assert supra.verdict == "verified" and "134 S. Ct. 985" in supra.message, supra.message


def test_an_advisory_opinion_names_no_party_and_is_still_compared(database: Path, tmp_path: Path) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The Justices answered. Opinion of the Justices, 294 Ala. 571 (1975). Again. Opinion of the Justices, "
        "294 Ala. 571 (1977).\n",
    )
    assert _verdicts(report, "case") == [("294 Ala. 571", "verified"), ("294 Ala. 571", "contradicted")]


def test_supra_names_with_small_words_and_a_caption_with_the_parties_roles() -> None:
    draft = (
        "It was confirmed. Fin. Oversight & Mgmt. Bd. for P.R. v. Altair Global Credit Opportunities Fund, LLC, "
        "590 B.R. 577 (2018).\n\nFin. Oversight & Mgmt. Bd. for P.R., supra, at 583.\n\n"
        "See In the Matter of the Marriage of Christy Lyle, Respondent, and Keith Lyle, Appellant, 199 Wash. App. "
        "629 (2017).\n\nIn the Matter of the Marriage of Christy Lyle, supra, at 630.\n"
    )
    items = [i for i in extract(draft, frozenset()) if i.kind == "case"]
    full_board, supra_board, full_lyle, supra_lyle = items
    assert supra_board.refers_to is full_board
    assert full_lyle.fields["subject"] == "the Marriage of Christy Lyle"
    assert supra_lyle.refers_to is full_lyle


def test_footnote_pins_keep_the_pin_and_the_year_and_abbreviations_end_no_sentence() -> None:
    draft = "It held so. Smith v. Jones, 500 U.S. 1, 12 n.3 (1991). Id. at 14 nn.2-3. Smith, supra, at 15 & n.4.\n"
    full, id_cite, supra = (i for i in extract(draft, frozenset()) if i.kind in ("case", "id"))
    assert (full.fields["pin"], full.fields["year"]) == ("12", "1991")
    assert id_cite.fields["pin"] == "at 14" and supra.fields["pin"] == "at 15"
    text = "It held so. Ideal Elec. Sec. Co. v. Int'l Fid. Ins. Co., No. 96-7169 (D.C. Cir. 1997). It ended."
    assert len(sentence_bounds(text)) == 3  # "Fid." ends no sentence


def _page(text: str) -> Page:
    return Page(0, 1, 1, "opinion.txt", "/x/opinion.txt", "opinion.txt", 1, None, text, text.lower())


def test_against_in_a_sentence_is_no_caption_and_a_flattened_copy_is_read_by_its_gaps() -> None:
    prose = (
        "continued delinquency. Id. at 8.\nthe B&C Fund assessed withdrawal liability against Hostess due to "
        "its total withdrawal.\n"
    )
    assert captions([_page(prose)], set()) == []
    flat = (
        "SHELBY L. JORDAN AND DONAZELLA H. JORDAN, PETITIONERS"
        + " " * 20
        + "v. COMMISSIONER OF INTERNAL REVENUE,"
        + " " * 20
        + "RESPONDENT"
        + " " * 20
        + "Docket No. 14572–07L."
        + " " * 10
        + "Filed January 11, 2010."
        + " " * 20
        + "P wife signed a waiver extending the period of limitations on collection. " * 15
    )
    (caption,) = captions([_page(flat)], set())
    assert caption.startswith("SHELBY L. JORDAN") and "COMMISSIONER OF INTERNAL REVENUE" in caption
