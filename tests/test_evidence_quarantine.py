"""Provenance: nothing chambers wrote reaches the index, and the audit measures it."""

from __future__ import annotations

import shutil
from pathlib import Path

from evidence.ingest import ingest_matter
from evidence.provenance import OUTPUT_MARKER, register_output
from evidence.report import audit_matter
from tests.support.evidence_files import make_pdf
from tests.test_evidence_ingest import new_matter, rows
from tui.evidence.audit_text import audit_text

CONTRACT = (
    "Harbor Point Provisions agrees to buy and Calder Refrigeration agrees to install one walk-in freezer "
    "rated to minus twenty degrees, with two compressors, for the price of eighty-four thousand dollars, "
    "payable in three instalments. Installation shall be complete by the first of May."
)
DRAFT = (
    "MEMORANDUM ON BREACH. Calder Refrigeration failed to finish installation by the first of May, and the "
    "freezer never held minus twenty degrees; the compressors short-cycled from the first week. Harbor Point "
    "lost inventory worth at least thirty-one thousand dollars when the unit failed on the twelfth of June. "
    "The warranty clause gives Harbor Point the right to a replacement unit at no cost, and the late "
    "completion entitles it to liquidated damages of two hundred dollars a day. We recommend a demand "
    "letter that sets out both heads of damage and offers a meeting before any suit is filed."
)


def test_a_previous_draft_saved_as_notes_pdf_is_quarantined(tmp_path: Path) -> None:
    src = tmp_path / "matter"
    make_pdf(src / "contract.pdf", [CONTRACT], bates=["HPP-000001"])
    db_path = tmp_path / "c.sqlite3"
    register_output(db_path, DRAFT, "draft")  # the drafter wrote this earlier...
    make_pdf(src / "notes.pdf", [DRAFT[:300], DRAFT[300:]])  # ...and someone saved it among the sources
    new_matter(db_path, src)

    report = ingest_matter(db_path, "acme", tessdata=None)

    assert report.ingested == [str(src / "contract.pdf")]
    (quarantined,) = report.quarantined
    assert quarantined.path == str(src / "notes.pdf")
    assert "matches text chambers generated" in quarantined.message and "limit is 50%" in quarantined.message
    assert not rows(db_path, "SELECT 1 FROM documents WHERE path LIKE '%notes.pdf'")
    audit = audit_matter(db_path, "acme")
    assert audit.primary_share == 1.0 and audit.chars > 0
    text = audit_text(audit)
    assert "Primary: 100.0% of indexed text" in text and "notes.pdf was quarantined" in text


def test_a_draft_that_quotes_a_source_does_not_quarantine_the_source(tmp_path: Path) -> None:
    src = tmp_path / "matter"
    make_pdf(src / "contract.pdf", [CONTRACT])
    db_path = tmp_path / "c.sqlite3"
    register_output(db_path, DRAFT + " The contract says: " + CONTRACT[:120], "draft")
    new_matter(db_path, src)

    report = ingest_matter(db_path, "acme", tessdata=None)

    assert report.ingested == [str(src / "contract.pdf")] and not report.quarantined


def test_registered_files_output_folders_and_chambers_pdfs_are_quarantined(tmp_path: Path) -> None:
    src = tmp_path / "matter"
    make_pdf(src / "contract.pdf", [CONTRACT])
    db_path = tmp_path / "c.sqlite3"
    export = make_pdf(tmp_path / "exports" / "summary.pdf", ["A one-line summary chambers exported."])
    register_output(db_path, export, "summary")
    shutil.copy(export, src / "summary-copy.pdf")
    data_dir = src / "chambers-data"
    make_pdf(data_dir / "review.pdf", ["A review sitting in the data folder."])
    make_pdf(src / "old-run" / "draft.pdf", ["A draft in a marked output folder."])
    (src / "old-run" / OUTPUT_MARKER).write_text("")
    make_pdf(src / "binder.pdf", ["An exhibit binder."], metadata={"creator": "chambers 0.1 exhibits"})
    new_matter(db_path, src)

    report = ingest_matter(db_path, "acme", output_roots=[data_dir], tessdata=None)

    reasons = {Path(n.path).name: n.message for n in report.quarantined}
    assert "is a chambers output (summary #1" in reasons["summary-copy.pdf"]
    assert f"output folder {data_dir}" in reasons["review.pdf"]
    assert f"output folder {src / 'old-run'}" in reasons["draft.pdf"]
    assert "metadata says chambers made it" in reasons["binder.pdf"]
    assert report.ingested == [str(src / "contract.pdf")]
    assert (
        len(ingest_matter(db_path, "acme", output_roots=[data_dir], tessdata=None).quarantined) == 0
    )  # unchanged
    assert len(audit_matter(db_path, "acme").quarantined) == 4  # the quarantine is kept on record


def test_the_audit_rechecks_indexed_text_against_later_outputs(tmp_path: Path) -> None:
    src = tmp_path / "matter"
    make_pdf(src / "contract.pdf", [CONTRACT])
    make_pdf(src / "memo.pdf", [DRAFT])
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    ingest_matter(db_path, "acme", tessdata=None)

    register_output(db_path, src / "memo.pdf", "draft")  # chambers wrote the memo; registered late
    audit = audit_matter(db_path, "acme")

    assert 0.3 < audit.primary_share < 0.9
    (item,) = audit.not_primary
    assert item.path == str(src / "memo.pdf") and "is chambers output #1" in item.reason


def test_quoting_a_short_source_whole_does_not_make_it_ours(tmp_path: Path) -> None:
    src = tmp_path / "matter"
    notice = "Marcus, this is written notice under section 5: the freezer failed overnight and we need a technician today."
    make_pdf(src / "notice.pdf", [notice])
    make_pdf(src / "contract.pdf", [CONTRACT])
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    ingest_matter(db_path, "acme", tessdata=None)
    quoting = f"{DRAFT[:200]} On June 13 Harbor Point wrote: '{notice}' {CONTRACT} {DRAFT[200:]}"
    register_output(db_path, quoting, "draft")  # quotes the notice whole and the contract at length

    audit = audit_matter(db_path, "acme")
    assert audit.primary_share == 1.0 and not audit.not_primary

    make_pdf(src / "saved-draft.pdf", [quoting[:700], quoting[700:]])  # the draft itself, mostly quotations
    report = ingest_matter(db_path, "acme", tessdata=None)
    (quarantined,) = report.quarantined
    assert quarantined.path.endswith("saved-draft.pdf")


def test_a_long_draft_is_caught_on_a_sample_of_its_pages(tmp_path: Path) -> None:
    pages = [
        f"Draft section {i}: the seller breached clause {i % 9} on day {i} and owes {i * 7} dollars." * 2
        for i in range(450)
    ]
    db_path = tmp_path / "c.sqlite3"
    register_output(db_path, "\n".join(pages), "draft")
    make_pdf(tmp_path / "src" / "old-draft.pdf", pages)
    new_matter(db_path, tmp_path / "src")

    report = ingest_matter(db_path, "acme", tessdata=None)

    (quarantined,) = report.quarantined
    assert quarantined.path.endswith("old-draft.pdf") and report.pages == 0
