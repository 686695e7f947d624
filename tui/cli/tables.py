"""How the command line draws a table: rich sizes the columns to what is in them and, on a terminal,
wraps a cell that does not fit its width. Piped, a table is as wide as its contents, one line a row,
so that grep and cut read it whole, in plain text without colour or markup. Core rooms return data;
the commands turn it into tables here."""

from __future__ import annotations

from io import StringIO
from typing import IO

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table

PIPED_WIDTH = 10_000  # no terminal, no width to fit: a row stays on its line

# a heading rule of plain dashes and nothing else: the same bytes whatever the terminal's encoding
HEADING_RULE = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)


def console(file: IO[str] | None = None, *, width: int | None = None) -> Console:
    """A console for the commands' output: no markup (a "[variant]" in a command line is text), no
    highlighting of numbers, and colour only on a terminal (rich's own check, and NO_COLOR)."""
    out = Console(file=file, width=width, markup=False, highlight=False, emoji=False)
    if width is None and not out.is_terminal:
        out.width = PIPED_WIDTH
    return out


def table(
    *columns: str, right: tuple[str, ...] = (), whole: tuple[str, ...] = (), title: str | None = None
) -> Table:
    """A table with these headings, numbers in the ``right`` columns aligned on the right, the
    ``whole`` columns never folded (the others give way); a heading rule and no frame, so it reads
    like the plain text around it."""
    out = Table(
        box=HEADING_RULE,
        show_edge=False,
        pad_edge=False,
        title=title,
        title_justify="left",
        header_style="bold",
        title_style="bold",
    )
    for name in columns:
        out.add_column(
            name, justify="right" if name in right else "left", overflow="fold", no_wrap=name in whole
        )
    return out


def show(*items: RenderableType, file: IO[str] | None = None) -> None:
    """Print tables (and plain lines) to standard output, or to ``file``."""
    out = console(file)
    for item in items:
        out.print(item)


def render(*items: RenderableType, width: int = 80) -> str:
    """What ``show`` prints on a terminal ``width`` columns wide, as plain text: for the tests."""
    buffer = StringIO()
    out = console(buffer, width=width)
    for item in items:
        out.print(item)
    return buffer.getvalue()
