"""The structure a draft's Markdown carries into Word, independent of both.

A document is a list of blocks (paragraphs and tables) and the bodies of its footnotes. A paragraph
names its logical style ("Heading 2", "List Number", "Quote"...), its depth in lists or quotes, and
which numbered list it belongs to, so a second list starts again at 1. Inline content is a list of
spans of one formatting each; a line break is a span of "\\n", a footnote reference a span whose
``note`` names the footnote.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BOLD, ITALIC, SMALL_CAPS, STRIKE, CODE = "b", "i", "smallCaps", "strike", "code"


@dataclass(frozen=True)
class Span:
    text: str
    marks: frozenset[str] = frozenset()
    note: str | None = None  # the footnote's key when this span is a reference to it

    @property
    def is_break(self) -> bool:
        return self.text == "\n" and self.note is None


@dataclass
class Paragraph:
    style: str = "Normal"
    spans: list[Span] = field(default_factory=list)
    level: int = 0  # depth in nested lists (0 is the outermost) or in nested quotes
    numbering: str | None = None  # the numbered list this item belongs to (its numbering restarts)
    start: int = 1  # the number that list starts at

    def text(self) -> str:
        return "".join(f"[^{s.note}]" if s.note is not None else s.text for s in self.spans)


Cell = list[Span]


@dataclass
class Table:
    rows: list[list[Cell]]
    header_rows: int = 1
    align: list[str | None] = field(default_factory=list)  # "left", "center", "right" per column

    def text(self) -> str:
        return "\n".join(" | ".join("".join(s.text for s in cell) for cell in row) for row in self.rows)


Block = Paragraph | Table


@dataclass
class Document:
    blocks: list[Block] = field(default_factory=list)
    notes: dict[str, list[Paragraph]] = field(default_factory=dict)  # footnote key -> its paragraphs
