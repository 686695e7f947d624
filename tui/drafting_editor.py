"""The editor of the attorney's text: Textual's TextArea with the motions a word processor has.

Ctrl+Home and Ctrl+End go to the start and end of the document, Ctrl+Up and Ctrl+Down to the
previous and next paragraph (a paragraph ends at a blank line), each with Shift to select; Ctrl+Left
and Ctrl+Right (words), Home and End (lines) are TextArea's own. Every binding has a description,
so F1 lists them while the editor has the focus.

Undo and redo put the cursor at the start before the edit is taken back: TextArea re-measures the
document before it moves the cursor, so an undo that leaves fewer lines than the cursor's row (a
version put back, a long paste) would otherwise fail inside Textual and close the app.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TextArea
from textual.widgets.text_area import Selection


class DraftEditor(TextArea):
    BINDINGS = [
        Binding("ctrl+home", "document_start", "Start", id="editor.start", show=False,
                tooltip="Go to the start of the text"),
        Binding("ctrl+end", "document_end", "End", id="editor.end", show=False,
                tooltip="Go to the end of the text"),
        Binding("ctrl+shift+home", "document_start(True)", "Select to start", id="editor.select_start",
                show=False, tooltip="Select from the cursor to the start of the text"),
        Binding("ctrl+shift+end", "document_end(True)", "Select to end", id="editor.select_end", show=False,
                tooltip="Select from the cursor to the end of the text"),
        Binding("ctrl+up", "paragraph(-1)", "Paragraph up", id="editor.paragraph_up", show=False,
                tooltip="Go to the start of this paragraph, or of the one before"),
        Binding("ctrl+down", "paragraph(1)", "Paragraph down", id="editor.paragraph_down", show=False,
                tooltip="Go to the start of the next paragraph"),
        Binding("ctrl+shift+up", "paragraph(-1, True)", "Select paragraph up", id="editor.select_up",
                show=False, tooltip="Select to the start of this paragraph, or of the one before"),
        Binding("ctrl+shift+down", "paragraph(1, True)", "Select paragraph down", id="editor.select_down",
                show=False, tooltip="Select to the start of the next paragraph"),
    ]  # fmt: skip

    # TextArea's own keys, as F1 lists them while the editor has the focus (its bindings have no ids).
    OWN_KEYS = [
        ("ctrl+left/right", "One word left or right (with Shift: select)"),
        ("home/end", "Start or end of the line (with Shift: select)"),
        ("pageup/pagedown", "One screen up or down"),
        ("ctrl+w", "Delete the word before the cursor"),
        ("ctrl+z / ctrl+y", "Undo / redo"),
        ("ctrl+c / ctrl+v", "Copy / paste"),
        ("ctrl+k", "Delete to the end of the line"),
    ]

    def action_document_start(self, select: bool = False) -> None:
        self.move_cursor((0, 0), select=select)

    def action_document_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)

    def action_paragraph(self, step: int, select: bool = False) -> None:
        self.move_cursor(paragraph_start(self.document.lines, self.cursor_location[0], step), select=select)

    def undo(self) -> None:
        self.selection = Selection.cursor((0, 0))
        super().undo()

    def redo(self) -> None:
        self.selection = Selection.cursor((0, 0))
        super().redo()


def paragraph_start(lines: list[str], row: int, step: int) -> tuple[int, int]:
    """Where Ctrl+Up (``step`` -1) or Ctrl+Down (+1) goes from ``row``: the first line of a paragraph."""

    def starts(i: int) -> bool:
        return bool(lines[i].strip()) and (i == 0 or not lines[i - 1].strip())

    i = row + step
    while 0 <= i < len(lines):
        if starts(i):
            return (i, 0)
        i += step
    return (0, 0) if step < 0 else (len(lines) - 1, len(lines[-1]))
