"""Redaction on real PDFs, each result checked with PyMuPDF *and* poppler's pdftotext (the leak check)."""

from __future__ import annotations

import csv
from pathlib import Path

import pymupdf
import pytest

from evidence.matters import create_matter
from evidence.ocr import find_tessdata
from exhibits import schema as exhibits_schema
from exhibits.errors import RedactionLeak
from exhibits.find import PageRect, RedactionRequest
from exhibits.patterns import PATTERNS, patterns_named
from exhibits.redact import plan_redaction, run_redaction
from tests.support.exhibits_files import image_pdf, pdftotext, pymupdf_text, scanned_pdf, squeeze, text_pdf
from workspace.database import connect

SSN = "123-45-6789"
MATTER = "acme"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "chambers.sqlite3"
    (tmp_path / "sources").mkdir()
    create_matter(path, MATTER, [tmp_path / "sources"])
    return path


def assert_gone(path: Path, *secrets: str) -> None:
    """The leak check: neither PyMuPDF nor pdftotext can extract any of ``secrets`` from ``path``."""
    for extractor in (pymupdf_text, pdftotext):
        text = squeeze(extractor(path))
        for secret in secrets:
            assert squeeze(secret) not in text, f"{secret!r} still extractable by {extractor.__name__}"


def redact(db_path: Path, sources: list[Path], out: Path, **kw: object):  # type: ignore[no-untyped-def]
    return run_redaction(db_path, MATTER, sources, out, RedactionRequest(**kw))  # type: ignore[arg-type]


def test_ssn_leak_check_on_rotated_text_page(db_path: Path, tmp_path: Path) -> None:
    source = text_pdf(
        tmp_path / "sources" / "intake.pdf",
        [f"Client intake. Social Security number {SSN}, verified by phone.", f"Again: {SSN}."],
        rotations=[90, 180],
    )
    assert SSN in pymupdf_text(source) and SSN in pdftotext(source)
    (item,) = redact(db_path, [source], tmp_path / "out", patterns=patterns_named(["ssn"]))
    out = tmp_path / "out" / "intake.pdf"
    assert_gone(out, SSN)
    text = pymupdf_text(out)
    assert "Client intake" in text and "verified by phone" in text
    assert item.verified_with == ["PyMuPDF", "pdftotext"]
    log = (tmp_path / "out" / "intake.redaction-log.csv").read_text()
    assert SSN not in log and "6789" not in log
    rows = list(csv.DictReader(log.splitlines()))
    assert [(r["page"], r["reason"]) for r in rows] == [("1", "pattern ssn"), ("2", "pattern ssn")]
    db = connect(db_path, exhibits_schema.SCHEMA)
    stored = db.execute("SELECT reason, text_hmac FROM exhibits_redactions").fetchall()
    db.close()
    assert len(stored) == 2 and all(SSN not in r["text_hmac"] for r in stored)


def test_every_shipped_pattern_is_removed(db_path: Path, tmp_path: Path) -> None:
    secrets = {
        "ssn": SSN,
        "card": "4111 1111 1111 1111",
        "account": "000123456789",
        "dob": "04/12/1961",
        "email": "dana.w@harbor.example",
        "phone": "(555) 123-4567",
    }
    body = (
        f"SSN {secrets['ssn']}. Card {secrets['card']}. Account No. {secrets['account']}. "
        f"DOB: {secrets['dob']}. Mail {secrets['email']}. Call {secrets['phone']}. Invoice 1234567890123 stays."
    )
    source = text_pdf(tmp_path / "sources" / "pii.pdf", [body])
    (item,) = redact(db_path, [source], tmp_path / "out", patterns=list(PATTERNS.values()))
    assert {h.reason for h in item.hits} == {f"pattern {name}" for name in PATTERNS}
    out = tmp_path / "out" / "pii.pdf"
    assert_gone(out, *secrets.values())
    assert "Invoice 1234567890123 stays" in pymupdf_text(out)


