"""The flags of the shown draft, two views of one list: ``FlagList`` beside the draft, ``MarkedDraft`` in it.

Both are fed the reactive ``flags`` of the flag pane (``tui/drafting/flag_pane.py``), so a verification
sets the list once and both views follow; ``MarkedDraft.current`` is the flag jumped to.
``MarkedDraft`` shows the draft with each flag's span styled by severity and a gutter letter on
its lines; it draws only while it is shown (``show`` draws it with the text).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from drafting.flags import FlagView, verdict_counts
from tui.drafting.rows import DraftRows, to_content
from tui.drafting.view import GUTTER_CELLS, marked_text

# What turns a marked draft into rows in a worker thread (``MarkedDraft.wrapper`` makes one).
Wrap = Callable[[Text], DraftRows | None]


class FlagList(OptionList):
    """The flags listed by label; Enter on one opens it (the flag pane handles ``OptionSelected``)."""

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)

    def watch_flags(self, flags: list[FlagView]) -> None:
        if flags:  # the three verdicts counted apart, so an unverifiable item is never read as verified
            self.border_title = f"Flags: {verdict_counts(flags)}"
        self.clear_options()
        self.add_options([Option(Text(f.label()), id=str(i)) for i, f in enumerate(flags)])


class MarkedDraft(Widget):
    """The draft with its flags marked and the current one reversed, drawn a row at a time.

    The rows (``DraftRows``) are the draft wrapped at the widget's width, once, and only the rows on
    screen are drawn: a long draft costs the loop what a screenful does. ``show`` takes the rows when
    they were built off the loop at the right width; otherwise, and when the width changes, they are
    wrapped here. A jump (``current``) re-wraps only the lines of the two flags it restyles.
    """

    DEFAULT_CSS = "MarkedDraft { height: auto; }"

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)
    current: reactive[int | None] = reactive(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        self._content = Content("")
        self._rows: DraftRows | None = None

    def forget_current(self) -> None:
        """No flag is jumped to; drawn with the next flags (not drawn again for this alone)."""
        self.set_reactive(MarkedDraft.current, None)

    def show(self, text: str, marked: Text | None = None, rows: DraftRows | None = None) -> None:
        """Show ``text`` marked with the flags; ``marked`` is that, already built (by ``marked_text``),
        and ``rows`` that wrapped, at the width it was then expected to have."""
        self.text = text
        self.display = True
        self._draw(marked, rows)

    def wrapper(self) -> Wrap:
        """What wraps a marked draft for this widget in a worker thread: the app's styles and the
        pane's size are read here, on the loop. The rows are as wide as the pane, less its scroll bar
        when they overflow it; None while the pane has no size yet (they are then wrapped here)."""
        get_style, ansi_theme = self.look()
        pane = self.parent if isinstance(self.parent, Widget) else self
        bar = pane.styles.scrollbar_size_vertical  # shown (overflow auto) when the rows are more than fit
        width, height = pane.content_region.size  # inside the border, the bar's columns included

        def wrap(marked: Text) -> DraftRows | None:
            if width <= bar + 1:
                return None
            content = to_content(marked, get_style, ansi_theme)
            if marked.plain.count("\n") >= height:  # more lines than fit, wrapped or not: the bar will show
                return DraftRows.wrap(content, width - bar)
            rows = DraftRows.wrap(content, width)
            return DraftRows.wrap(content, width - bar) if len(rows.rows) > height else rows

        return wrap

    def look(self) -> tuple[Callable[[str], RichStyle], TerminalTheme]:
        """The app's style lookup and ANSI theme, which ``to_content`` needs off the loop."""
        return self.app.console.get_style, self.app.ansi_theme

    def watch_flags(self) -> None:
        if self.display:
            self._draw()

    def watch_current(self, old: int | None, new: int | None) -> None:
        if not self.display:
            return
        if self._rows is None or not all(0 <= i < len(self.flags) for i in (old, new) if i is not None):
            self._draw()
            return
        lines: set[int] = set()
        for index in (old, new):
            if index is not None:  # every line the flag's span touches changes style
                flag = self.flags[index]
                first = self.text.count("\n", 0, flag.start)
                lines.update(
                    range(first, first + self.text.count("\n", flag.start, max(flag.start, flag.end - 1)) + 1)
                )
        self._content = to_content(marked_text(self.text, self.flags, new), *self.look())
        self._rows = self._rows.restyled(self._content, lines)
        self.refresh()

    def _draw(self, marked: Text | None = None, rows: DraftRows | None = None) -> None:
        drawn = marked if marked is not None else marked_text(self.text, self.flags, self.current)
        self._content = rows.content if rows is not None else to_content(drawn, *self.look())
        self._rows = rows
        self.refresh(layout=True)

    def _rows_at(self, width: int) -> DraftRows:
        if self._rows is None or self._rows.width != width:
            self._rows = DraftRows.wrap(self._content, width)
        return self._rows

    def render(self) -> Content:
        """The whole marked draft (what text selection reads, and what a selection is drawn from)."""
        return self._content

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._rows_at(width).rows)

    def render_line(self, y: int) -> Strip:
        if self.text_selection is not None:
            return super().render_line(y)  # drawn whole, as a Static would be, with the selection shown
        strip = self._rows_at(self.size.width).strip(y, self.visual_style)
        return strip if strip is not None else Strip.blank(self.size.width, self.visual_style.rich_style)

    def rows_of_span(self, start: int, end: int) -> tuple[int, int]:
        """The first row showing ``text[start:end]`` and how many rows it runs over."""
        rows = self._rows_at(max(1, self.content_size.width))
        ends = []
        for offset in (start, max(start, end - 1)):
            line = self.text.count("\n", 0, offset)
            ends.append(rows.row_at(line, GUTTER_CELLS + offset - (self.text.rfind("\n", 0, offset) + 1)))
        return ends[0], ends[1] - ends[0] + 1

    def rows_of_line(self, line: int) -> tuple[int, int]:
        """The first row of ``line`` and how many rows it wraps to, at the width it is drawn at."""
        return self._rows_at(max(1, self.content_size.width)).line_rows(line)
