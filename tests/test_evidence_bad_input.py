"""Bad input: each gets a message naming the file, and the rest of the ingest goes on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pymupdf
import pytest

from evidence.ingest import IngestEvent, ingest_matter
from evidence.report import audit_matter
from tests.support.evidence_files import make_pdf
from tests.test_evidence_ingest import new_matter, rows

ZERO_PAGE_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)


def indexed_names(db_path: Path) -> set[str]:
    return {Path(r[0]).name for r in rows(db_path, "SELECT DISTINCT path FROM documents")}


def notice_for(report_notices: list, name: str) -> tuple[str, str]:  # type: ignore[type-arg]
    (found,) = [(n.kind, n.message) for n in report_notices if Path(n.path).name == name]
    return found


def test_each_bad_file_is_named_and_the_good_ones_still_go_in(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_pdf(src / "good.pdf", ["A good page about the walk-in freezer."])
    locked = pymupdf.open()
    locked.new_page().insert_text((72, 72), "Settlement figures")
    locked.save(
        src / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="s3cret", owner_pw="owner"
    )
    (src / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(3000))
    (src / "empty.pdf").write_bytes(ZERO_PAGE_PDF)
    (src / "letter.pdf").write_text("Dear Sir, this is a letter saved with the wrong name.\n")
    (src / "scan.docx").write_bytes((src / "good.pdf").read_bytes())
    (src / "legacy.txt").write_bytes("Caf\xe9 \x96 r\xe9sum\xe9 of the invoice dispute\n".encode("latin-1"))
    (src / "sheet.xlsx").write_bytes(b"PK\x03\x04not really")
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)

    report = ingest_matter(db_path, "acme", tessdata=None)

    assert indexed_names(db_path) == {"good.pdf", "legacy.txt"}
    kind, message = notice_for(report.notices, "locked.pdf")
    assert kind == "encrypted" and "--password" in message and str(src / "locked.pdf") in message
    kind, message = notice_for(report.notices, "corrupt.pdf")
    assert kind == "error" and str(src / "corrupt.pdf") in message
    assert "has no pages" in notice_for(report.notices, "empty.pdf")[1]
    assert "is not a PDF" in notice_for(report.notices, "letter.pdf")[1]
    assert "not a readable Word document" in notice_for(report.notices, "scan.docx")[1]
    assert notice_for(report.notices, "sheet.xlsx")[0] == "skipped"
    kind, message = notice_for(report.notices, "legacy.txt")
    assert kind == "note" and "not UTF-8" in message
    (text,) = rows(
        db_path,
        """SELECT f.text FROM pages_fts f JOIN pages p ON p.id = f.rowid
        JOIN documents d ON d.id = p.document_id WHERE d.path LIKE '%legacy.txt'""",
    )
    assert text[0] == "Café – résumé of the invoice dispute\n"

    again = ingest_matter(db_path, "acme", passwords={"locked.pdf": "s3cret"}, tessdata=None)
    assert again.ingested == [str(src / "locked.pdf")]  # the password opens it; the rest are unchanged
    assert "locked.pdf" in indexed_names(db_path)


def test_symlink_loops_are_reported_not_followed(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_pdf(src / "sub" / "a.pdf", ["Page in a subfolder."])
    (src / "sub" / "back-up").symlink_to(src, target_is_directory=True)
    (src / "x.pdf").symlink_to(src / "y.pdf")
    (src / "y.pdf").symlink_to(src / "x.pdf")
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)

    report = ingest_matter(db_path, "acme", tessdata=None)

    assert indexed_names(db_path) == {"a.pdf"}
    loops = sorted(Path(n.path).name for n in report.notices if n.kind == "loop")
    assert loops == ["back-up", "x.pdf", "y.pdf"]
    ingest_matter(db_path, "acme", tessdata=None)  # found again next time, kept once for the audit
    audit = audit_matter(db_path, "acme")
    assert sorted(Path(path).name for kind, path, _ in audit.other_notices if kind == "loop") == loops


def test_a_source_folder_that_vanishes_mid_ingest(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    make_pdf(first / "a.pdf", ["First folder's page."])
    make_pdf(second / "b.pdf", ["Second folder's page."])
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, first, second)

    def pull_the_drive(event: IngestEvent) -> None:
        if event.stage == "done" and event.path.endswith("a.pdf"):
            shutil.rmtree(second)

    report = ingest_matter(db_path, "acme", progress=pull_the_drive, tessdata=None)

    assert indexed_names(db_path) == {"a.pdf"}
    kind, message = notice_for(report.notices, "second")
    assert kind == "vanished" and str(second) in message and "run the ingest again" in message


def test_an_interrupted_file_leaves_nothing_half_indexed(tmp_path: Path) -> None:
    make_pdf(tmp_path / "src" / "long.pdf", [f"Ledger page {i}." for i in range(300)])
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, tmp_path / "src")

    def interrupt(event: IngestEvent) -> None:
        if event.stage == "pages" and event.pages_done == 200:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest_matter(db_path, "acme", progress=interrupt, tessdata=None)

    assert rows(db_path, "SELECT count(*) FROM pages")[0][0] == 0
    assert rows(db_path, "SELECT count(*) FROM pages_fts")[0][0] == 0
    assert ingest_matter(db_path, "acme", tessdata=None).pages == 300
