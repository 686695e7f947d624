"""Ingest: real PDFs, DOCX, text and e-mail into page records, whole files at a time."""

from __future__ import annotations

import sqlite3
from email.message import EmailMessage
from pathlib import Path

import pytest

from evidence import schema as evidence_schema
from evidence.ingest import IngestEvent, ingest_matter
from evidence.matters import create_matter
from tests.support.evidence_files import make_docx, make_pdf, make_scanned_pdf, tree_hashes
from workspace.database import connect


def new_matter(db_path: Path, *sources: Path, name: str = "acme") -> None:
    create_matter(db_path, name, list(sources))


def rows(db_path: Path, sql: str, *args: object) -> list[sqlite3.Row]:
    db = connect(db_path, evidence_schema.SCHEMA)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def test_each_kind_becomes_page_records_with_bates_and_hash(tmp_path: Path) -> None:
    src = tmp_path / "matter"
    make_pdf(
        src / "contract.pdf",
        ["The Buyer shall pay within thirty days.", "Warranty: twelve months."],
        bates=["ACME-000001", "ACME-000002"],
        metadata={"creationDate": "D:20240115000000Z"},
    )
    make_docx(
        src / "memo.docx", [["Memo about delivery."], ["Second page of the memo."]], title="Delivery memo"
    )
    (src / "notes.md").write_text("# Call notes\n\nSpoke with the carrier on 2024-03-02.\n", encoding="utf-8")
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "a@example.com", "b@example.com", "Late units"
    mail["Date"] = "Tue, 05 Mar 2024 10:00:00 +0000"
    mail.set_content("The compressors have not arrived.")
    mail.add_attachment(
        b"Packing list: 4 compressors.", maintype="text", subtype="plain", filename="packing.txt"
    )
    (src / "thread.eml").write_bytes(mail.as_bytes())
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    before = tree_hashes(src)

    report = ingest_matter(db_path, "acme", tessdata=None)

    assert tree_hashes(src) == before  # source files are never changed
    assert report.pages == 7 and not report.notices
    pages = rows(
        db_path,
        """SELECT d.path, d.part, d.kind, d.doc_date, d.sha256, p.page_no, p.bates, f.text
        FROM pages p JOIN documents d ON d.id = p.document_id JOIN pages_fts f ON f.rowid = p.id
        ORDER BY d.path, d.part, p.page_no""",
    )
    by = {(Path(r["path"]).name, r["part"], r["page_no"]): r for r in pages}
    contract = by[("contract.pdf", "", 2)]
    assert contract["bates"] == "ACME-000002" and "twelve months" in contract["text"]
    assert contract["sha256"] == before["contract.pdf"] and contract["doc_date"] == "2024-01-15"
    assert by[("memo.docx", "", 2)]["text"].strip() == "Second page of the memo."
    assert by[("thread.eml", "", 1)]["doc_date"] == "2024-03-05"
    assert "Subject: Late units" in by[("thread.eml", "", 1)]["text"]
    assert "4 compressors" in by[("thread.eml", "attachment 1: packing.txt", 1)]["text"]
    assert by[("notes.md", "", 1)]["doc_date"] == "2024-03-02"


def test_scanned_page_is_read_by_tesseract(tmp_path: Path) -> None:
    make_scanned_pdf(tmp_path / "src" / "receipt.pdf", "DELIVERY RECEIPT\nFour compressors received damaged.")
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, tmp_path / "src")

    report = ingest_matter(db_path, "acme")

    assert not [n for n in report.notices if n.kind == "unread"]
    (page,) = rows(db_path, "SELECT p.ocr, f.text FROM pages p JOIN pages_fts f ON f.rowid = p.id")
    assert page["ocr"] == 1 and "compressors" in page["text"].lower()


def test_without_tesseract_the_unread_pages_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_scanned_pdf(tmp_path / "src" / "receipt.pdf", "DELIVERY RECEIPT")
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, tmp_path / "src")
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))

    report = ingest_matter(db_path, "acme")

    (unread,) = [n for n in report.notices if n.kind == "unread"]
    assert "receipt.pdf, page 1" in unread.message and "apt-get install tesseract-ocr" in unread.message
    monkeypatch.undo()  # Tesseract is back: the page is read on the next ingest, though the file is unchanged
    assert ingest_matter(db_path, "acme").ingested == [str(tmp_path / "src" / "receipt.pdf")]


