"""The editor of the attorney's text: Textual's TextArea with the motions a word processor has.

Ctrl+Home and Ctrl+End go to the start and end of the document, Ctrl+Up and Ctrl+Down to the
previous and next paragraph (a paragraph ends at a blank line), each with Shift to select; Ctrl+Left
and Ctrl+Right (words), Home and End (lines) are TextArea's own. Every binding has a description,
so F1 lists them while the editor has the focus.

The editor holds one run's working copy (``hold``) and owns the debounce of what follows an edit:
each edit posts ``DraftEdited``; ``SaveDue`` follows a second after the last keystroke (never later
than ``DEBOUNCE_S`` after the first unsaved one, so a crash loses at most that), and ``VerifyDue``
``VERIFY_QUIET_S`` after it. The draft workspace saves, and the screen has the text verified, in
workers when they arrive.

Undo and redo put the cursor at the start before the edit is taken back: TextArea re-measures the
document before it moves the cursor, so an undo that leaves fewer lines than the cursor's row (a
version put back, a long paste) would otherwise fail inside Textual and close the app.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

DEBOUNCE_S = 2.0  # an edit is saved at most this long after it was made
SAVE_QUIET_S = 1.0  # saved this long after the last keystroke (and never later than DEBOUNCE_S)
VERIFY_QUIET_S = 1.5  # verified again this long after the last keystroke


class DraftEditor(TextArea):
    @dataclass
    class DraftEdited(Message):
        """He changed the text of run ``run_id`` (loading a text is no edit)."""

        run_id: int
        text: str

    @dataclass
    class SaveDue(Message):
        """Unsaved edits of ``run_id`` have waited long enough: save them (``take_unsaved`` gives them)."""

        run_id: int

    @dataclass
    class VerifyDue(Message):
        """He has paused: verify his text of ``run_id`` again."""

        run_id: int

    BINDINGS = [
        Binding(
            "ctrl+home",
            "document_start",
            "Start",
            id="editor.start",
            show=False,
            tooltip="Go to the start of the text",
        ),
        Binding(
            "ctrl+end",
            "document_end",
            "End",
            id="editor.end",
            show=False,
            tooltip="Go to the end of the text",
        ),
        Binding(
            "ctrl+shift+home",
            "document_start(True)",
            "Select to start",
            id="editor.select_start",
            show=False,
            tooltip="Select from the cursor to the start of the text",
        ),
        Binding(
            "ctrl+shift+end",
            "document_end(True)",
            "Select to end",
            id="editor.select_end",
            show=False,
            tooltip="Select from the cursor to the end of the text",
        ),
        Binding(
            "ctrl+up",
            "paragraph(-1)",
            "Paragraph up",
            id="editor.paragraph_up",
            show=False,
            tooltip="Go to the start of this paragraph, or of the one before",
        ),
        Binding(
            "ctrl+down",
            "paragraph(1)",
            "Paragraph down",
            id="editor.paragraph_down",
            show=False,
            tooltip="Go to the start of the next paragraph",
        ),
        Binding(
            "ctrl+shift+up",
            "paragraph(-1, True)",
            "Select paragraph up",
            id="editor.select_up",
            show=False,
            tooltip="Select to the start of this paragraph, or of the one before",
        ),
        Binding(
            "ctrl+shift+down",
            "paragraph(1, True)",
            "Select paragraph down",
            id="editor.select_down",
            show=False,
            tooltip="Select to the start of the next paragraph",
        ),
    ]

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

    def __init__(self, *, id: str | None = None, soft_wrap: bool = True) -> None:
        super().__init__(id=id, soft_wrap=soft_wrap)
        self.run_id: int | None = None  # whose working copy it holds
        self._known = ""  # the text as last loaded or edited: a Changed with it is no edit
        self._dirty_since: float | None = None
        self._save_timer: Timer | None = None
        self._verify_timer: Timer | None = None

    def hold(self, run_id: int, text: str) -> None:
        """Load ``text``, run ``run_id``'s working copy, with a fresh undo history (undo stops at it)."""
        self.run_id, self._known = run_id, text
        self.load_text(text)

    def release(self) -> None:
        """Hold no run's text any more; edits pending a save or a verify are dropped (take them first)."""
        self.stop_timers()
        self.run_id = None

    def stop_timers(self) -> None:
        for timer in (self._save_timer, self._verify_timer):
            if timer is not None:
                timer.stop()

    @property
    def unsaved(self) -> bool:
        return self._dirty_since is not None

    def take_unsaved(self) -> str | None:
        """The text, if it has edits not saved yet; from now on they count as saved."""
        if self._dirty_since is None:
            return None
        self._dirty_since = None
        return self.text

    def forget_unsaved(self) -> None:
        """What is in the editor is being saved by other means (a version put back)."""
        self._dirty_since = None

    @on(TextArea.Changed)
    def _edited(self, event: TextArea.Changed) -> None:
        if event.text_area is not self or self.text == self._known or self.run_id is None:
            return
        self._known = self.text
        run_id = self.run_id
        self.post_message(self.DraftEdited(run_id, self.text))
        now = time.monotonic()
        if self._dirty_since is None:
            self._dirty_since = now
        self.stop_timers()
        # A second after the last keystroke, or now if unsaved edits are already that old: at most 2 s lost.
        # Never a 0 s timer: Textual's timer divides by its interval and fails with ZeroDivisionError.
        wait = max(0.01, min(SAVE_QUIET_S, DEBOUNCE_S - 0.25 - (now - self._dirty_since)))
        self._save_timer = self.set_timer(wait, lambda: self.post_message(self.SaveDue(run_id)))
        self._verify_timer = self.set_timer(VERIFY_QUIET_S, lambda: self.post_message(self.VerifyDue(run_id)))

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
