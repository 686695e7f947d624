"""Tracked blocks as WordprocessingML: paragraphs, runs, tables and footnotes, with their changes.

Tracked changes (ECMA-376 §17.13.5): an inserted run sits in ``w:ins``, a deleted one in ``w:del`` with
its text in ``w:delText``; an added or removed paragraph has its mark marked too (``w:pPr/w:rPr/w:ins|
w:del``), which is how Word records a split or a merge; a paragraph whose form changed keeps its old
form in ``w:pPrChange``; an added or removed table row is marked in ``w:trPr``. A footnote reference is
a run like any other, so it is inserted or deleted with the words around it, and its footnote with it.
LibreOffice reads these as tracked changes; Word was not available to test on.
"""

from __future__ import annotations

import re
from itertools import count

from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement

from drafting.redline_marks import DELETE, INSERT, KEEP
from drafting.word.model import BOLD, CODE, ITALIC, SMALL_CAPS, STRIKE, Span
from drafting.word.parts import Numbering, StyleBook
from drafting.word.tracked import Piece, Shape, TrackedParagraph, TrackedTable

_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # XML 1.0 cannot hold these
_INDENT = 360  # twips (a quarter inch) per level where no style carries the depth
_ALIGN = {"left": "left", "center": "center", "right": "right"}


class Revisions:
    """Who made the changes and when; every change mark needs an id of its own."""

    def __init__(self, author: str, date: str) -> None:
        self.author = author
        self.date = date
        self.ids = count(1)

    def mark(self, tag: str) -> BaseOxmlElement:
        element = OxmlElement(tag)
        element.set(qn("w:id"), str(next(self.ids)))
        element.set(qn("w:author"), self.author)
        element.set(qn("w:date"), self.date)
        return element

    def change(self, kind: str) -> BaseOxmlElement:
        return self.mark("w:ins" if kind == INSERT else "w:del")


def _element(tag: str, **attributes: str) -> BaseOxmlElement:
    element = OxmlElement(tag)
    for name, value in attributes.items():
        element.set(qn(f"w:{name}"), value)
    return element


