"""Hostile PDFs written byte by byte, in the shapes the public PDF test suites hold.

Each reproduces a failure found by running pdf.js's ``test/pdfs``, PyMuPDF's
``tests/resources`` and qpdf's ``qpdf/qtest/qpdf`` files through chambers
(``tests/pdfs_wild/README.md``): a page tree that contains itself (pdf.js
``Pages-tree-refs.pdf``, qpdf ``deep-pages.pdf``), a page count MuPDF refuses
(pdf.js ``poppler-67295-0.pdf``), a file cut short that MuPDF repairs with
some pages' content lost (qpdf's and PyMuPDF's repaired files), and a broken
encryption dictionary met only when saving (pdf.js ``PDFBOX-4352-0.pdf``).
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

_PAGE = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>"
_FONT = b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>"


def _content(text: str) -> bytes:
    stream = f"BT /F1 12 Tf 72 700 Td ({text}) Tj ET".encode()
    return b"<</Length %d>>\nstream\n" % len(stream) + stream + b"\nendstream"


def build_pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of these object bodies (object 1 is the catalog) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<</Size {len(objects) + 1}/Root 1 0 R".encode() + trailer
    out += f">>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def page_tree_cycle(path: Path) -> Path:
    """Page 1 reads; the page tree then lists itself as its own second kid."""
    kids = b"<</Type/Pages/Kids[3 0 R 2 0 R]/Count 2>>"
    catalog = b"<</Type/Catalog/Pages 2 0 R>>"
    return _write(path, build_pdf([catalog, kids, _PAGE, _content("Page one of a cyclic tree"), _FONT]))


def invalid_page_count(path: Path) -> Path:
    kids = b"<</Type/Pages/Kids[3 0 R]/Count -3>>"
    catalog = b"<</Type/Catalog/Pages 2 0 R>>"
    return _write(path, build_pdf([catalog, kids, _PAGE, _content("A page under a negative count"), _FONT]))


def truncated(path: Path, pages: int = 6) -> Path:
    """A text PDF cut in half: MuPDF repairs it, and the pages in the lost half come out empty."""
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        doc.new_page().insert_text((72, 72), f"Truncated document page {number} with words", fontsize=12)
    data = doc.tobytes(garbage=0, deflate=False)
    doc.close()
    return _write(path, data[: len(data) // 2])


def broken_encryption(path: Path) -> Path:
    """Opens and reads, but its /Encrypt dictionary is a syntax error that MuPDF meets only when saving
    (pdf.js ``PDFBOX-4352-0.pdf``): a production must leave it out and go on."""
    catalog, kids = b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>"
    encrypt = b"E< /Filter /Standard /V 5 /R 6 /Length 256 >>"
    objects = [catalog, kids, _PAGE, _content("A page whose file cannot be saved"), _FONT, encrypt]
    return _write(path, build_pdf(objects, trailer=b"/Encrypt 6 0 R"))


def zero_pages(path: Path) -> Path:
    catalog = b"<</Type/Catalog/Pages 2 0 R>>"
    return _write(path, build_pdf([catalog, b"<</Type/Pages/Kids[]/Count 0>>"]))


def password_protected(path: Path) -> Path:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Settlement figures", fontsize=12)
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="s3cret", owner_pw="owner")
    doc.close()
    return _write(path, data)


def every_shape(folder: Path) -> list[Path]:
    """One file of each hostile shape, plus an empty file and a text file named .pdf."""
    return [
        page_tree_cycle(folder / "cycle.pdf"),
        invalid_page_count(folder / "badcount.pdf"),
        truncated(folder / "truncated.pdf"),
        broken_encryption(folder / "broken-encryption.pdf"),
        zero_pages(folder / "zero-pages.pdf"),
        password_protected(folder / "locked.pdf"),
        _write(folder / "empty.pdf", b""),
        _write(folder / "letter.pdf", b"Dear Sir, this letter was saved with the wrong name.\n"),
    ]


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# Hiding places a redaction must reach: each builder adds one to an ordinary page, holding ``SECRET``
# (an SSN), ``BARE`` (the same without dashes) or ``CODENAME`` (a term). Built with PyMuPDF.
SECRET, BARE, CODENAME = "531-44-9087", "531449087", "Project Nightjar"


def secret_pdf(text: str = f"Intake form. SSN {SECRET} on file.", attach: bytes = b"") -> bytes:
    """A small PDF of its own holding ``text`` (compressed, so its bytes do not show it), and a file."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text, fontsize=11)
    if attach:
        doc.embfile_add("inner.pdf", attach)
    data = doc.tobytes(garbage=3, deflate=True)
    doc.close()
    return data


