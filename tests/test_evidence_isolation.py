"""One bad file stops nothing: ingest, stamp, bind and redact name it, say what to do, and go on.

The bad files are byte-for-byte shapes found in public PDF test suites
(tests/support/hostile_pdfs.py says which): a page tree that contains itself, a page
count MuPDF refuses, and a truncated file that MuPDF silently repairs.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from evidence.ingest import ingest_matter
from evidence.report import audit_matter, format_audit
from exhibits.numbering import bates_format
from exhibits.stamp import plan_production, run_production
from tests.support.evidence_files import make_pdf, tree_hashes
from tests.support.hostile_pdfs import broken_encryption, invalid_page_count, page_tree_cycle, truncated
from tests.test_evidence_bad_input import indexed_names, notice_for
from tests.test_evidence_ingest import new_matter
from tui.cli.main import main


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    make_pdf(src / "good.pdf", ["A good page about the walk-in freezer. SSN 123-45-6789."])
    page_tree_cycle(src / "cycle.pdf")
    invalid_page_count(src / "badcount.pdf")
    truncated(src / "truncated.pdf")
    return src


def test_ingest_names_each_bad_pdf_and_indexes_the_rest(hostile: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, hostile)
    report = ingest_matter(db_path, "acme", tessdata=None)
    assert indexed_names(db_path) == {"good.pdf", "truncated.pdf"}
    kind, message = notice_for(report.notices, "cycle.pdf")
    assert kind == "error" and str(hostile / "cycle.pdf") in message and "cycle in page tree" in message
    assert "Ask for a fresh copy" in message
    kind, message = notice_for(report.notices, "badcount.pdf")
    assert kind == "error" and "page count cannot be read" in message
    again = ingest_matter(db_path, "acme", tessdata=None)  # and on every rerun, never a traceback
    assert {Path(n.path).name for n in again.notices if n.kind == "error"} == {"cycle.pdf", "badcount.pdf"}


def test_a_repaired_pdf_is_marked_and_its_empty_pages_counted_unread(hostile: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, hostile)
    ingest_matter(db_path, "acme", tessdata=None)
    audit = audit_matter(db_path, "acme")
    repaired = [m for kind, path, m in audit.other_notices if kind == "repaired"]
    assert len(repaired) == 1 and "truncated.pdf is damaged: MuPDF had to repair it" in repaired[0]
    unread = sorted(m for path, m in audit.unread if path.endswith("truncated.pdf"))
    assert len(unread) == 3 and all("repair" in m for m in unread)  # pages 4-6 were in the lost half
    assert "Unread pages: 3" in format_audit(audit)


def test_links_out_of_the_source_folder_are_listed_not_read(tmp_path: Path) -> None:
    src, elsewhere = tmp_path / "src", tmp_path / "elsewhere"
    make_pdf(src / "inside.pdf", ["Page inside the folder."])
    make_pdf(elsewhere / "private.pdf", ["Something never given as evidence."])
    (src / "private-link.pdf").symlink_to(elsewhere / "private.pdf")
    (src / "shared").symlink_to(elsewhere, target_is_directory=True)
    (src / "inside-link.pdf").symlink_to(src / "inside.pdf")
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    report = ingest_matter(db_path, "acme", tessdata=None)
    assert indexed_names(db_path) == {"inside.pdf", "inside-link.pdf"}
    outside = {Path(n.path).name: n.message for n in report.notices if n.kind == "outside"}
    assert sorted(outside) == ["private-link.pdf", "shared"]
    assert (
        str(elsewhere / "private.pdf") in outside["private-link.pdf"]
        and "--follow-links" in outside["shared"]
    )
    followed = ingest_matter(db_path, "acme", tessdata=None, follow_links=True)
    assert not [n for n in followed.notices if n.kind == "outside"]
    assert indexed_names(db_path) == {"inside.pdf", "inside-link.pdf", "private-link.pdf", "private.pdf"}
    ingest_matter(db_path, "acme", tessdata=None)  # without the flag again: what the links gave is dropped
    assert indexed_names(db_path) == {"inside.pdf", "inside-link.pdf"}


def test_stamp_bind_and_redact_leave_the_bad_files_out_and_do_the_rest(
    hostile: Path, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_hashes(hostile)
    assert main(["matter", "new", "acme", "--sources", str(hostile)]) == 0
    pdfs = [str(hostile / n) for n in ("cycle.pdf", "good.pdf", "badcount.pdf", "truncated.pdf")]
    capsys.readouterr()
    assert (
        main(["exhibits", "stamp", "acme", *pdfs, "--prefix", "ACME", "--out", str(tmp_path / "prod")]) == 0
    )
    shown = capsys.readouterr().out
    assert "Left out (2 file(s) could not be read)" in shown and "cycle in page tree" in shown
    assert "ACME-000001..ACME-000007" in shown  # good (1 page) and truncated (6 pages)
    assert sorted(p.name for p in (tmp_path / "prod").glob("*.pdf")) == ["good.pdf", "truncated.pdf"]
    exhibits = [a for pdf in pdfs for a in ("--exhibit", pdf, Path(pdf).stem)]
    assert main(["exhibits", "bind", "acme", *exhibits, "--out", str(tmp_path / "binder" / "b.pdf")]) == 0
    shown = capsys.readouterr().out
    assert "badcount.pdf is damaged" in shown
    # the repaired file's lost pages open but cannot be copied: it is left out when that is found
    assert "truncated.pdf could not be copied into the binder" in shown and "laid out again" in shown
    assert pymupdf.open(tmp_path / "binder" / "b.pdf").page_count == 3  # index, slip sheet, good.pdf
    assert (
        main(["exhibits", "redact", "acme", *pdfs, "--pattern", "ssn", "--out", str(tmp_path / "red")]) == 0
    )
    shown = capsys.readouterr().out
    assert "cycle.pdf" in shown and "truncated.pdf" in shown  # its saved copy cannot be read back: left out
    assert sorted(p.name for p in (tmp_path / "red").glob("*.pdf")) == ["good.pdf"]
    assert "123-45-6789" not in pymupdf.open(tmp_path / "red" / "good.pdf")[0].get_text()
    assert tree_hashes(hostile) == before


def test_a_document_that_fails_only_when_saved_is_left_out_and_the_production_renumbered(
    hostile: Path, tmp_path: Path
) -> None:
    broken = broken_encryption(hostile / "broken-encryption.pdf")
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, hostile)
    plan = plan_production(
        db_path, "acme", [broken, hostile / "good.pdf"], bates_format("ACME", 6), tmp_path / "out"
    )
    assert [d.first_number for d in plan.documents] == [1, 2]  # it opened and every page loaded
    result = run_production(db_path, plan)
    assert [(d.source.name, d.first_number) for d in result.plan.documents] == [("good.pdf", 1)]
    (left,) = result.plan.left_out
    assert left.path == broken and "broken-encryption.pdf could not be processed" in left.message
    assert "ACME-000001" in pymupdf.open(tmp_path / "out" / "good.pdf")[0].get_text()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".chambers-output",
        "good.pdf",
        "production-log.csv",
    ]