class Writer:
    """Writes tracked blocks; footnote bodies met on the way are kept for the footnotes part."""

    def __init__(self, styles: StyleBook, numbering: Numbering, revisions: Revisions) -> None:
        self.styles = styles
        self.numbering = numbering
        self.revisions = revisions
        self.notes: list[BaseOxmlElement] = []

    # --- paragraphs ---

    def paragraph(self, paragraph: TrackedParagraph, *, note_mark: str | None = None) -> BaseOxmlElement:
        p = OxmlElement("w:p")
        p_pr = self._properties(paragraph.shape)
        if paragraph.mark != KEEP:
            r_pr = OxmlElement("w:rPr")
            r_pr.append(self.revisions.change(paragraph.mark))
            p_pr.append(r_pr)
        if paragraph.before is not None:
            change = self.revisions.mark("w:pPrChange")
            change.append(self._properties(paragraph.before))
            p_pr.append(change)
        if len(p_pr):
            p.append(p_pr)
        if note_mark is not None:  # the number at the start of a footnote's text, and a space
            self._place(p, note_mark, self._run(OxmlElement("w:footnoteRef"), superscript=True))
            self._place(p, note_mark, self._text_run(" ", frozenset(), deleted=note_mark == DELETE))
        bold = paragraph.shape[0].startswith("Table Header")
        for piece in paragraph.pieces:
            self._place(p, piece.kind, self._piece(piece, bold=bold))
        return p

    def _properties(self, shape: Shape) -> BaseOxmlElement:
        style, level, numbering, start = shape
        p_pr = OxmlElement("w:pPr")
        style_id, carries_depth = self.styles.resolve(style, level)
        if style_id is not None:
            p_pr.append(_element("w:pStyle", val=style_id))
        num_id = self.styles.num_id(style_id) if numbering else None
        instance = self.numbering.instance(numbering, num_id, start) if numbering and num_id else None
        if instance is not None:
            num_pr = OxmlElement("w:numPr")
            num_pr.append(_element("w:ilvl", val="0"))
            num_pr.append(_element("w:numId", val=instance))
            p_pr.append(num_pr)
        if style == "Rule":
            borders = OxmlElement("w:pBdr")
            borders.append(_element("w:bottom", val="single", sz="6", space="1", color="auto"))
            p_pr.append(borders)
        if not carries_depth or (style == "Quote" and level):
            p_pr.append(_element("w:ind", left=str(_INDENT * (level + 1 + (style == "Quote")))))
        align = _ALIGN.get(style.removeprefix("Table Cell ").removeprefix("Table Header "))
        if align is not None:
            p_pr.append(_element("w:jc", val=align))
        return p_pr

    def _place(self, p: BaseOxmlElement, kind: str, run: BaseOxmlElement) -> None:
        if kind == KEEP:
            p.append(run)
        else:
            wrapper = self.revisions.change(kind)
            wrapper.append(run)
            p.append(wrapper)

    def _piece(self, piece: Piece, *, bold: bool = False) -> BaseOxmlElement:
        span = piece.span
        deleted = piece.kind == DELETE
        if span.note is not None:
            reference = _element("w:footnoteReference", id=str(len(self.notes) + 1))
            self.notes.append(self._note(len(self.notes) + 1, piece))
            return self._run(reference, superscript=True)
        if span.is_break:
            return self._run(OxmlElement("w:br"))
        marks = span.marks | {BOLD} if bold else span.marks
        return self._text_run(span.text, marks, deleted=deleted)

    def _note(self, number: int, piece: Piece) -> BaseOxmlElement:
        note = _element("w:footnote", id=str(number))
        body = piece.note or [TrackedParagraph(("Footnote Text", 0, None, 1))]
        for i, paragraph in enumerate(body):
            # Word has no footnote inside a footnote: a reference there is written as its Markdown.
            pieces = [
                Piece(p.kind, Span(f"[^{p.span.note}]", p.span.marks)) if p.span.note is not None else p
                for p in paragraph.pieces
            ]
            own = TrackedParagraph(("Footnote Text", 0, None, 1), pieces, paragraph.mark)
            note.append(self.paragraph(own, note_mark=piece.kind if i == 0 else None))
        return note

    def _run(self, content: BaseOxmlElement, *, superscript: bool = False) -> BaseOxmlElement:
        run = OxmlElement("w:r")
        if superscript:
            r_pr = OxmlElement("w:rPr")
            r_pr.append(_element("w:vertAlign", val="superscript"))
            run.append(r_pr)
        run.append(content)
        return run

    def _text_run(self, text: str, marks: frozenset[str], *, deleted: bool) -> BaseOxmlElement:
        run = OxmlElement("w:r")
        if marks:
            r_pr = OxmlElement("w:rPr")
            if CODE in marks:
                r_pr.append(_element("w:rFonts", ascii="Courier New", hAnsi="Courier New", cs="Courier New"))
            for mark in (BOLD, ITALIC, SMALL_CAPS, STRIKE):
                if mark in marks:
                    r_pr.append(OxmlElement(f"w:{mark}"))
            run.append(r_pr)
        t = OxmlElement("w:delText" if deleted else "w:t")
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        t.text = _NOT_XML.sub("", text)
        run.append(t)
        return run

    # --- tables ---

    def table(self, table: TrackedTable) -> BaseOxmlElement:
        tbl = OxmlElement("w:tbl")
        tbl_pr = OxmlElement("w:tblPr")
        style_id = self.styles.table_style()
        if style_id is not None:
            tbl_pr.append(_element("w:tblStyle", val=style_id))
        tbl_pr.append(_element("w:tblW", w="0", type="auto"))
        tbl.append(tbl_pr)
        grid = OxmlElement("w:tblGrid")
        for _ in range(max((len(r.cells) for r in table.rows), default=1)):
            grid.append(OxmlElement("w:gridCol"))
        tbl.append(grid)
        for row in table.rows:
            tr = OxmlElement("w:tr")
            tr_pr = OxmlElement("w:trPr")
            if row.header:
                tr_pr.append(OxmlElement("w:tblHeader"))
            if row.kind != KEEP:
                tr_pr.append(self.revisions.change(row.kind))
            if len(tr_pr):
                tr.append(tr_pr)
            for column, cell in enumerate(row.cells):
                tc = OxmlElement("w:tc")
                tc_pr = OxmlElement("w:tcPr")
                tc_pr.append(_element("w:tcW", w="0", type="auto"))
                tc.append(tc_pr)
                align = table.align[column] if column < len(table.align) else None
                style = f"Table {'Header' if row.header else 'Cell'} {align or ''}".rstrip()
                tc.append(self.paragraph(TrackedParagraph((style, 0, None, 1), cell)))
                tr.append(tc)
            if not row.cells:  # a row needs a cell, and a cell a paragraph
                tc = OxmlElement("w:tc")
                tc.append(OxmlElement("w:p"))
                tr.append(tc)
            tbl.append(tr)
        return tbl
