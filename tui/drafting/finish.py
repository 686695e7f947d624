"""The drafting screen's last steps: the redline of his edits (F7), accept (F8) and export (F9).

Accepting stores the correction pair, exporting writes Markdown, Word and a Word redline; both
run in thread workers through the drafting session. Export is refused while a blocking flag is
neither fixed nor overridden, and asks first when the text is empty or the run did not finish.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.containers import VerticalScroll
from textual.widgets import Static

from drafting.flags import FlagView
from drafting.runs import Run
from drafting.session import Accepted, DraftingSession, Exports
from tui.drafting.accept_dialog import AcceptLabels
from tui.drafting.dialogs import ConfirmScreen
from tui.drafting.editor import DraftEditor
from tui.drafting.flags import MarkedDraft
from tui.drafting.stream import DraftStream
from tui.drafting.view import first_change, redline_text
from tui.widgets.key_order import RoomScreen


class FinishingKeys(RoomScreen):
    """Redline, accept, export: the drafting screen's part that finishes a draft."""

    session: DraftingSession
    run_record: Run | None
    draft_text: str
    model_draft: str
    flags: list[FlagView]
    marked: MarkedDraft
    editor: DraftEditor
    stream: DraftStream
    accepted_pair: int | None
    exported: Path | None  # the Markdown export; exports has all three files
    exports: Exports | None

    if TYPE_CHECKING:  # given by the drafting screen

        def busy(self) -> bool: ...

        def set_status(self, text: str) -> None: ...

        def reached(self, step: str, *, blocking: int = 0) -> None: ...

    def action_redline(self) -> None:
        view = self.query_one("#ws-redline", Static)
        if view.display:
            view.display = False
            self.marked.show(self.draft_text)
            return
        if self.busy():
            return
        if self.run_record is None:
            self.set_status("There is no draft yet.")
            return
        if self.draft_text == self.model_draft:
            self.set_status("No changes yet: your text is the model's draft. Ctrl+T edits it.")
            return
        self.show_redline(self.model_draft, self.draft_text)

    @work(thread=True, exclusive=True, group="redline", exit_on_error=False)
    def show_redline(self, draft: str, final: str) -> None:
        text = redline_text(draft, final)
        self.app.call_from_thread(self._show_redline, text)

    def _show_redline(self, text: Text) -> None:
        self.editor.display = False
        self.stream.display = False
        self.marked.display = False
        self.query_one("#ws-draft-scroll").display = True
        view = self.query_one("#ws-redline", Static)
        view.update(text)
        view.display = True
        first = first_change(text)
        if first is None:
            self.set_status("Redline: no changes yet. F7 again shows the marked draft.")
            return
        self.call_after_refresh(self._scroll_to_change, text, first)
        self.set_status(
            "Redline: [-deleted-] {+inserted+}, from your first change. F7 again: the marked draft."
        )

    def _scroll_to_change(self, text: Text, offset: int) -> None:
        """Bring the first change into view: the rows the text before it wraps to, at the view's width."""
        view = self.query_one("#ws-redline", Static)
        rows = len(text[:offset].wrap(self.app.console, max(1, view.content_size.width)))
        scroll = self.query_one("#ws-draft-scroll", VerticalScroll)
        scroll.scroll_to(y=max(0, rows - 3), animate=False)

    def blocking(self) -> list[FlagView]:
        return [f for f in self.flags if f.blocking]

    def action_accept(self) -> None:
        if self.busy():
            return
        if self.run_record is None:
            self.set_status("There is no draft to accept yet.")
            return
        self.accept(self.run_record, self.draft_text)

    @work(thread=True, exclusive=True, group="accept", exit_on_error=False)
    def accept(self, run: Run, text: str) -> None:
        self.app.call_from_thread(self._accepted, self.session.accept(run, text))

    def _accepted(self, accepted: Accepted) -> None:
        self.accepted_pair = accepted.pair_id
        what = "stored" if accepted.stored else "already stored"
        self.set_status(
            f"Accepted: correction pair {accepted.pair_id} {what} (edit ratio {accepted.edit_ratio:.0%})."
        )
        self.reached("accepted")
        self.ask_labels(accepted.pair_id)

    def ask_labels(self, pair_id: int) -> None:
        """The optional rating, rationale and tags of the pair, in a bar above the status line."""
        for old in self.query(AcceptLabels):
            old.remove()
        self.mount(AcceptLabels(self.session.database_file, pair_id), before="#ws-status")

    def on_accept_labels_done(self, event: AcceptLabels.Done) -> None:
        if event.text:
            self.set_status(event.text)

    def action_export(self) -> None:
        if self.busy():
            return
        if self.run_record is None:
            self.set_status("There is no draft to export yet.")
            return
        if blocking := self.blocking():
            first = blocking[0]
            self.set_status(
                f"Export refused: {len(blocking)} blocking flag(s), the first {first.text!r}. "
                "Fix it (F6 verifies) or open it (Enter) and override it with a reason (o)."
            )
            return
        run, draft, text = self.run_record, self.model_draft, self.draft_text
        doubt = (
            "Your text is empty." if not text.strip()
            else f"This run ended {run.status}: the draft is not finished." if run.status != "completed"
            else ""
        )  # fmt: skip
        if not doubt:
            self.export(run, draft, text)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.export(run, draft, text)
            else:
                self.set_status("Nothing exported.")

        self.app.push_screen(ConfirmScreen(f"{doubt} Export it anyway? (y/n)"), answered)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def export(self, run: Run, draft: str, text: str) -> None:
        self.app.call_from_thread(self._exported, self.session.export(run, draft, text))

    def _exported(self, files: Exports) -> None:
        self.exported = files.markdown
        self.exports = files
        stem = files.markdown.stem
        self.set_status(
            f"Exported {stem}.md, {stem}.docx and {files.redline.name} to {files.markdown.parent}"
        )
        self.reached("exported")
