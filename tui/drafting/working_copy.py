"""The drafting screen's working copy: the attorney edits the draft, it is autosaved and verified again.

The keys of the drafting screen that act on his text while he writes it: Ctrl+T (edit, or show it
marked with its flags), F6 (verify now) and Ctrl+R (earlier versions). The editor posts when a save
or a verification is due; both run in thread workers through the drafting session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from drafting.drafts.store import Version
from drafting.flags import FlagView
from drafting.runs import Run
from drafting.session import DraftingSession, Verified
from tui.drafting.editor import DraftEditor
from tui.drafting.flags import FlagList, MarkedDraft
from tui.drafting.stream import DraftStream
from tui.drafting.versions import Choice, VersionsScreen, choices
from tui.widgets.key_order import RoomScreen


class WorkingCopyKeys(RoomScreen):
    """Edit, autosave, verify again, put back a version: the drafting screen's part that holds his text."""

    session: DraftingSession
    run_id: int | None
    run_record: Run | None
    draft_text: str
    model_draft: str
    flags: list[FlagView]
    current: int | None
    marked: MarkedDraft
    editor: DraftEditor
    stream: DraftStream
    saves: int  # autosaves written (tests wait on it)
    verifies: int
    _restored: bool

    if TYPE_CHECKING:  # given by the drafting screen

        def busy(self) -> bool: ...

        def set_status(self, text: str) -> None: ...

        def reached(self, step: str, *, blocking: int = 0) -> None: ...

    def leave_working_copy(self) -> None:
        """Before the pane shows another run: save the attorney's text of this one under this run's id
        (not the next run's), and empty the editor, so one pane never holds two runs' text."""
        self.editor.stop_timers()
        self.autosave()
        self.editor.display = False
        self.editor.release()
        self.query_one("#ws-redline").display = False
        self.query_one("#ws-draft-scroll").display = True

    def action_toggle_editor(self) -> None:
        editor = self.editor
        if self.busy():
            return
        if self.run_record is None:
            self.set_status("There is no draft to edit yet.")
            return
        self.query_one("#ws-redline").display = False
        if editor.display and (self._restored or self.app.focused is not editor):
            # Reopened after a crash (or the focus wandered off): he presses Ctrl+T to edit, so it edits.
            self._restored = False
            editor.focus()
            self.set_status("Editing your text. Ctrl+T again shows it marked with its flags.")
            return
        if editor.display:
            editor.display = False
            self.query_one("#ws-draft-scroll").display = True
            self.stream.display = False
            self.marked.show(self.draft_text)
            self.query_one(FlagList).focus()
        else:
            self.open_editor(None)

    def open_editor(self, cursor: tuple[int, int] | None) -> None:
        """Show the editor. It is loaded only when it holds no text of this run: between Ctrl+T presses
        and screen switches it keeps its own text and undo history, and that text is the working copy."""
        editor = self.editor
        if self.run_id is not None and editor.run_id != self.run_id:
            editor.hold(self.run_id, self.draft_text)
        elif editor.text != self.draft_text:
            self.draft_text = editor.text
        self.query_one("#ws-draft-scroll").display = False
        editor.display = True
        if cursor is not None:
            editor.move_cursor(cursor)
        editor.focus()

    def on_draft_editor_draft_edited(self, event: DraftEditor.DraftEdited) -> None:
        if event.run_id != self.run_id:
            return
        self._restored = False
        self.draft_text = event.text

    def on_draft_editor_save_due(self, event: DraftEditor.SaveDue) -> None:
        if event.run_id == self.run_id:
            self.autosave()

    def on_draft_editor_verify_due(self, event: DraftEditor.VerifyDue) -> None:
        if event.run_id == self.run_id:
            self.action_verify_now()

    def autosave(self) -> None:
        if self.run_id is None or not self.editor.unsaved:
            return
        self.editor.take_unsaved()
        self.save_draft(self.run_id, self.draft_text, self.editor.cursor_location)

    @work(thread=True, group="autosave", exit_on_error=False)
    def save_draft(self, run_id: int, text: str, cursor: tuple[int, int], new_version: bool = False) -> None:
        replaced = self.session.save(run_id, text, cursor, new_version=new_version, previous=self.model_draft)
        self.app.call_from_thread(self._saved, replaced)

    def _saved(self, replaced: str | None) -> None:
        self.saves += 1
        if replaced is not None:
            words = len(replaced.split())
            self.set_status(
                f"Saved your text, now {'empty' if not self.draft_text.strip() else 'much shorter'}: "
                f"the {words:,} words before are kept. Ctrl+Z undoes, Ctrl+R lists the versions."
            )

    def action_verify_now(self) -> None:
        if self.busy():
            return
        if self.run_record is None:
            self.set_status("There is no draft to verify yet.")
            return
        self.verify_edit(self.run_record, self.draft_text)

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def verify_edit(self, run: Run, text: str) -> None:
        self.app.call_from_thread(self.verified, self.session.reverify(run, text))

    def verified(self, result: Verified) -> None:
        self.verifies += 1
        if result.text != self.draft_text:
            return  # typed on meanwhile: the next verify is already scheduled
        self.marked.text = result.text
        self.current = None
        self.marked.forget_current()
        self.flags = result.flags
        blocking = sum(f.blocking for f in result.flags)
        self.set_status(f"Verified: {len(result.flags)} flags, {blocking} blocking.")
        self.reached("verified", blocking=blocking)

    def action_versions(self) -> None:
        if self.busy():
            return
        if self.run_record is None or self.run_id is None:
            self.set_status("There is no draft yet, so no versions of it.")
            return
        # What is in the editor now is saved first, so it is the newest version listed.
        unsaved = self.draft_text if self.editor.unsaved else None
        self.editor.forget_unsaved()
        self.list_versions(self.run_id, self.model_draft, unsaved, self.editor.cursor_location)

    @work(thread=True, exclusive=True, group="versions", exit_on_error=False)
    def list_versions(
        self, run_id: int, model_draft: str, unsaved: str | None, cursor: tuple[int, int]
    ) -> None:
        kept: list[Version] = self.session.versions(run_id, unsaved, cursor)
        self.app.call_from_thread(self._pick_version, run_id, choices(kept, model_draft))

    def _pick_version(self, run_id: int, listed: list[Choice]) -> None:
        def chosen(text: str | None) -> None:
            if text is None or run_id != self.run_id:
                return
            self.open_editor(None)
            editor = self.editor
            if text == editor.text:
                self.set_status("That version is the text you have.")
                return
            editor.replace(text, (0, 0), editor.document.end)  # one edit: Ctrl+Z takes it back
            editor.forget_unsaved()
            self.save_draft(run_id, text, editor.cursor_location, new_version=True)
            self.set_status("Version put back. Ctrl+Z undoes that; Ctrl+R lists the versions again.")

        self.app.push_screen(VersionsScreen(listed), chosen)