def test_reingest_touches_only_changed_files_and_drops_deleted_ones(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for name in ("a", "b", "c"):
        make_pdf(src / f"{name}.pdf", [f"Document {name} about the freezer."])
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    assert len(ingest_matter(db_path, "acme").ingested) == 3

    make_pdf(src / "b.pdf", ["Document b, revised, about the chiller."])
    (src / "c.pdf").unlink()
    report = ingest_matter(db_path, "acme")

    assert report.ingested == [str(src / "b.pdf")] and report.unchanged == 1
    assert report.removed == [str(src / "c.pdf")]
    texts = sorted(r[0] for r in rows(db_path, "SELECT text FROM pages_fts"))
    assert texts == sorted(["Document a about the freezer.\n", "Document b, revised, about the chiller.\n"])


def test_a_2000_page_pdf_reports_progress(tmp_path: Path) -> None:
    make_pdf(tmp_path / "src" / "big.pdf", [f"Page {i} of the ledger." for i in range(1, 2001)])
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, tmp_path / "src")
    events: list[IngestEvent] = []

    report = ingest_matter(db_path, "acme", progress=events.append)

    assert report.pages == 2000
    steps = [e.pages_done for e in events if e.stage == "pages"]
    assert steps[0] == 100 and steps[-1] == 2000 and len(steps) == 20
    assert all(e.pages_total == 2000 for e in events if e.stage == "pages")


def test_a_production_log_numbers_unstamped_pages_and_a_stamp_wins(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_pdf(src / "invoices.pdf", ["Invoice one.", "Invoice two.", "Invoice three."])
    make_pdf(src / "stamped.pdf", ["A stamped letter."], bates=["HPP-000900"])
    (src / "production-log.csv").write_text(
        "file,bates_begin\ninvoices.pdf,HPP-000101\nstamped.pdf,HPP-000500\nmissing-number.pdf,\n",
        encoding="utf-8",
    )
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)

    report = ingest_matter(db_path, "acme", tessdata=None)

    found = rows(
        db_path, "SELECT d.path, p.page_no, p.bates FROM pages p JOIN documents d ON d.id = p.document_id"
    )
    assert sorted((Path(r[0]).name, r[1], r[2]) for r in found) == [
        ("invoices.pdf", 1, "HPP-000101"),
        ("invoices.pdf", 2, "HPP-000102"),
        ("invoices.pdf", 3, "HPP-000103"),
        ("stamped.pdf", 1, "HPP-000900"),
    ]
    (bad_row,) = [n for n in report.notices if n.path.endswith("production-log.csv")]
    assert "line 4" in bad_row.message and "file,bates_begin" in bad_row.message
    assert len(ingest_matter(db_path, "acme", tessdata=None).notices) == 1  # reported again, not piled up
    assert rows(db_path, "SELECT count(*) FROM ingest_notices")[0][0] == 1


def test_a_pdf_attached_to_an_email_is_its_own_document_with_its_pages(tmp_path: Path) -> None:
    attached = make_pdf(
        tmp_path / "quote.pdf", ["Quote page one.", "Quote page two."], bates=["CRS-000041", "CRS-000042"]
    )
    mail = EmailMessage()
    mail["From"], mail["Subject"], mail["Date"] = (
        "sales@example.com",
        "Your quote",
        "Mon, 08 Jan 2024 09:00:00 +0000",
    )
    mail.set_content("Please find our quote attached.")
    mail.add_attachment(attached.read_bytes(), maintype="application", subtype="pdf", filename="quote.pdf")
    mail.add_attachment(b"%PDF-1.7 broken", maintype="application", subtype="pdf", filename="broken.pdf")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "quote.eml").write_bytes(mail.as_bytes())
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, tmp_path / "src")

    report = ingest_matter(db_path, "acme", tessdata=None)

    found = rows(
        db_path,
        "SELECT d.part, d.kind, d.doc_date, p.bates FROM pages p JOIN documents d ON d.id = p.document_id ORDER BY p.id",
    )
    assert [(r["part"], r["kind"], r["bates"]) for r in found] == [
        ("", "email", None),
        ("attachment 1: quote.pdf", "pdf", "CRS-000041"),
        ("attachment 1: quote.pdf", "pdf", "CRS-000042"),
    ]
    assert found[1]["doc_date"] == "2024-01-08"  # the attachment is dated by its message
    (note,) = report.notices
    assert note.kind == "note" and "attachment 2: broken.pdf" in note.message and "damaged" in note.message
