"""The marked draft cut into the rows of the screen, at a width: built off the event loop, drawn a row at a time.

A long draft in one ``Static`` is wrapped on the loop twice per layout (once to know its height,
once to draw it), a few hundred milliseconds for a brief. ``DraftRows`` does that wrapping once,
in a worker thread, with the same Textual code the ``Static`` would run, so the rows drawn are the
rows a ``Static`` would draw; the widget then draws only the rows on screen. No widgets here.

The wrapping is ``Content._wrap_and_format``: Textual's own, private, and the only way to get rows
that carry the offsets text selection needs. Textual is pinned to one release, and the snapshot
tests compare the rows drawn with a ``Static``'s, pixel for pixel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.content import Content, Span
from textual.strip import Strip
from textual.style import Style


def to_content(
    text: Text, get_style: Callable[[str], RichStyle], ansi_theme: TerminalTheme | None
) -> Content:
    """``text`` as Textual content, its styles resolved as the app resolves them (``Content.from_rich_text``
    finds the app's console and ANSI theme through the running app, which a worker thread cannot see)."""
    spans = [
        Span(
            start,
            end,
            Style.from_rich_style(get_style(style) if isinstance(style, str) else style, ansi_theme),
        )
        for start, end, style in text.spans
    ]
    return Content(text.plain, spans)


@dataclass(frozen=True)
class DraftRows:
    """``content`` wrapped at ``width``: its rows, and the row each of its lines starts on."""

    content: Content
    width: int
    rows: Sequence[Any]  # Textual's formatted lines: each draws itself with ``to_strip``
    starts: list[int]  # the first row of each line, then the number of rows

    @classmethod
    def wrap(cls, content: Content, width: int) -> DraftRows:
        rows = content._wrap_and_format(max(1, width))
        starts = [
            i for i, row in enumerate(rows) if i == 0 or rows[i - 1].y != row.y
        ]  # a line is 1 row or more
        return cls(content, width, rows, [*starts, len(rows)])

    def restyled(self, content: Content, lines: set[int]) -> DraftRows:
        """The same rows with ``content``'s styles, re-wrapped only on ``lines`` (its text is this one's)."""
        rows = list(self.rows)
        for line in lines:
            if 0 <= line < len(self.starts) - 1:
                first, end = self.starts[line], self.starts[line + 1]
                wrapped = content.split(allow_blank=True)[line]._wrap_and_format(max(1, self.width))
                for row in wrapped:
                    row.y = line  # the line's own rows number it 0; selection needs its place in the draft
                rows[first:end] = wrapped
        return DraftRows(content, self.width, rows, self.starts)

    def line_rows(self, line: int) -> tuple[int, int]:
        """The first row of ``line`` and how many rows it takes."""
        if len(self.starts) < 2:
            return 0, 0
        line = max(0, min(line, len(self.starts) - 2))
        return self.starts[line], self.starts[line + 1] - self.starts[line]

    def row_at(self, line: int, column: int) -> int:
        """The row showing character ``column`` of ``line`` (counted in the line as drawn, gutter included)."""
        first, count = self.line_rows(line)
        return max([first, *(i for i in range(first, first + count) if self.rows[i].x <= column)])

    def strip(self, y: int, style: Style) -> Strip | None:
        """Row ``y`` drawn on ``style`` (the widget's), or None past the last row."""
        if not 0 <= y < len(self.rows):
            return None
        return Strip(*self.rows[y].to_strip(style))