def test_scanned_page_is_ocrd_and_the_image_region_blanked(db_path: Path, tmp_path: Path) -> None:
    assert find_tessdata(), "Tesseract is needed (make test installs it)"
    source = scanned_pdf(tmp_path / "sources" / "scan.pdf", f"RECEIPT\nPatient SSN {SSN}\nSigned R. Okafor")
    assert SSN not in pymupdf_text(source), "the scan must have no text layer"
    (item,) = redact(db_path, [source], tmp_path / "out", patterns=patterns_named(["ssn"]))
    assert [h.ocr for h in item.hits] == [True] and "OCR" in item.verified_with
    out = tmp_path / "out" / "scan.pdf"
    assert_gone(out, SSN)
    with pymupdf.open(out) as doc:
        page = doc[0]
        ocr_text = page.get_text(textpage=page.get_textpage_ocr(dpi=300, full=True, tessdata=find_tessdata()))
    assert squeeze(SSN) not in squeeze(ocr_text), "the number is still in the picture"
    assert "okafor" in ocr_text.casefold(), "the rest of the scan must survive"


def test_box_over_a_picture_blanks_only_those_pixels(db_path: Path, tmp_path: Path) -> None:
    source = image_pdf(tmp_path / "sources" / "photo.pdf", "A photo of the freezer follows.")
    redact(db_path, [source], tmp_path / "out", rects=(PageRect(1, (72, 320, 172, 420)),))
    out = tmp_path / "out" / "photo.pdf"
    with pymupdf.open(out) as doc:
        pix = doc[0].get_pixmap(dpi=72)
    assert pix.pixel(100, 350) == (0, 0, 0)  # under the box: the fill, the picture's pixels gone
    assert pix.pixel(300, 450) == (30, 120, 200)  # outside the box: the picture is intact
    assert out.stat().st_size <= 1.1 * source.stat().st_size + 2048


def test_metadata_leak_refuses_output_unless_scrubbed(db_path: Path, tmp_path: Path) -> None:
    source = tmp_path / "sources" / "meta.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), f"Employee SSN {SSN}")
    doc.set_metadata({"title": f"Personnel file {SSN}", "subject": "HR"})
    doc.set_toc([[1, f"SSN {SSN}", 1]])
    doc.save(source)
    doc.close()
    clean = text_pdf(tmp_path / "sources" / "clean.pdf", [f"Form W-2, SSN {SSN}."])
    with pytest.raises(RedactionLeak, match=r"metadata title.*--scrub") as caught:
        redact(db_path, [clean, source], tmp_path / "out", patterns=patterns_named(["ssn"]))
    assert SSN not in caught.value.message
    assert not (tmp_path / "out" / "meta.pdf").exists()
    assert not (tmp_path / "out" / "clean.pdf").exists(), (
        "one leak stops the whole request: nothing is published"
    )
    assert not [p for p in (tmp_path / "out").iterdir() if p.suffix in (".tmp", ".pdf")]
    (item,) = redact(db_path, [source], tmp_path / "out", patterns=patterns_named(["ssn"]), scrub=True)
    out = tmp_path / "out" / "meta.pdf"
    assert_gone(out, SSN)
    with pymupdf.open(out) as result:
        assert SSN not in (result.metadata or {}).get("title", "") and result.get_toc()[0][1] == "[redacted]"
    assert "metadata title" in item.scrubbed and "bookmark 1 title" in item.scrubbed


def test_search_terms_and_dry_run_writes_nothing(db_path: Path, tmp_path: Path) -> None:
    source = text_pdf(
        tmp_path / "sources" / "memo.pdf", ["Project Nightjar is confidential. NIGHTJAR launches soon."]
    )
    plan = plan_redaction([source], tmp_path / "out", RedactionRequest(terms=("nightjar",)))
    assert not (tmp_path / "out").exists()
    assert len(plan[0].hits) == 1 and len(plan[0].hits[0].rects) == 2
    assert "Nightjar" not in "\n".join(plan[0].describe())
    redact(db_path, [source], tmp_path / "out", terms=("nightjar",))
    assert_gone(tmp_path / "out" / "memo.pdf", "nightjar")
    assert "confidential" in pymupdf_text(tmp_path / "out" / "memo.pdf")


