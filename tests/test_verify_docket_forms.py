"""Docket numbers in the forms district and state courts print them, matched to a brief's "No. ..." cite.

The two opinions below are written here in layouts seen in public copies: a C.D. Cal. civil minutes
ruling whose ECF stamp carries both the district judge's and the magistrate judge's initials after the
number ("2:15-cv-08162-GW-FFM"), and a Supreme Court of Virginia opinion whose caption block prints the
docket as a "Record No." between the parties' columns, run together in a text copy; and a redacted
minutes order whose "Case No." stands on its own line above the number and whose caption, set in
capitals, has a capital "V."; a New Jersey opinion whose "Civ. No." carries the judges' initials in
parentheses; two orders of one case, one docket number, told apart by the date the citation gives; and
the original and the amended minutes of one day, which no date tells apart.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from drafting.verify import verify_draft
from drafting.verify.docket import cited_dockets
from drafting.verify.docket_key import docket_key, docket_variants
from tests.support.verify_library import ingest_library, record_and_opinions

MINUTES_TEXT = """UNITED STATES DISTRICT COURT
CENTRAL DISTRICT OF CALIFORNIA
CIVIL MINUTES - GENERAL
Case No.
CV 15-8162-GW(FFMx)
Date
October 25, 2018
Title
Thomas J. Kennis v. Metropolitan West Asset Management, LLC
The Court's tentative ruling is adopted as the Court's final ruling.
Case 2:15-cv-08162-GW-FFM   Document 326   Filed 10/25/18   Page 1 of 21   Page ID #:22246
"""
VIRGINIA_TEXT = """Present: All the Justices
BOBBIE M. DUGAN
   OPINION BY
v.  Record No. 000023 CHIEF JUSTICE HARRY L. CARRICO
   January 12, 2001
HELEN I. CHILDERS

FROM THE CIRCUIT COURT OF FAIRFAX COUNTY
For the reasons assigned, we will affirm the judgment of the trial court.
"""
CAPITALS_TEXT = """UNITED STATES DISTRICT COURT
CENTRAL DISTRICT OF CALIFORNIA
REDACTED CIVIL MINUTES - GENERAL
Case No.
2:16-cv-08962-CAS-KSx
Date
January 15, 2019
Title
MANUFACTURING AUTOMATION AND SOFTWARE SYSTEMS,
INC. V. KRISTOPHER HUGHES, ET AL.
Present: The Honorable CHRISTINA A. SNYDER
The motion in limine is denied without prejudice to objections at trial.
"""
NEW_JERSEY_TEXT = """NOT FOR PUBLICATION
UNITED STATES DISTRICT COURT
DISTRICT OF NEW JERSEY
EDWARD SCANLON, IV
        Plaintiff
v.
VALERIE LAWSON, et al.,
             Defendants
