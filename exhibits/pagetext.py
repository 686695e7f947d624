"""A page's characters with their boxes, read in two orders, for the search that maps hits to boxes.

MuPDF gives the characters in the order the content stream draws them. A
hostile page can draw an SSN's glyphs last first, each on its own, so that
order reads "7 8 0 9 ..."; a viewer (and poppler) shows them in place. So each
page is read twice: as drawn, and by position (lines top to bottom, left to
right, lines on one baseline joined by a space). Boxes are kept as plain
tuples and turned into rectangles only for the characters of a hit: a page
has thousands of characters and hits are few.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pymupdf

from exhibits.matching import FoldedText

Box = tuple[float, float, float, float]
ROW = 3.0  # points: lines whose baselines round to the same multiple of this share a row


@dataclass
class PageText:
    chars: list[str] = field(default_factory=list)
    boxes: list[Box | None] = field(default_factory=list)  # None for the breaks put between lines
    lines: list[int] = field(default_factory=list)

    @cached_property
    def text(self) -> str:
        return "".join(self.chars)

    @cached_property
    def folded(self) -> FoldedText:
        return FoldedText.of(self.chars)

    def add_line(self, line: dict[str, Any], number: int, end: str) -> None:
        glyphs = [(c["c"], c["bbox"]) for span in line.get("spans", []) for c in span.get("chars", [])]
        self.chars += [c for c, _ in glyphs] + [end]
        self.boxes += [b for _, b in glyphs] + [None]
        self.lines += [number] * (len(glyphs) + 1)

    def locate(self, value: str) -> list[pymupdf.Rect]:
        """The boxes covering each occurrence of ``value``: one per line piece, as search_for gives them."""
        rects: list[pymupdf.Rect] = []
        for start, end in self.folded.find(value):
            per_line: dict[int, pymupdf.Rect] = {}
            for index in sorted({self.folded.source[at] for at in range(start, end)}):
                box = self.boxes[index]
                if box is not None:
                    line = self.lines[index]
                    per_line[line] = per_line[line] | box if line in per_line else pymupdf.Rect(box)
            rects.extend(per_line.values())
        return rects


def page_texts(page: pymupdf.Page, textpage: pymupdf.TextPage | None = None) -> list[PageText]:
    """The page's characters as drawn and by position."""
    raw = page.get_text("rawdict", textpage=textpage) if textpage else page.get_text("rawdict")
    lines = [line for block in raw.get("blocks", []) for line in block.get("lines", [])]
    drawn, placed = PageText(), PageText()
    for number, line in enumerate(lines):
        drawn.add_line(line, number, "\n")
    rows = [round(line["bbox"][3] / ROW) for line in lines]
    order = sorted(range(len(lines)), key=lambda n: (rows[n], lines[n]["bbox"][0]))
    for position, number in enumerate(order):
        following = order[position + 1] if position + 1 < len(order) else None
        placed.add_line(
            lines[number], number, " " if following is not None and rows[following] == rows[number] else "\n"
        )
    return [drawn, placed]


def text_by_position(page: pymupdf.Page, textpage: pymupdf.TextPage | None = None) -> str:
    """The page's text by position, without boxes: the quick read that tells whether a page has hits."""
    raw = page.get_text("dict", textpage=textpage) if textpage else page.get_text("dict")
    lines = [line for block in raw.get("blocks", []) for line in block.get("lines", [])]
    rows = [round(line["bbox"][3] / ROW) for line in lines]
    order = sorted(range(len(lines)), key=lambda n: (rows[n], lines[n]["bbox"][0]))
    out: list[str] = []
    for position, number in enumerate(order):
        out += [span.get("text", "") for span in lines[number].get("spans", [])]
        following = order[position + 1] if position + 1 < len(order) else None
        out.append(" " if following is not None and rows[following] == rows[number] else "\n")
    return "".join(out)
