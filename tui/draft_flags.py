"""The flags of the shown draft, two views of one list: ``FlagList`` beside the draft, ``MarkedDraft`` in it.

Both are fed by a reactive ``flags`` that the drafting screen binds to its own, so a verification
sets the list once and both views follow; ``MarkedDraft.current`` is the flag jumped to.
``MarkedDraft`` shows the draft line by line with each flag's span styled by severity and a
gutter letter on its lines; it draws only while it is shown (``show`` draws it with the text).
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from drafting.flags import FlagView
from tui.drafting_view import marked_lines


class FlagList(OptionList):
    """The flags listed by label; Enter on one opens it (the screen handles ``OptionSelected``)."""

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)

    def watch_flags(self, flags: list[FlagView]) -> None:
        self.clear_options()
        self.add_options([Option(Text(f.label()), id=str(i)) for i, f in enumerate(flags)])


class MarkedDraft(Vertical):
    """The draft, one Static a line, with its flags marked and the current one reversed."""

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)
    current: reactive[int | None] = reactive(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""

    def forget_current(self) -> None:
        """No flag is jumped to; drawn with the next flags (not drawn again for this alone)."""
        self.set_reactive(MarkedDraft.current, None)

    def show(self, text: str) -> None:
        """Show ``text`` marked with the flags."""
        self.text = text
        self.display = True
        self._draw()

    def watch_flags(self) -> None:
        if self.display:
            self._draw()

    def watch_current(self) -> None:
        if self.display:
            self._draw()

    def _draw(self) -> None:
        self.remove_children()
        lines = marked_lines(self.text, self.flags, self.current)
        self.mount_all([Static(line, classes="ws-line") for line in lines])
