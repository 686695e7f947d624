"""A document whose every piece says whether it is kept, inserted or deleted: what the writer writes.

The clean export is such a document with nothing changed (``unchanged``); the redline is the
comparison of two documents (``drafting.word.diff``). A paragraph's ``mark`` is the change to its
paragraph mark: an inserted or deleted paragraph has its mark inserted or deleted too, which is how
Word records a paragraph added or removed. ``before`` is the paragraph's form on the rejected side when
it differs (a paragraph that became a heading), written as Word's paragraph-property change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drafting.redline_marks import KEEP
from drafting.word.model import Document, Paragraph, Span, Table

Shape = tuple[str, int, str | None, int]  # style, level, numbering, start


def shape_of(paragraph: Paragraph, side: str = "") -> Shape:
    numbering = f"{side}{paragraph.numbering}" if paragraph.numbering else None
    return (paragraph.style, paragraph.level, numbering, paragraph.start)


@dataclass
class Piece:
    kind: str
    span: Span
    note: list[TrackedParagraph] | None = None  # the footnote's body, when the span refers to one


@dataclass
class TrackedParagraph:
    shape: Shape
    pieces: list[Piece] = field(default_factory=list)
    mark: str = KEEP
    before: Shape | None = None

    def wholly(self) -> str | None:
        """INSERT or DELETE when every piece (and the mark) is that change; None otherwise."""
        kinds = {p.kind for p in self.pieces} | {self.mark}
        return kinds.pop() if len(kinds) == 1 and KEEP not in kinds else None


@dataclass
class TrackedRow:
    kind: str
    cells: list[list[Piece]]
    header: bool = False


@dataclass
class TrackedTable:
    rows: list[TrackedRow]
    align: list[str | None] = field(default_factory=list)

    def wholly(self) -> str | None:
        kinds = {row.kind for row in self.rows}
        return kinds.pop() if len(kinds) == 1 and KEEP not in kinds else None


TrackedBlock = TrackedParagraph | TrackedTable


def whole_paragraph(
    paragraph: Paragraph, kind: str, notes: dict[str, list[Paragraph]], side: str = ""
) -> TrackedParagraph:
    """``paragraph`` kept, or wholly inserted or deleted (its footnotes with it)."""
    pieces = [Piece(kind, s, whole_note(s, kind, notes, side)) for s in paragraph.spans]
    return TrackedParagraph(shape_of(paragraph, side), pieces, mark=kind)


def whole_note(
    span: Span, kind: str, notes: dict[str, list[Paragraph]], side: str
) -> list[TrackedParagraph] | None:
    if span.note is None:
        return None
    return [whole_paragraph(p, kind, notes, side) for p in notes.get(span.note, [])]


def whole_table(table: Table, kind: str, notes: dict[str, list[Paragraph]], side: str = "") -> TrackedTable:
    rows = [
        TrackedRow(
            kind,
            [[Piece(kind, s, whole_note(s, kind, notes, side)) for s in cell] for cell in row],
            i < table.header_rows,
        )
        for i, row in enumerate(table.rows)
    ]
    return TrackedTable(rows, list(table.align))


def unchanged(document: Document) -> list[TrackedBlock]:
    """The clean export: every block kept."""
    return [
        whole_paragraph(b, KEEP, document.notes)
        if isinstance(b, Paragraph)
        else whole_table(b, KEEP, document.notes)
        for b in document.blocks
    ]