def jpeg(segment: bytes = b"") -> bytes:
    """A small red JPEG, with ``segment`` (a whole marker segment) put right after its start marker."""
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 48), False)
    pix.set_rect(pix.irect, (200, 30, 30))
    data = pix.tobytes("jpg")
    return data[:2] + segment + data[2:]


def marker(code: int, payload: bytes) -> bytes:
    return bytes([0xFF, code]) + (len(payload) + 2).to_bytes(2, "big") + payload


def exif(description: str) -> bytes:
    """An EXIF APP1 segment whose ImageDescription (tag 0x010E, ASCII) is ``description``."""
    text = description.encode() + b"\0"
    ifd = (
        (1).to_bytes(2, "big") + b"\x01\x0e\x00\x02" + len(text).to_bytes(4, "big") + (26).to_bytes(4, "big")
    )
    return marker(0xE1, b"Exif\0\0" + b"MM\0*\0\0\0\x08" + ifd + b"\0\0\0\0" + text)


def xmp_segment(text: str) -> bytes:
    packet = f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><d>{text}</d></rdf:RDF></x:xmpmeta>'
    return marker(0xE1, b"http://ns.adobe.com/xap/1.0/\0" + packet.encode())


def append_content(doc: pymupdf.Document, page: pymupdf.Page, source: bytes) -> None:
    xref = page.get_contents()[0]
    doc.update_stream(xref, (doc.xref_stream(xref) or b"") + b"\n" + source + b"\n")


def info_entry(doc: pymupdf.Document, key: str, value: str) -> None:
    """A key of the producer's own in the document information, ``value`` written as PDF source."""
    doc.set_metadata({"title": "Intake"})
    info = int(doc.xref_get_key(-1, "Info")[1].split()[0])
    doc.xref_set_key(info, key, value)


def utf16_hex(text: str) -> str:
    return "<FEFF" + text.encode("utf-16-be").hex().upper() + ">"


def picture_of_text(page: pymupdf.Page, text: str, dpi: int, fontsize: float) -> pymupdf.Rect:
    """``text`` rendered at ``dpi`` and placed as a picture at its natural size, under the page's text."""
    paper = pymupdf.open()
    paper.new_page(width=300, height=60).insert_text((10, 35), text, fontsize=fontsize)
    pix = paper[0].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    where = pymupdf.Rect(72, 320, 372, 380)
    page.insert_image(where, pixmap=pix)
    body = "Employee record. The badge photo follows below; please keep it on file for HR. " * 3
    page.insert_textbox(pymupdf.Rect(72, 100, 540, 300), body, fontsize=11)
    return where


def stencil_picture_of_text(doc: pymupdf.Document, page: pymupdf.Page, text: str, dpi: int) -> pymupdf.Rect:
    """``text`` as a 1-bit stencil mask (how bitonal scans and faxes are drawn: no colours, only ink)."""
    paper = pymupdf.open()
    paper.new_page(width=300, height=60).insert_text((10, 35), text, fontsize=7)
    pix = paper[0].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    rows = []
    for y in range(pix.height):
        bits = "".join("0" if pix.pixel(x, y)[0] < 128 else "1" for x in range(pix.width))
        bits += "1" * (-len(bits) % 8)  # 0 paints with the fill colour: the ink
        rows.append(int(bits, 2).to_bytes(len(bits) // 8, "big"))
    xref = doc.get_new_xref()
    doc.update_object(
        xref,
        f"<</Type/XObject/Subtype/Image/Width {pix.width}/Height {pix.height}"
        "/ImageMask true/BitsPerComponent 1>>",
    )
    doc.update_stream(xref, b"".join(rows))
    page.insert_text(
        (72, 100), "Fax received; the claimant's card is copied below for the file.", fontsize=11
    )
    body = "Employee record. The badge photo follows below; please keep it on file for HR. " * 3
    page.insert_textbox(pymupdf.Rect(72, 110, 540, 300), body, fontsize=11)
    resources = doc.xref_get_key(page.xref, "Resources")
    target, path = (
        (int(resources[1].split()[0]), "XObject/Fax")
        if resources[0] == "xref"
        else (page.xref, "Resources/XObject/Fax")
    )
    doc.xref_set_key(target, path, f"{xref} 0 R")
    bottom = page.rect.height - 380  # content streams count from the page's foot
    append_content(doc, page, f"q 0 g 300 0 0 60 72 {bottom:g} cm /Fax Do Q".encode())
    return pymupdf.Rect(72, 320, 372, 380)
