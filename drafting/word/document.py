"""The two Word documents of an export, built on the default template or on the attorney's own.

A pleading template is a ``.docx`` whose styles (fonts, spacing, heading and list styles) and page
set-up (margins, line numbers, headers and footers) the exports take; its body text is left out.
"""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

import docx
from docx.document import Document as WordDocument
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from lxml import etree

from drafting.word.diff import compare, settle_last_mark
from drafting.word.markdown import parse_markdown
from drafting.word.ooxml import Revisions, Writer
from drafting.word.parts import Numbering, StyleBook, add_footnotes_part
from drafting.word.tracked import TrackedBlock, TrackedParagraph, unchanged
from workspace.errors import ChambersError


class TemplateError(ChambersError):
    title = "The Word template cannot be used"


def clean_docx(markdown: str, *, title: str, author: str = "chambers", template: Path | None = None) -> bytes:
    """The text as a Word document, without any tracked change."""
    blocks = unchanged(parse_markdown(markdown))
    return _write(blocks, title=title, author=author, changes_by=author, template=template)


def redline_docx(
    draft: str,
    final: str,
    *,
    title: str,
    author: str = "chambers",
    changes_by: str = "chambers",
    when: datetime | None = None,
    template: Path | None = None,
) -> bytes:
    """The model's draft with the attorney's edits as tracked changes, attributed to ``changes_by``.

    Accepting every change gives ``clean_docx(final)``, rejecting every change ``clean_docx(draft)``.
    """
    blocks = compare(parse_markdown(draft), parse_markdown(final))
    return _write(blocks, title=title, author=author, changes_by=changes_by, when=when, template=template)


def open_template(template: Path | None) -> WordDocument:
    """The default document, or the attorney's template with its body emptied (its page set-up kept)."""
    if template is None:
        return docx.Document()
    if not template.is_file():
        raise TemplateError(
            f"There is no Word template at {template}. Put your pleading template there, or remove "
            "`template` from the config's [export] table to export with the default styles."
        )
    try:
        document = docx.Document(str(template))
    except (
        OSError,
        ValueError,
        KeyError,
        zipfile.BadZipFile,
        PackageNotFoundError,
        etree.XMLSyntaxError,
    ) as exc:
        raise TemplateError(
            f"{template} is not a Word document chambers can read ({exc}). Save it from Word as a .docx "
            "(File > Save As > Word Document; a .dotx template must be saved as .docx), then export again."
        ) from None
    body = document.element.body
    for child in list(body):
        if child.tag != qn("w:sectPr"):
            body.remove(child)
    return document


def _write(
    blocks: list[TrackedBlock],
    *,
    title: str,
    author: str,
    changes_by: str,
    template: Path | None,
    when: datetime | None = None,
) -> bytes:
    document = open_template(template)
    properties = document.core_properties
    properties.title = title[:255]  # the most a core property may hold
    properties.author = author[:255]
    properties.last_modified_by = author[:255]
    properties.comments = "Written by chambers"
    stamp = (when or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    writer = Writer(StyleBook(document), Numbering(document), Revisions(changes_by, stamp))
    settle_last_mark(blocks)
    if not blocks:
        blocks = [TrackedParagraph(("Normal", 0, None, 1))]  # Word keeps one paragraph in an empty body
    body = document.element.body
    sect_pr = body.sectPr  # the blocks go before the section properties, which must stay last
    for block in blocks:
        element = writer.paragraph(block) if isinstance(block, TrackedParagraph) else writer.table(block)
        if sect_pr is not None:
            sect_pr.addprevious(element)
        else:
            body.append(element)
    if writer.notes:
        add_footnotes_part(document, writer.notes)
    out = BytesIO()
    document.save(out)
    return out.getvalue()
