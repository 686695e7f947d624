"""The draft workspace: the draft pane and the attorney's editor, and his text, which it owns.

The pane shows one of four views of the run on show: the draft as it streams (``DraftStream``), the
draft marked with its flags (``MarkedDraft``, fed the flag pane's flags by the screen), his redline
(F7), or his working copy in the editor (Ctrl+T). The editor holds one run's text; it is autosaved
as he pauses (``SaveDue``, saved here in a thread worker through the drafting session, then
``Saved``), and its earlier versions are listed and put back from here (Ctrl+R). The verification
he waits for is the screen's to start (the editor's ``VerifyDue`` goes on up to it).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.message import Message
from textual.widgets import Static

from drafting.drafts.store import SavedDraft, Version
from drafting.flags import FlagView
from drafting.session import DraftingSession
from tui.drafting.editor import DraftEditor
from tui.drafting.flags import MarkedDraft
from tui.drafting.parts import DraftingPart
from tui.drafting.stream import DraftStream
from tui.drafting.versions import Choice, VersionsScreen, choices
from tui.drafting.view import first_change, flag_line


class DraftWorkspace(DraftingPart):
    """The draft pane and the editor, side by side in one place (one of them shows at a time)."""

    DEFAULT_CSS = "DraftWorkspace { layout: horizontal; width: 2fr; height: 1fr; }"

    @dataclass
    class Saved(Message):
        """His text of run ``run_id`` is saved (the autosave, or a version put back)."""

        run_id: int

    @dataclass
    class Editing(Message):
        """The editor is shown (``shown``) or put away: the screen gives it the rows it can spare."""

        shown: bool

    def __init__(self, session: DraftingSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.run_id: int | None = None  # the run whose text the workspace holds
        self.text = ""  # his text: the draft as it streams, then as he edits it
        self.model_draft = ""  # what the model wrote, which his text is compared with
        self.stored = False  # a stored run is shown: the frames of a stream that wound up add nothing
        self._restored = False  # the editor was opened by reopening the run, not by Ctrl+T

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="ws-draft-scroll"):
            yield DraftStream(id="ws-stream")
            yield MarkedDraft(id="ws-marked")
            yield Static("", id="ws-redline", markup=False)
        yield DraftEditor(id="ws-editor", soft_wrap=True)

    def on_mount(self) -> None:
        self.scroll = self.query_one("#ws-draft-scroll", VerticalScroll)
        self.stream = self.query_one(DraftStream)
        self.marked = self.query_one(MarkedDraft)
        self.editor = self.query_one(DraftEditor)
        self.redline = self.query_one("#ws-redline", Static)
        self.scroll.border_title = "Draft"
        self.marked.display = self.editor.display = self.redline.display = False

    # --- the run's draft as it streams, and as it was stored ---

    async def stream_run(self, run_id: int, draft: str) -> None:
        """A run starts writing into the pane (from ``draft``, what it has written so far)."""
        self.run_id, self.text, self.stored = run_id, "", False
        self.marked.display = False
        await self.stream.restart(draft)
        self.text = draft

    async def end_stream(self) -> None:
        await self.stream.flush()
        self.stream.end()

    @on(DraftStream.Appended)
    def streamed(self, event: DraftStream.Appended) -> None:
        if self.stored:
            return  # a frame of a run that is already loaded again: its draft is the stored one
        self.text += event.text
        if self.scroll.max_scroll_y > 0 and not self.scroll.is_anchored:
            self.scroll.anchor()

    def load(self, run_id: int, draft: str, *, marked: bool) -> None:
        """The stored run ``run_id`` is shown; ``marked``: its draft is about to be shown marked."""
        self.stored = True
        self.run_id = run_id
        self.model_draft = self.text = self.marked.text = draft
        self.marked.forget_current()
        if marked:  # drawn once, by the screen, with this run's flags
            self.stream.display = self.marked.display = False

    def show_stored(self, draft: str) -> None:
        """A run stopped before its verification: the draft it reached, unmarked."""
        self.run_worker(self.stream.show_stored(draft), group="load-draft", exit_on_error=False)

    def reopen(self, saved: SavedDraft) -> None:
        """His text as he left it, in the editor, the cursor where it was."""
        self.text = saved.text
        self.open_editor(saved.cursor)
        self._restored = True

    def show_flag(self, index: int, flag: FlagView) -> None:
        self.marked.current = index
        self.call_after_refresh(self._scroll_to_flag, flag)

    def _scroll_to_flag(self, flag: FlagView) -> None:
        """Bring the flag's line into view, as little scrolling as it takes; a line taller than the
        view, the rows of the flag itself."""
        first, rows = self.marked.rows_of_line(flag_line(self.text, flag))
        if rows > self.scroll.scrollable_content_region.height:
            first, rows = self.marked.rows_of_span(flag.start, flag.end)
        if rows:
            where = self.marked.virtual_region
            self.scroll.scroll_to_region(Region(where.x, where.y + first, where.width, rows), animate=False)

    # --- his working copy ---

    def leave(self) -> None:
        """Before the pane shows another run: save his text of this one under this run's id (not the
        next run's), and empty the editor, so one pane never holds two runs' text."""
        self.editor.stop_timers()
        self.autosave()
        self._show_editor(False)
        self.editor.release()
        self.redline.display = False

    def toggle_editor(self) -> bool:
        """Ctrl+T: edit his text, or show it marked; True when it is shown marked now."""
        editor = self.editor
        self.redline.display = False
        if editor.display and (self._restored or self.app.focused is not editor):
            # Reopened after a crash (or the focus wandered off): he presses Ctrl+T to edit, so it edits.
            self._restored = False
            self._show_editor(True)
            editor.focus()
            self.say("Editing your text. Ctrl+T again shows it marked with its flags.")
            return False
        if editor.display:
            self._show_editor(False)
            self.stream.display = False
            self.marked.show(self.text)
            return True
        self.open_editor(None)
        return False

    def open_editor(self, cursor: tuple[int, int] | None) -> None:
        """Show the editor. It is loaded only when it holds no text of this run: between Ctrl+T presses
        and screen switches it keeps its own text and undo history, and that text is the working copy."""
        editor = self.editor
        if self.run_id is not None and editor.run_id != self.run_id:
            editor.hold(self.run_id, self.text)
        elif editor.text != self.text:
            self.text = editor.text
        self._show_editor(True)
        if cursor is not None:
            editor.move_cursor(cursor)
        editor.focus()

    def _show_editor(self, shown: bool) -> None:
        """The editor or the draft pane, one of them (they share the place), and the screen told."""
        self.editor.display, self.scroll.display = shown, not shown
        self.post_message(self.Editing(shown))

    def on_draft_editor_draft_edited(self, event: DraftEditor.DraftEdited) -> None:
        if event.run_id != self.run_id:
            return
        self._restored = False
        self.text = event.text

    def on_draft_editor_save_due(self, event: DraftEditor.SaveDue) -> None:
        event.stop()
        if event.run_id == self.run_id:
            self.autosave()

    def autosave(self) -> None:
        if self.run_id is None or not self.editor.unsaved:
            return
        self.editor.take_unsaved()
        self.save_draft(self.run_id, self.text, self.editor.cursor_location)

    @work(thread=True, group="autosave", exit_on_error=False)
    def save_draft(self, run_id: int, text: str, cursor: tuple[int, int], new_version: bool = False) -> None:
        replaced = self.session.save(run_id, text, cursor, new_version=new_version, previous=self.model_draft)
        self.app.call_from_thread(self._saved, run_id, replaced)

    def _saved(self, run_id: int, replaced: str | None) -> None:
        if replaced is not None:
            words = len(replaced.split())
            self.say(
                f"Saved your text, now {'empty' if not self.text.strip() else 'much shorter'}: "
                f"the {words:,} words before are kept. Ctrl+Z undoes, Ctrl+R lists the versions."
            )
        self.post_message(self.Saved(run_id))

    def list_versions(self) -> None:
        """Ctrl+R: what is in the editor now is saved first, so it is the newest version listed."""
        if self.run_id is None:
            return
        unsaved = self.text if self.editor.unsaved else None
        self.editor.forget_unsaved()
        self._versions(self.run_id, self.model_draft, unsaved, self.editor.cursor_location)

    @work(thread=True, exclusive=True, group="versions", exit_on_error=False)
    def _versions(self, run_id: int, model_draft: str, unsaved: str | None, cursor: tuple[int, int]) -> None:
        kept: list[Version] = self.session.versions(run_id, unsaved, cursor)
        self.app.call_from_thread(self._pick_version, run_id, choices(kept, model_draft))

    def _pick_version(self, run_id: int, listed: list[Choice]) -> None:
        def chosen(text: str | None) -> None:
            if text is None or run_id != self.run_id:
                return
            self.open_editor(None)
            editor = self.editor
            if text == editor.text:
                self.say("That version is the text you have.")
                return
            editor.replace(text, (0, 0), editor.document.end)  # one edit: Ctrl+Z takes it back
            editor.forget_unsaved()
            self.save_draft(run_id, text, editor.cursor_location, new_version=True)
            self.say("Version put back. Ctrl+Z undoes that; Ctrl+R lists the versions again.")

        self.app.push_screen(VersionsScreen(listed), chosen)

    # --- the redline of his text (the finish bar makes it) ---

    @property
    def redline_shown(self) -> bool:
        return bool(self.redline.display)

    def hide_redline(self) -> None:
        self.redline.display = False
        self.marked.show(self.text)

    def show_redline(self, text: Text) -> None:
        self._show_editor(False)
        self.stream.display = self.marked.display = False
        self.redline.update(text)
        self.redline.display = True
        first = first_change(text)
        if first is None:
            self.say("Redline: no changes yet. F7 again shows the marked draft.")
            return
        self.call_after_refresh(self._scroll_to_change, text, first)
        self.say("Redline: [-deleted-] {+inserted+}, from your first change. F7 again: the marked draft.")

    def _scroll_to_change(self, text: Text, offset: int) -> None:
        """Bring the first change into view: the rows the text before it wraps to, at the view's width."""
        rows = len(text[:offset].wrap(self.app.console, max(1, self.redline.content_size.width)))
        self.scroll.scroll_to(y=max(0, rows - 3), animate=False)