Civ. No. 16-4465 (RMB-JS)
OPINION
The motion for reconsideration is denied.
Date:
March 9, 2020
"""


def _order(kind: str, holding: str, dated: str, filed: str) -> str:
    return (
        f"Case 5:17-cv-00072-BLF Document 551 Filed {filed} Page 1 of 2\n"
        "UNITED STATES DISTRICT COURT\nNORTHERN DISTRICT OF CALIFORNIA\nFINJAN, INC.,\nPlaintiff,\nv.\n"
        f"CISCO SYSTEMS INC.,\nDefendant.\nCase No. 17-cv-00072-BLF\n{kind}\n{holding}\n"
        f"IT IS SO ORDERED.\nDated: {dated}\n"
    )


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dockets")
    record, opinions = record_and_opinions(root)
    (opinions / "kennis.txt").write_text(MINUTES_TEXT)
    (opinions / "dugan.txt").write_text(VIRGINIA_TEXT)
    (opinions / "hughes.txt").write_text(CAPITALS_TEXT)
    (opinions / "scanlon.txt").write_text(NEW_JERSEY_TEXT)
    # The Daubert order prints its date as figures only; the other order names April in its text, so only
    # the date, never the words of the date, can tell the court's two orders apart.
    daubert = _order(
        "ORDER ON DAUBERT MOTIONS",
        "The damages expert may not testify to a royalty base.",
        "04/17/20",
        "04/20/20",
    )
    limine = _order(
        "ORDER ON MOTIONS IN LIMINE",
        "The first motion in limine, on the April report, is denied.",
        "May 22, 2020",
        "06/05/20",
    )
    (opinions / "finjan-daubert.txt").write_text(daubert)
    for name, holding in (
        ("original", "The motions are taken under submission."),
        ("amended", "The tentative is adopted."),
    ):
        (opinions / f"kennis-{name}.txt").write_text(
            "Case 2:15-cv-08162-GW-FFM Document 32 Filed 10/25/18 Page 1 of 1\nUNITED STATES DISTRICT COURT\n"
            "CENTRAL DISTRICT OF CALIFORNIA\nCIVIL MINUTES - GENERAL\nTitle\n"
            f"Thomas J. Kennis v. Metropolitan West Asset Management, LLC\nDate\nOctober 25, 2018\n{holding}\n"
            "The declaration was filed as Dkt.\nNo. 29-1\n"
        )
    order = pymupdf.open()  # an order dated only at its end, pages after its caption
    for number in range(1, 9):
        page = order.new_page()
        if number == 1:
            lines = [
                "UNITED STATES DISTRICT COURT",
                "NORTHERN DISTRICT OF CALIFORNIA",
                "Case No. 15-cv-02543-BLF",
                "TESSERA, INC.,",
                "Plaintiff,",
                "v.",
                "TOSHIBA CORPORATION,",
                "Defendant.",
                "REDACTED ORDER",
            ]
        elif number == 8:
            lines = [
                "The motion to strike is granted in part.",
                "IT IS SO ORDERED.",
                "Dated: October 8, 2019",
            ]
        else:
            lines = [f"The analysis of the license continues on page {number}."]
        for row, line in enumerate(lines):
            page.insert_text((72, 72 + 16 * row), line, fontsize=11)
    order.save(opinions / "tessera.pdf")
    order.close()
    (opinions / "finjan-limine.txt").write_text(limine)
    return ingest_library(root, record, opinions)


def test_a_stamp_with_both_judges_initials_is_the_number_a_brief_cites() -> None:
    assert "2:15-CV-08162" in docket_variants("2:15-CV-08162-GW-FFM")
    assert "15-CV-08162" in docket_variants("2:15-CV-08162-GW-FFM")
    assert docket_variants("2022-SC-0293-DG")[-1] == "2022-SC-0293"  # one suffix, as before


def test_district_minutes_and_a_virginia_record_number_are_found_by_their_dockets(
    database: Path, tmp_path: Path
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The ruling stands. Kennis v. Metropolitan West Asset Management, LLC, No. 2:15-cv-08162 "
        "(C.D. Cal. Oct. 25, 2018).\n\n"
        "The court wrote that \u201cFor the reasons assigned, we will affirm the judgment of the trial court.\u201d "
        "Dugan v. Childers, Record No. 000023 (Va. Jan. 12, 2001).\n\n"
        "The motion failed. Manufacturing Automation & Software Systems, Inc. v. Hughes, No. 2:16-cv-08962 "
        "(C.D. Cal. Jan. 15, 2019).\n\n"
        "The motion failed. Bellweather Holdings LLC v. Hughes, No. 2:16-cv-08962 (C.D. Cal. Jan. 15, 2019).\n"
    )
    report = verify_draft(database, draft, "m", "m-authorities")
    dockets = [f for f in report.flags if f.kind == "case" and "No." in f.text]
    assert len(dockets) == 4, [f.text for f in report.flags]
    kennis, dugan, hughes, invented = dockets
    assert dugan.text.startswith("Record No."), dugan.text
    for flag in (kennis, dugan, hughes):
        assert "no opinion in your authorities library" not in flag.message, flag.message
    assert kennis.verdict == "verified", kennis.message
    assert hughes.verdict == "verified", hughes.message  # its capitals caption is read and compared
    assert invented.verdict == "contradicted", invented.message
    quote = next(f for f in report.flags if f.kind == "quotation")
    assert quote.verdict == "verified", quote.message  # the quotation belongs to the Record No. citation


def test_a_civ_no_with_judges_initials_and_orders_of_one_case_told_apart_by_date(
    database: Path, tmp_path: Path
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The court wrote that \u201cThe motion for reconsideration is denied.\u201d Scanlon v. Lawson, "
        "Civ. No. 16-4465 (D.N.J. Mar. 9, 2020).\n\n"
        "The court wrote that \u201cThe first motion in limine, on the April report, is denied.\u201d Finjan, Inc. v. Cisco "
        "Systems Inc., No. 5:17-cv-00072 (N.D. Cal. May 22, 2020).\n\n"
        "The court wrote that \u201cThe damages expert may not testify to a royalty base.\u201d Finjan, Inc. v. "
        "Cisco Systems Inc., No. 5:17-cv-00072 (N.D. Cal. Apr. 17, 2020).\n"
    )
    report = verify_draft(database, draft, "m", "m-authorities")
    cases = [f for f in report.flags if f.kind == "case" and "No." in f.text]
    quotes = [f for f in report.flags if f.kind == "quotation"]
    assert [f.verdict for f in cases] == ["verified"] * 3, [f.message for f in cases]
    assert [f.verdict for f in quotes] == ["verified"] * 3, [f.message for f in quotes]
    assert "finjan-limine.txt" in cases[1].message and "finjan-daubert.txt" in cases[2].message


def test_an_order_dated_only_over_its_signature_has_that_year(database: Path, tmp_path: Path) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The motion was granted. Tessera, Inc. v. Toshiba Corp., No. 15-cv-02543 (N.D. Cal. Oct. 8, 2019).\n\n"
        "The motion was granted. Tessera, Inc. v. Toshiba Corp., No. 15-cv-02543 (N.D. Cal. Oct. 8, 2016).\n"
    )
    report = verify_draft(database, draft, "m", "m-authorities")
    right, wrong = [f for f in report.flags if f.kind == "case" and "No." in f.text]
    assert right.verdict == "verified", right.message
    assert wrong.verdict == "contradicted", wrong.message


def test_a_quotation_of_one_of_two_minute_orders_of_one_day_is_found_in_it(
    database: Path, tmp_path: Path
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The court wrote that \u201cThe motions are taken under submission.\u201d Kennis v. Metropolitan West Asset "
        "Management, LLC, No. 2:15-cv-08162 (C.D. Cal. Oct. 25, 2018).\n\n"
        "The court wrote that \u201cThe tentative is adopted.\u201d Kennis v. Metropolitan West Asset "
        "Management, LLC, No. 2:15-cv-08162 (C.D. Cal. Oct. 25, 2018).\n\n"
        "The court wrote that \u201cThe tentative is rejected.\u201d Kennis v. Metropolitan West Asset "
        "Management, LLC, No. 2:15-cv-08162 (C.D. Cal. Oct. 25, 2018).\n"
    )
    report = verify_draft(database, draft, "m", "m-authorities")
    quotes = [f for f in report.flags if f.kind == "quotation"]
    assert [f.verdict for f in quotes[:2]] == ["verified", "verified"], [f.message for f in quotes]
    assert quotes[2].verdict != "verified", quotes[2].message
    assert "No. 29-1" not in quotes[2].message and "No. 2:15-CV-08162" in quotes[2].message, quotes[2].message


def test_a_case_number_cited_without_its_padding_or_in_the_new_york_form_is_the_stamp_s() -> None:
    assert "12-CV-5708" in docket_variants("1:12-CV-05708-JSR")
    assert docket_key("12 Civ. 5708") == "12-CV-5708" and docket_key("09 Cr. 1184") == "09-CR-1184"
    assert "2022-SC-293" not in docket_variants("2022-SC-0293-DG")  # a state court's number keeps its zeros
    text = (
        "See Hostess Brands, Inc. v. Prudential, No. 12 Civ. 5708 (JSR), 2013 WL 1 (S.D.N.Y. Jan. 2, 2013). "
        "Scanlon v. Lawson, Civ. No. 16-4465 (RMB-JS) (D.N.J. Mar. 9, 2020)."
    )
    assert [(f.fields["docket"], f.fields["court"]) for f in cited_dockets(text, [])] == [
        ("12-CV-5708", "S.D.N.Y. Jan. 2, 2013"),
        ("16-4465", "D.N.J. Mar. 9, 2020"),
    ]


def test_a_district_case_number_cited_without_its_zeros_finds_the_opinion(
    database: Path, tmp_path: Path
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The ruling stands. Kennis v. Metropolitan West Asset Management, LLC, No. 15-cv-8162 "
        "(C.D. Cal. Oct. 25, 2018).\n\n"
        "The ruling stands. Kennis v. Metropolitan West Asset Management, LLC, No. 15-cv-8163 "
        "(C.D. Cal. Oct. 25, 2018).\n"
    )
    report = verify_draft(database, draft, "m", "m-authorities")
    verdicts = [f.verdict for f in report.flags if f.kind == "case" and "No." in f.text]
    assert verdicts == ["verified", "unverifiable"], [f.message for f in report.flags]


def test_a_docket_cited_to_another_district_is_another_case_not_in_the_library(
    database: Path, tmp_path: Path
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The motion failed. Manufacturing Automation & Software Systems, Inc. v. Hughes, No. 2:16-cv-08962 "
        "(C.D. Cal. Jan. 15, 2019).\n\n"
        "The motion failed. Manufacturing Automation & Software Systems, Inc. v. Hughes, No. 2:16-cv-08962 "
        "(S.D.N.Y. Jan. 15, 2019).\n"
    )
    report = verify_draft(database, draft, "m", "m-authorities")
    right, other = [f for f in report.flags if f.kind == "case" and "No." in f.text]
    assert right.verdict == "verified", right.message
    assert (other.verdict, other.reason) == ("unverifiable", "not-in-library"), other.message
    assert (
        "the Central District of California" in other.message
        and "Southern District of New York" in other.message
    )
