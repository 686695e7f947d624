"""What the library cannot tell is unverifiable, by docket number as by reporter; an Id. after Ibid.

A docket-number citation is matched to the opinion that prints the number, but a copy whose caption
cannot be read cannot confirm the parties, and one that prints no date cannot confirm the year: the
same two gaps a reporter citation reports as unverifiable, never as verified. And an Id. that
directly follows an Ibid. (or another Id.) is a citation of its own, with its own pin.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.verify_library import ingest_library, record_and_opinions, verify_text

NO_CAPTION_TEXT = """No. 21-3344
The appeal is dismissed for want of prosecution.
"""
NO_YEAR_TEXT = """UNITED STATES COURT OF APPEALS
JOHN ROE, Plaintiff-Appellant, v. ACME WIDGET COMPANY, Defendant-Appellee.
No. 21-5566
The judgment of the district court is affirmed.
"""
DATED_TEXT = """UNITED STATES COURT OF APPEALS
MARY POE, Plaintiff-Appellant, v. ZENITH LOCK COMPANY, Defendant-Appellee.
No. 21-7788
Decided March 3, 2021.
The judgment of the district court is reversed.
"""
REPORTED_TEXT = """16 N.Y.3d 272
BLEECKER STREET TENANTS CORP., Respondent,
v.
BLEEKER JONES LLC et al., Appellants.
Decided February 24, 2011.
[16 N.Y.3d 273]
The appeal presents the question whether renewal options are subject to the rule.
[16 N.Y.3d 274]
The lessee then had sixty days to exercise such renewal option.
[16 N.Y.3d 275]
We hold that the rule does not apply to options to renew leases.
"""


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dockets")
    record, opinions = record_and_opinions(root)
    files = {
        "dismissed.txt": NO_CAPTION_TEXT,
        "roe.txt": NO_YEAR_TEXT,
        "poe.txt": DATED_TEXT,
        "bleecker.txt": REPORTED_TEXT,
    }
    for name, text in files.items():
        (opinions / name).write_text(text)
    return ingest_library(root, record, opinions)


def test_a_docket_citation_the_library_cannot_confirm_is_unverifiable_with_its_reason(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        "It was dismissed. Doe v. Smith, No. 21-3344 (7th Cir. 2021). It was affirmed. Roe v. Acme Widget "
        "Co., No. 21-5566 (6th Cir. 2021). It was reversed. Poe v. Zenith Lock Co., No. 21-7788 (6th Cir. "
        "2021).\n",
    )
    dockets = [f for f in report.flags if f.kind == "case"]
    assert [(f.normalized, f.verdict, f.reason) for f in dockets] == [
        ("No. 21-3344", "unverifiable", "not-checkable"),  # no caption to compare the parties with
        ("No. 21-5566", "unverifiable", "no-year"),  # the caption matches, the year cannot be checked
        ("No. 21-7788", "verified", ""),
    ], [f.message for f in dockets]
    assert "caption could not be read" in dockets[0].message
    assert "no decision year" in dockets[1].message and "2021" in dockets[1].message


def test_a_docket_citation_still_contradicts_a_wrong_party_or_year_where_the_copy_prints_them(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        "It was affirmed. Roe v. Beta Gadget Co., No. 21-5566 (6th Cir. 2021). It was reversed. Poe v. "
        "Zenith Lock Co., No. 21-7788 (6th Cir. 2019).\n",
    )
    dockets = [f for f in report.flags if f.kind == "case"]
    assert [f.verdict for f in dockets] == ["contradicted", "contradicted"], [f.message for f in dockets]
    assert "Wrong case name" in dockets[0].message and "2021, not 2019" in dockets[1].message


def test_an_id_right_after_ibid_or_id_is_read_with_its_own_pin(database: Path, tmp_path: Path) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The lessee then had sixty days. Bleecker St. Tenants Corp. v. Bleeker Jones LLC, 16 N.Y.3d 272, 274 "
        "(2011). Ibid. Id. at 275. The rule was stated. Id. Id. at 290.\n",
    )
    ids = [(f.text, f.verdict) for f in report.flags if f.kind == "id"]
    assert ids == [
        ("Ibid.", "verified"),
        ("Id. at 275", "verified"),
        ("Id.", "verified"),
        ("Id. at 290", "contradicted"),  # past the opinion's last page, 275
    ], [f.message for f in report.flags if f.kind == "id"]
