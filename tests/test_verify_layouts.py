"""Page markers and captions as vendors print them, on opinions written here in those layouts.

Each file below copies a layout seen in public opinion collections: a Caselaw Access Project
text whose first star page comes pages after the first (headnotes skipped) and whose judges'
line carries a star out of order; a vendor text whose bracketed pages name the reporter in
another spelling ("Hawai'i" for "Haw."); a caption with an okina. The draft is Markdown with
character references ("&amp;"), which it shows as the characters they stand for.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.support.verify_library import ingest_library, verify_text

STAR_TEXT = """199 Wash. App. 629
In the Matter of the Marriage of Christy Lyle, Respondent, and Keith Lyle, Appellant.
July 11, 2017.
*634 Fearing, C.J., and Korsmo, J., concur.
*631 The commissioner entered the first order of support.
*632 The judge revised the order on the father's motion.
*633 The father appealed the revision to this court.
*634 We affirm the order on revision in every part.
"""
BRACKET_TEXT = """134 Hawai'i 86
KILAKILA ‘O HALEAKALA, Plaintiff,
v.
UNIVERSITY OF HAWAI‘I, Defendant.
June 9, 2014.
The first page sets out the permit at issue.
[134 Hawai'i 87]
The second page holds that the permit required an assessment.
[134 Hawai'i 88]
The third page remands the case for a consti-
[134 Hawai'i 89]
tutional review of the permit.
"""

BIA_TEXT = """Cite as 27 I&N Dec. 48 (BIA 2017) Interim Decision #3894
Matter of Enrique ALDAY-DOMINGUEZ, Respondent
Decided June 1, 2017
The provision requires knowledge that the property was stolen.
"""
INTEREST_TEXT = """590 S.E.2d 792
In the Interest of K.N.C. et al., children.
Court of Appeals of Georgia.
December 1, 2003 (Adversary).
The juvenile court terminated the parental rights.
"""

ILLINOIS_TEXT = """2018 IL App (1st) 152522
No. 1-15-2522
PEOPLE OF THE STATE OF ILLINOIS, Plaintiff-Appellee,
v.
JOHN DOE, Defendant-Appellant.
Opinion filed March 30, 2018.
¶ 1 The defendant appeals his conviction for burglary.
¶ 2 The trial court denied the motion to suppress the statement.
¶ 3 We affirm the judgment of the circuit court.
"""

KENTUCKY_TEXT = """RENDERED: MARCH 29, 2024; 10:00 A.M.
NOT TO BE PUBLISHED
Commonwealth of Kentucky
Court of Appeals
NO. 2023-CA-0192-MR
KELLEY HEAVENER  APPELLANT
v.
APPEAL FROM JEFFERSON CIRCUIT COURT
HONORABLE ANN BAILEY SMITH, JUDGE
ACTION NO. 21-CI-002674
JOSEPH CARLISLE ROGERS;
AMERICAN MUTUAL FIRE
INSURANCE COMPANY
APPELLEES
OPINION AND ORDER
The appeal is from an interlocutory order and is dismissed.
"""
ECF_TEXT = """Case 1:12-cv-05708-ER Document 11 Filed 09/27/13 Page 1 of 15
UNITED STATES DISTRICT COURT
In re HOSTESS BRANDS, INC., Debtor.
The bankruptcy court's order is affirmed in every respect.
"""


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layouts")
    record, opinions = root / "record", root / "opinions"
    record.mkdir()
    opinions.mkdir()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Record page one.", fontsize=11)
    doc.save(record / "record.pdf")
    doc.close()
    (opinions / "lyle.txt").write_text(STAR_TEXT)
    (opinions / "haleakala.txt").write_text(BRACKET_TEXT)
    (opinions / "alday.txt").write_text(BIA_TEXT)
    (opinions / "knc.txt").write_text(INTEREST_TEXT)
    (opinions / "people-v-doe.txt").write_text(ILLINOIS_TEXT)
    (opinions / "heavener.txt").write_text(KENTUCKY_TEXT)
    (opinions / "hostess.txt").write_text(ECF_TEXT)
    return ingest_library(root, record, opinions)


def test_star_pages_after_skipped_headnotes_and_out_of_order_are_read(database: Path, tmp_path: Path) -> None:
    report = verify_text(
        database,
        tmp_path,
        'The order was revised. In re Marriage of Lyle, 199 Wash. App. 629, 632 (2017). "The father appealed '
        'the revision to this court." Id. at 633. "We affirm the order on revision in every part." Id. at 632. '
        "In re Marriage of Lyle, 199 Wash. App. 629, 640 (2017).\n",
    )
    by_text = {(f.kind, f.text): f for f in reversed(report.flags)}  # the first of each
    assert by_text[("case", "199 Wash. App. 629")].verdict == "verified"
    assert by_text[("quotation", '"The father appealed the revision to this court."')].verdict == "verified"
    moved = by_text[("quotation", '"We affirm the order on revision in every part."')]
    assert moved.verdict == "contradicted" and "page 634" in moved.message
    beyond = [f for f in report.flags if f.text == "199 Wash. App. 629"][1]
    assert beyond.verdict == "contradicted" and "page 640 is not in it" in beyond.message


def test_bracketed_pages_in_another_spelling_an_okina_and_character_references(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The permit needed review. Moreover, as held in Virginia, Kilakila &lsquo;O Haleakala v. Univ. of "
        'Hawai&lsquo;i, 134 Hawai\'i 86, 87 (2014). It held that "the permit required an assessment." '
        "134 Hawai'i at 88.\n",
    )
    cite = next(f for f in report.flags if f.text == "134 Hawai'i 86")
    assert cite.verdict == "verified", cite.message
    quote = next(f for f in report.flags if f.kind == "quotation")
    assert quote.verdict == "contradicted" and "page 87" in quote.message and "page 88" in quote.message
    split = verify_text(
        database,
        tmp_path,
        'It remanded "for a constitutional review of the permit." Kilakila \'O Haleakala v. Univ. of '
        "Hawai'i, 134 Hawai'i 86, 88 (2014).\n",
    )
    (across,) = [f for f in split.flags if f.kind == "quotation"]
    assert across.verdict == "verified", across.message  # the word split by the [134 Hawai'i 89] line


def test_a_cite_as_line_without_its_colon_and_single_party_captions(database: Path, tmp_path: Path) -> None:
    report = verify_text(
        database,
        tmp_path,
        "Knowledge is required. Matter of Alday-Dominguez, 27 I&N Dec. 48 (BIA 2017). Rights ended. "
        "IN RE KNC, 590 S.E.2d 792 (2003). They did not. IN RE JMB, 590 S.E.2d 792 (2003). "
        "As held in In re K.N.C., 590 S.E.2d 792 (2003). See K.N.C., supra, at 792.\n",
    )
    cases = [f for f in report.flags if f.kind == "case"]
    assert [f.verdict for f in cases] == ["verified", "verified", "contradicted", "verified", "verified"], [
        f.message for f in cases
    ]  # the last, "K.N.C., supra": initials compared run together
    assert "K.N.C." in cases[2].message


def test_a_public_domain_citation_read_from_the_file_with_paragraph_pins(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        'The statement stood. People v. Doe, 2018 IL App (1st) 152522, ¶ 2. The court said "the trial court '
        'denied the motion to suppress the statement." Id. ¶ 3. Id. ¶ 9. People v. Doe, 2018 IL App (1st) 152522 '
        "(2017).\n",
    )
    cite, wrong_year = [f for f in report.flags if f.text == "2018 IL App (1st) 152522"]
    assert cite.verdict == "verified", cite.message
    quote = next(f for f in report.flags if f.kind == "quotation")
    assert quote.verdict == "contradicted" and "¶ 2" in quote.message and "¶ 3" in quote.message
    beyond = next(f for f in report.flags if f.text == "Id. ¶ 9")
    assert beyond.verdict == "contradicted" and "¶ 1 to ¶ 3" in beyond.message
    assert wrong_year.verdict == "contradicted" and "2018, not 2017" in wrong_year.message


def test_docket_numbers_as_courts_print_them_and_the_parties_after_the_court_below(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The order was interlocutory. Heavener v. Rogers, No. 2023-CA-0192-MR (Ky. Ct. App. Mar. 29, 2024). "
        'It held that "the appeal is from an interlocutory order and is dismissed." Id. '
        "The order stands. In re Hostess Brands, Inc., No. 12-cv-05708 (S.D.N.Y. Sept. 27, 2013).\n",
    )
    dockets = [f for f in report.flags if f.kind == "case" and f.text.startswith("No.")]
    assert [f.verdict for f in dockets] == ["verified", "verified"], [f.message for f in dockets]
    quote = next(f for f in report.flags if f.kind == "quotation")
    assert quote.verdict == "verified", quote.message  # a docket citation's opinion is read for its words
