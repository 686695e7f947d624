"""Redaction against a third round of hiding places: attached files, comments, pictures' own metadata,
encoded addresses, private dictionaries, names and numbers, a value found once, pictures of text.

Each PDF is made with PyMuPDF (tests/support/hostile_pdfs.py) and holds the secret in one place. Before
redaction a reader of tests/support/redaction_readers.py must find it (so the test is not vacuous); after
``scrub=True`` none does. A file that cannot be read is removed with a notice, or refused.
"""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from evidence.matters import create_matter
from exhibits.errors import RedactionLeak
from exhibits.find import PageRect, RedactionRequest
from exhibits.matching import Matcher
from exhibits.patterns import patterns_named
from exhibits.redact import plan_redaction, run_redaction
from exhibits.verify import verify_file
from tests.support.hostile_pdfs import (
    BARE,
    CODENAME,
    SECRET,
    append_content,
    exif,
    info_entry,
    jpeg,
    marker,
    picture_of_text,
    secret_pdf,
    stencil_picture_of_text,
    utf16_hex,
    xmp_segment,
)
from tests.support.redaction_readers import readers_finding, xray_findings
from tests.test_exhibits_redact_hostile import hostile_pdf

MATTER = "acme"
Builder = Callable[[pymupdf.Document, pymupdf.Page], object]
Request = dict[str, tuple[str, ...]]
SSN: Request = {"patterns": ("ssn",)}
TERM: Request = {"terms": (CODENAME,)}


def _image(segment: bytes) -> Builder:
    return lambda doc, page: page.insert_image(pymupdf.Rect(72, 300, 136, 348), stream=jpeg(segment))


def _piece_info(value: str) -> Builder:
    """An application's private dictionary on the page, as Illustrator and Acrobat write them."""
    return lambda doc, page: doc.xref_set_key(
        page.xref, "PieceInfo", f"<</Nightjar <</Private {value} /LastModified (D:20240101)>>>>"
    )


