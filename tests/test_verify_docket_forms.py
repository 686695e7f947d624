"""Docket numbers in the forms district and state courts print them, matched to a brief's "No. ..." cite.

The two opinions below are written here in layouts seen in public copies: a C.D. Cal. civil minutes
ruling whose ECF stamp carries both the district judge's and the magistrate judge's initials after the
number ("2:15-cv-08162-GW-FFM"), and a Supreme Court of Virginia opinion whose caption block prints the
docket as a "Record No." between the parties' columns, run together in a text copy; and a redacted
minutes order whose "Case No." stands on its own line above the number and whose caption, set in
capitals, has a capital "V.".
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from drafting.verify import verify_draft
from drafting.verify.docket_key import docket_variants
from evidence.ingest import ingest_matter
from evidence.matters import create_matter

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


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dockets")
    record, opinions = root / "record", root / "opinions"
    record.mkdir()
    opinions.mkdir()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Record page one.", fontsize=11)
    doc.save(record / "record.pdf")
    doc.close()
    (opinions / "kennis.txt").write_text(MINUTES_TEXT)
    (opinions / "dugan.txt").write_text(VIRGINIA_TEXT)
    (opinions / "hughes.txt").write_text(CAPITALS_TEXT)
    database = root / "chambers.sqlite3"
    create_matter(database, "m", [record])
    create_matter(database, "m-authorities", [opinions])
    ingest_matter(database, "m", tessdata=None)
    ingest_matter(database, "m-authorities", tessdata=None)
    return database


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