def test_scrub_clears_annotations_and_attachments_and_boxes_remove_line_art(
    db_path: Path, tmp_path: Path
) -> None:
    source = tmp_path / "sources" / "annotated.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), f"Claimant SSN {SSN}")
    page.draw_rect(pymupdf.Rect(300, 300, 400, 340), color=(1, 0, 0), fill=(1, 0, 0))  # line art under a box
    page.add_text_annot((72, 200), f"Reviewer note: SSN is {SSN}")
    doc.embfile_add("intake.txt", f"ssn={SSN}\n".encode(), desc="intake form")
    doc.save(source)
    doc.close()
    with pytest.raises(RedactionLeak, match="annotation"):
        redact(db_path, [source], tmp_path / "out", patterns=patterns_named(["ssn"]))
    (item,) = redact(
        db_path,
        [source],
        tmp_path / "out",
        patterns=patterns_named(["ssn"]),
        scrub=True,
        rects=(PageRect(1, (290, 290, 410, 350)),),
    )
    out = tmp_path / "out" / "annotated.pdf"
    assert_gone(out, SSN)
    with pymupdf.open(out) as result:
        assert not list(result[0].annots())
        assert result.embfile_get("intake.txt") == b"ssn=[redacted]\n", "the text attachment is rewritten"
        assert not [
            d
            for d in result[0].get_drawings()
            if d["rect"].intersects(pymupdf.Rect(300, 300, 400, 340)) and d.get("fill") == (1.0, 0.0, 0.0)
        ]
    assert "annotation on page 1" in item.scrubbed
    assert item.attachments == ["attached file intake.txt: text, 1 value(s) rewritten as [redacted]"]


@pytest.mark.parametrize("rotation", [90, 180])
def test_turned_scan_is_read_in_every_turn_and_redacted(db_path: Path, tmp_path: Path, rotation: int) -> None:
    """A picture drawn upright but shown turned OCRs to noise as shown; the SSN must still be found."""
    source = scanned_pdf(
        tmp_path / "sources" / "turned.pdf",
        f"RECEIPT\nPatient SSN {SSN}\nSigned R. Okafor",
        rotation=rotation,
    )
    (item,) = redact(db_path, [source], tmp_path / "out", patterns=patterns_named(["ssn"]))
    assert [(h.reason, h.ocr) for h in item.hits] == [("pattern ssn", True)]
    out = tmp_path / "out" / "turned.pdf"
    assert_gone(out, SSN)
    with pymupdf.open(out) as doc:
        page = doc[0]
        page.set_rotation(0)  # the picture's own upright: where Tesseract can read it
        upright = page.get_text(textpage=page.get_textpage_ocr(dpi=300, full=True, tessdata=find_tessdata()))
    assert squeeze(SSN) not in squeeze(upright) and "okafor" in upright.casefold()


def test_ordinary_producer_metadata_is_not_taken_for_identifiers(db_path: Path, tmp_path: Path) -> None:
    """Strings as real producers write them (pdfTeX's banner, a court PDF's ModDate) are no SSN or card.

    Verification reads every metadata key with every pattern, so a false match there would refuse an
    ordinary file unless scrubbed.
    """
    source = text_pdf(tmp_path / "sources" / "opinion.pdf", [f"Opinion. Appellant's SSN {SSN} was sealed."])
    with pymupdf.open(source) as doc:
        doc.set_metadata({"modDate": "D:20210114154801Z00'00'", "producer": "pdfTeX-1.40.24"})
        info = int(doc.xref_get_key(-1, "Info")[1].split()[0])
        banner = (
            "This is pdfTeX, Version 3.141592653-2.6-1.40.24 (TeX Live 2022/Debian) kpathsea version 6.3.4"
        )
        doc.xref_set_key(info, "PTEX.Fullbanner", pymupdf.get_pdf_str(banner))
        doc.saveIncr()
    (item,) = redact(db_path, [source], tmp_path / "out", patterns=list(PATTERNS.values()))
    assert [h.reason for h in item.hits] == ["pattern ssn"]
    with pymupdf.open(tmp_path / "out" / "opinion.pdf") as doc:
        assert (
            doc.xref_get_key(int(doc.xref_get_key(-1, "Info")[1].split()[0]), "PTEX.Fullbanner")[1] == banner
        )
