"""The flags of the shown draft, two views of one list: ``FlagList`` beside the draft, ``MarkedDraft`` in it.

Both are fed by a reactive ``flags`` that the drafting screen binds to its own, so a verification
sets the list once and both views follow; ``MarkedDraft.current`` is the flag jumped to.
``MarkedDraft`` shows the draft with each flag's span styled by severity and a gutter letter on
its lines; it draws only while it is shown (``show`` draws it with the text).
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from drafting.flags import FlagView
from tui.drafting_view import marked_text


class FlagList(OptionList):
    """The flags listed by label; Enter on one opens it (the screen handles ``OptionSelected``)."""

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)

    def watch_flags(self, flags: list[FlagView]) -> None:
        self.clear_options()
        self.add_options([Option(Text(f.label()), id=str(i)) for i, f in enumerate(flags)])


class MarkedDraft(Static):
    """The draft in one Static, its flags marked and the current one reversed.

    One widget for the whole draft, not one a line: mounting and laying out a widget per line cost
    more than the text itself (hundreds of ms on a long draft). ``show`` takes the marked text
    when it was built off the loop; a jump (``current``) restyles the text, the lines stay put.
    """

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)
    current: reactive[int | None] = reactive(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.text = ""
        self.lines: list[str] = []  # the lines as drawn (gutter and text), without their styles
        self._first_rows: tuple[int, list[int]] | None = None  # (width, the row each line starts on)

    def forget_current(self) -> None:
        """No flag is jumped to; drawn with the next flags (not drawn again for this alone)."""
        self.set_reactive(MarkedDraft.current, None)

    def show(self, text: str, marked: Text | None = None) -> None:
        """Show ``text`` marked with the flags; ``marked`` is that, already built (by ``marked_text``)."""
        self.text = text
        self.display = True
        self._draw(marked)

    def watch_flags(self) -> None:
        if self.display:
            self._draw()

    def watch_current(self) -> None:
        if self.display:
            self._draw()

    def _draw(self, marked: Text | None = None) -> None:
        drawn = marked if marked is not None else marked_text(self.text, self.flags, self.current)
        lines = drawn.plain.split("\n")
        if lines != self.lines:
            self.lines, self._first_rows = lines, None
        self.update(drawn)

    def rows_of_line(self, line: int) -> tuple[int, int]:
        """The first row of ``line`` and how many rows it wraps to, at the width it is drawn at."""
        width = max(1, self.content_size.width)
        if self._first_rows is None or self._first_rows[0] != width:
            starts, row = [], 0
            for plain in self.lines:
                starts.append(row)
                row += len(Content(plain).wrap(width))
            self._first_rows = (width, [*starts, row])
        starts = self._first_rows[1]
        if len(starts) < 2:
            return 0, 0
        line = max(0, min(line, len(starts) - 2))
        return starts[line], starts[line + 1] - starts[line]