def _private_stream(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """A private dictionary whose data is a stream of UTF-16 text without a byte-order mark."""
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    doc.update_stream(xref, f"Codename: {CODENAME}".encode("utf-16-le"))
    doc.xref_set_key(page.xref, "PieceInfo", f"<</App <</Private {xref} 0 R>>>>")


def _private_stream_of(data: bytes) -> Builder:
    """A private dictionary whose data is a whole file (a producer keeping the original)."""

    def build(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        xref = doc.get_new_xref()
        doc.update_object(xref, "<<>>")
        doc.update_stream(xref, data)
        doc.xref_set_key(page.xref, "PieceInfo", f"<</App <</Private {xref} 0 R>>>>")

    return build


def _xfa(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """An XFA form whose data (an XML stream of no declared kind) holds the SSN."""
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    data = f'<xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/"><ssn>{SECRET}</ssn></xfa:datasets>'
    doc.update_stream(xref, data.encode())
    doc.xref_set_key(doc.pdf_catalog(), "AcroForm", f"<</Fields [] /XFA [(datasets) {xref} 0 R]>>")


def _script_link(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """A link that runs a script kept in a stream: the SSN is in the script."""
    script = doc.get_new_xref()
    doc.update_object(script, "<<>>")
    doc.update_stream(script, f"var claimant = '{SECRET}'; app.alert(claimant);".encode())
    annot = doc.get_new_xref()
    doc.update_object(
        annot, f"<</Type/Annot/Subtype/Link/Rect[72 80 200 100]/A<</S/JavaScript/JS {script} 0 R>>>>"
    )
    doc.xref_set_key(page.xref, "Annots", f"[{annot} 0 R]")


def _associated_file(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """A PDF 2.0 associated file: a file specification the page lists under /AF, in no other list."""
    stream = doc.get_new_xref()
    doc.update_object(stream, "<</Type/EmbeddedFile>>")
    doc.update_stream(stream, secret_pdf())
    spec = doc.get_new_xref()
    doc.update_object(
        spec, f"<</Type/Filespec/F(source.pdf)/UF(source.pdf)/AFRelationship/Source/EF<</F {stream} 0 R>>>>"
    )
    doc.xref_set_key(page.xref, "AF", f"[{spec} 0 R]")


def _link(uri: str) -> Builder:
    return lambda doc, page: page.insert_link(
        {"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(72, 80, 200, 100), "uri": uri}
    )


# place -> (builder, what the readers look for, the request)
PLACES: dict[str, tuple[Builder, str, Request]] = {
    "attached PDF": (lambda doc, page: doc.embfile_add("exhibit-3.pdf", secret_pdf()), SECRET, SSN),
    "PDF in a file-attachment annotation": (
        lambda doc, page: page.add_file_annot((72, 300), secret_pdf(), "scan.pdf"),
        SECRET,
        SSN,
    ),
    "gzip attachment": (
        lambda doc, page: doc.embfile_add("notes.txt.gz", gzip.compress(f"claimant ssn {SECRET}\n".encode())),
        SECRET,
        SSN,
    ),
    "PDF in a gzip attachment": (
        lambda doc, page: doc.embfile_add("bundle.pdf.gz", gzip.compress(secret_pdf())),
        SECRET,
        SSN,
    ),
    "PDF attached inside an attached PDF": (
        lambda doc, page: doc.embfile_add("outer.pdf", secret_pdf("Cover letter.", attach=secret_pdf())),
        SECRET,
        SSN,
    ),
    "associated file of the page": (_associated_file, SECRET, SSN),
    "UTF-16 text attachment": (
        lambda doc, page: doc.embfile_add("notes.txt", f"SSN {SECRET}".encode("utf-16-le")),
        SECRET,
        SSN,
    ),
    "comment in a content stream": (
        lambda doc, page: append_content(doc, page, f"% reviewer: SSN {SECRET} (see file".encode()),
        SECRET,
        SSN,
    ),
    "JPEG comment": (_image(marker(0xFE, f"Badge {SECRET}".encode())), SECRET, SSN),
    "JPEG EXIF description": (_image(exif(f"Badge {SECRET}")), SECRET, SSN),
    "XMP inside a JPEG": (_image(xmp_segment(f"Badge {SECRET}")), SECRET, SSN),
    "link address with +": (_link("https://intranet.example/search?q=Project+Nightjar"), CODENAME, TERM),
    "link address with %2D": (_link("https://x.example/claims?id=531%2D44%2D9087"), SECRET, SSN),
    "link address encoded twice": (_link("https://x.example/claims?id=531%252D44%252D9087"), SECRET, SSN),
    "private dictionary string": (_piece_info(f"(SSN {SECRET})"), SECRET, SSN),
    "private dictionary name": (_piece_info("/Project#20Nightjar"), CODENAME, TERM),
    "private dictionary UTF-16 hex string": (_piece_info(utf16_hex(f"SSN {SECRET}")), SECRET, SSN),
    "private stream in UTF-16": (_private_stream, CODENAME, TERM),
    "private dictionary string with PDFDocEncoding dashes": (
        _piece_info("(SSN 531\\20544\\2059087)"),
        BARE,
        SSN,
    ),
    "XFA form data": (_xfa, SECRET, SSN),
    "script stream run by a link": (_script_link, SECRET, SSN),
    "PDF kept in a private stream": (_private_stream_of(gzip.compress(secret_pdf())), SECRET, SSN),
    "name object in the information": (
        lambda doc, page: info_entry(doc, "Client", "/Project#20Nightjar"),
        CODENAME,
        TERM,
    ),
    "number in the information": (lambda doc, page: info_entry(doc, "EmployeeNo", BARE), BARE, SSN),
}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "chambers.sqlite3"
    (tmp_path / "sources").mkdir()
    create_matter(path, MATTER, [tmp_path / "sources"])
    return path


def redact(db_path: Path, source: Path, out: Path, patterns: tuple[str, ...] = (), **kw: Any) -> list[Any]:
    request = RedactionRequest(patterns=tuple(patterns_named(list(patterns))), **kw)
    return list(run_redaction(db_path, MATTER, [source], out, request))


@pytest.mark.parametrize("place", list(PLACES))
def test_secret_in_each_new_place_is_gone_for_every_reader(db_path: Path, tmp_path: Path, place: str) -> None:
    build, secret, request = PLACES[place]
    source = hostile_pdf(tmp_path / "sources" / "hostile.pdf", build)
    assert readers_finding(source, secret), "the test PDF must really hold the secret"
    redact(db_path, source, tmp_path / "out", scrub=True, **request)
    out = tmp_path / "out" / "hostile.pdf"
    assert readers_finding(out, secret) == []
    with pymupdf.open(out) as doc:
        assert "nothing here is secret" in doc[0].get_text().casefold()


@pytest.mark.parametrize("place", list(PLACES))
def test_without_scrub_verification_finds_each_new_place_and_writes_nothing(
    db_path: Path, tmp_path: Path, place: str
) -> None:
    """Verification reads each of these places itself: unscrubbed, the file is refused, never passed."""
    build, _, request = PLACES[place]
    source = hostile_pdf(tmp_path / "sources" / "hostile.pdf", build)
    with pytest.raises(RedactionLeak, match="--scrub"):
        redact(db_path, source, tmp_path / "out", **request)
    assert not list((tmp_path / "out").glob("*.pdf"))


@pytest.mark.parametrize(
    "place", ["attached PDF", "PDF in a file-attachment annotation", "PDF attached inside an attached PDF"]
)
def test_attached_pdf_is_redacted_as_a_document_and_kept(db_path: Path, tmp_path: Path, place: str) -> None:
    """An attached PDF is redacted, not dropped: its other text is still there, and the attorney is told."""
    source = hostile_pdf(tmp_path / "sources" / "hostile.pdf", PLACES[place][0])
    (item,) = redact(db_path, source, tmp_path / "out", scrub=True, patterns=("ssn",))
    assert any("a PDF, redacted as a document of its own" in line for line in item.attachments)
    assert any("redacted as a document of its own" in line for line in item.describe())
    with pymupdf.open(tmp_path / "out" / "hostile.pdf") as doc:
        page = doc[0]
        data = doc.embfile_get(doc.embfile_names()[0]) if doc.embfile_count() else page.first_annot.get_file()
    with pymupdf.open(stream=data, filetype="pdf") as inner:
        assert "Intake form. SSN" in inner[0].get_text() or "Cover letter" in inner[0].get_text()
    (tmp_path / "inner.pdf").write_bytes(data)
    assert xray_findings(tmp_path / "inner.pdf") == {}, "no text may be left under the attached PDF's boxes"


def test_attached_pdf_without_scrub_is_refused(db_path: Path, tmp_path: Path) -> None:
    source = hostile_pdf(tmp_path / "sources" / "hostile.pdf", PLACES["attached PDF"][0])
    with pytest.raises(RedactionLeak, match=r"attached file exhibit-3\.pdf: pattern ssn.*--scrub") as caught:
        redact(db_path, source, tmp_path / "out", patterns=("ssn",))
    assert SECRET not in caught.value.message
    assert not list((tmp_path / "out").glob("*.pdf"))


def test_verification_reads_attached_pdfs_with_two_readers(tmp_path: Path) -> None:
    """The attached PDF is read by the object scan and, saved on its own, by pdftotext."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Cover page.")
    doc.embfile_add("exhibit.pdf", gzip.compress(secret_pdf(f"Codename {CODENAME}.")))
    path = tmp_path / "nested.pdf"
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    leaks = verify_file(path, Matcher((CODENAME,)), set(), None).leaks
    where = {leak.where for leak in leaks}
    assert "attached file exhibit.pdf" in where
    assert "pdftotext of attached file exhibit.pdf" in where


def _zip_with_secret() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("ssn.txt", f"SSN {SECRET} " * 40)
    return out.getvalue()


def test_attachment_that_cannot_be_read_is_refused_or_removed_with_the_reason(
    db_path: Path, tmp_path: Path
) -> None:
    """A ZIP holds the SSN deflated: nothing reads it, so it may not pass through unread."""
    source = hostile_pdf(
        tmp_path / "sources" / "zip.pdf", lambda doc, page: doc.embfile_add("records.zip", _zip_with_secret())
    )
    assert SECRET.encode() not in source.read_bytes() and "raw bytes" not in readers_finding(source, SECRET)
    with pytest.raises(RedactionLeak, match=r"attached file records\.zip: is a file in a format chambers "):
        redact(db_path, source, tmp_path / "out", patterns=("ssn",))
    (item,) = redact(db_path, source, tmp_path / "out", patterns=("ssn",), scrub=True)
    assert item.attachments == [
        "attached file records.zip: removed: it is a file in a format chambers cannot read (ZIP or Office)"
    ]
    with pymupdf.open(tmp_path / "out" / "zip.pdf") as doc:
        assert all(not doc.embfile_get(name) for name in doc.embfile_names())


def test_value_a_pattern_finds_once_is_removed_everywhere(db_path: Path, tmp_path: Path) -> None:
    """The account pattern needs its label, which only a note has; the bare number elsewhere goes too."""
    account = "000123456789"

    def build(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        page.add_text_annot((72, 300), f"Wire from Account No. {account}")
        page.insert_text((72, 400), f"Payment reference {account} received.", fontsize=11)
        doc.set_metadata({"author": account, "keywords": f"ref {account}, wire"})

    source = hostile_pdf(tmp_path / "sources" / "account.pdf", build)
    (item,) = redact(db_path, source, tmp_path / "out", patterns=("account",), scrub=True)
    out = tmp_path / "out" / "account.pdf"
    assert readers_finding(out, account) == []
    assert [h.page_no for h in item.hits] == [1]
    with pymupdf.open(out) as doc:
        assert "Payment reference" in doc[0].get_text() and "received" in doc[0].get_text()


def _digits_box(fontsize: float) -> pymupdf.Rect:
    """Where the SSN's digits lie on the page, in the picture picture_of_text places."""
    paper = pymupdf.open()
    paper.new_page(width=300, height=60).insert_text((10, 35), f"SSN {SECRET}", fontsize=fontsize)
    (found,) = paper[0].search_for(SECRET)
    return pymupdf.Rect(found.x0 + 72, found.y0 + 320, found.x1 + 72, found.y1 + 320)


def _dark_share(path: Path, box: pymupdf.Rect) -> float:
    """The share of pure black pixels across the middle of ``box``, rendered at 300 dpi."""
    with pymupdf.open(path) as doc:
        pix = doc[0].get_pixmap(dpi=300, clip=box, colorspace=pymupdf.csGRAY)
    row = pix.height // 2
    values = [pix.pixel(x, row)[0] for x in range(pix.width)]
    return sum(v == 0 for v in values) / len(values)


@pytest.mark.parametrize(("ocr", "fontsize"), [("auto", 7.0), ("always", 4.5)])
def test_ssn_shown_only_as_a_small_picture_on_a_text_page_is_boxed(
    db_path: Path, tmp_path: Path, ocr: str, fontsize: float
) -> None:
    """At 150 dpi a 4.5-point SSN reads "$31-44-9087" when the page is OCR'd at 300 dpi; enlarged, it
    reads right. And a text page is not OCR'd as a scan at all, so in auto mode it was never read."""
    source = tmp_path / "sources" / "badge.pdf"
    doc = pymupdf.open()
    picture_of_text(doc.new_page(), f"SSN {SECRET}", dpi=150, fontsize=fontsize)
    doc.save(source)
    doc.close()
    box = _digits_box(fontsize)
    assert _dark_share(source, box) < 0.5, "the digits must be visible in the source"
    (item,) = redact(db_path, source, tmp_path / "out", patterns=("ssn",), ocr=ocr)
    assert [(h.reason, h.ocr) for h in item.hits] == [("pattern ssn", True)]
    out = tmp_path / "out" / "badge.pdf"
    assert _dark_share(out, box) > 0.95, "the digits' pixels must be blacked out"
    with pymupdf.open(out) as result:
        assert "Employee record" in result[0].get_text()


def test_picture_ocr_cannot_read_is_named_with_the_box_that_would_cover_it(
    db_path: Path, tmp_path: Path
) -> None:
    """A 3-point SSN at 150 dpi reads as noise: the attorney is told, and offered the picture's box."""
    source = tmp_path / "sources" / "tiny.pdf"
    doc = pymupdf.open()
    where = picture_of_text(doc.new_page(), f"SSN {SECRET}", dpi=150, fontsize=3.0)
    doc.save(source)
    doc.close()
    request = RedactionRequest(patterns=tuple(patterns_named(["ssn"])))
    (plan,) = plan_redaction([source], tmp_path / "out", request)
    offer = f"--rect 1:{where.x0:.0f},{where.y0:.0f},{where.x1:.0f},{where.y1:.0f}"
    assert plan.hits == [] and any(offer in line and "confidence" in line for line in plan.describe())
    rect = PageRect(1, (where.x0, where.y0, where.x1, where.y1))
    redact(db_path, source, tmp_path / "out", patterns=("ssn",), rects=(rect,))
    assert _dark_share(tmp_path / "out" / "tiny.pdf", _digits_box(3.0)) > 0.95


def test_ssn_in_a_bitonal_stencil_picture_is_boxed(db_path: Path, tmp_path: Path) -> None:
    """A fax-like 1-bit picture drawn as a stencil mask has no colours of its own to decode."""
    source = tmp_path / "sources" / "fax.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    stencil_picture_of_text(doc, page, f"SSN {SECRET}", dpi=150)
    doc.save(source)
    doc.close()
    box = _digits_box(7.0)
    assert _dark_share(source, box) < 0.5, "the digits must be visible in the source"
    (item,) = redact(db_path, source, tmp_path / "out", patterns=("ssn",))
    assert [(h.reason, h.ocr) for h in item.hits] == [("pattern ssn", True)]
    assert _dark_share(tmp_path / "out" / "fax.pdf", box) > 0.95


def _locked_pdf() -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), f"SSN {SECRET}", fontsize=11)
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="s3cret", owner_pw="owner")  # type: ignore[attr-defined]
    doc.close()
    return data


def _nested(depth: int) -> bytes:
    data = secret_pdf()
    for _ in range(depth - 1):
        data = secret_pdf("Cover letter.", attach=data)
    return data


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        (
            "locked.pdf",
            _locked_pdf(),
            "a PDF that is damaged, password-protected, or holds a file chambers cannot",
        ),
        ("deep.pdf", _nested(6), "a PDF nested more than 4 deep"),
        (
            "big.txt.gz",
            gzip.compress(b"nothing to see " * 1000),
            "a gzip file that is damaged or inflates past 1,000 bytes",
        ),
    ],
)
def test_attached_file_that_cannot_be_read_through_is_removed_and_named(
    db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, data: bytes, why: str
) -> None:
    """A locked PDF, one nested too deep, a gzip past the cap (a bomb, here a small cap): none is read
    through, so none may stay; without --scrub the file is refused, with it each is emptied and named."""
    monkeypatch.setattr("exhibits.unpack.MAX_INFLATED", 1000)
    source = hostile_pdf(tmp_path / "sources" / "odd.pdf", lambda doc, page: doc.embfile_add(name, data))
    with pytest.raises(RedactionLeak, match="so it cannot be checked"):
        redact(db_path, source, tmp_path / "out", patterns=("ssn",))
    (item,) = redact(db_path, source, tmp_path / "out", patterns=("ssn",), scrub=True)
    notices = [line for line in item.attachments if line.startswith(f"attached file {name}:")]
    assert notices and why in notices[0] and "removed" in notices[0]
    with pymupdf.open(tmp_path / "out" / "odd.pdf") as doc:
        kept = doc.embfile_get(name)
    # a PDF nested too deep is emptied where it sits, the levels above it kept and redacted
    assert kept == b"" if name != "deep.pdf" else kept.startswith(b"%PDF-")
    assert readers_finding(tmp_path / "out" / "odd.pdf", SECRET) == []
