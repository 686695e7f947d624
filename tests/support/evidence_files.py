"""Real source files for the evidence tests, built in each test's tmp_path (PyMuPDF, stdlib)."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pymupdf


def make_pdf(
    path: Path,
    pages: Sequence[str],
    *,
    bates: Sequence[str] | None = None,
    metadata: dict[str, str] | None = None,
) -> Path:
    """A text PDF, one string per page, with an optional Bates stamp at the foot of each page."""
    doc = pymupdf.open()
    for index, text in enumerate(pages):
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 700), text, fontsize=11)
        if bates:
            page.insert_text((page.rect.width - 130, page.rect.height - 24), bates[index], fontsize=10)
    if metadata:
        doc.set_metadata(metadata)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def make_scanned_pdf(path: Path, text: str) -> Path:
    """An image-only PDF page: a page of text rendered to pixels, so only OCR can read it."""
    src = pymupdf.open()
    page = src.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 400), text, fontsize=16)
    pixmap = page.get_pixmap(dpi=150)
    out = pymupdf.open()
    scan = out.new_page()
    scan.insert_image(scan.rect, pixmap=pixmap)
    path.parent.mkdir(parents=True, exist_ok=True)
    out.save(path)
    return path


def make_docx(path: Path, pages: Sequence[Sequence[str]], *, title: str = "") -> Path:
    """A minimal real .docx (WordprocessingML in a zip), paragraphs per page, hard page breaks between."""
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = []
    for index, paragraphs in enumerate(pages):
        if index:
            body.append('<w:p><w:r><w:br w:type="page"/></w:r></w:p>')
        body.extend(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
    document = (
        f'<?xml version="1.0" encoding="UTF-8"?><w:document {w}><w:body>{"".join(body)}</w:body></w:document>'
    )
    core = (
        '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties '
        'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/">'
        f"<dc:title>{title}</dc:title><dcterms:created>2024-02-01T09:00:00Z</dcterms:created></cp:coreProperties>"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", document)
        archive.writestr("docProps/core.xml", core)
    return path


def tree_hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }
