"""The finish bar: the last steps of a draft, the redline of his edits (F7), accept (F8) and export (F9).

Accepting stores the correction pair, exporting writes Markdown, Word and a Word redline; both
run in thread workers through the drafting session, and the bar keeps what they made (``accepted_pair``,
``exports``). Export is refused while a blocking flag is neither fixed nor overridden, and asks first
when the text is empty or the run did not finish. Once a pair is stored the bar asks for its labels
(``AcceptLabels``), above the status line. The redline is made here off the loop and posted
(``RedlineReady``): the draft pane shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.message import Message

from drafting.flags import FlagView
from drafting.runs import Run
from drafting.session import Accepted, DraftingSession, Exports
from tui.drafting.accept_dialog import AcceptLabels
from tui.drafting.dialogs import ConfirmScreen
from tui.drafting.parts import DraftingPart
from tui.drafting.view import redline_text

if TYPE_CHECKING:
    pass


def stopped_line(run: Run) -> str:
    """The status of a run stopped before its end (Ctrl+X, or the app closed). F8 pairs only a finished
    draft, so the line says whether the draft itself was finished (a later stage was stopped) or cut off."""
    if run.completed("draft") is not None:
        return (
            f"Run {run.id} was stopped after its draft was finished (the stages after it did not run): "
            "Ctrl+T edits it, F8 accepts it."
        )
    return (
        f"Run {run.id} was stopped before it finished: the partial draft is kept and shown. "
        "Ctrl+T edits it, Ctrl+G drafts anew (F8 accepts only a finished draft)."
    )


class FinishBar(DraftingPart):
    """Redline, accept, export; empty (no rows) until a pair's labels are asked for."""

    DEFAULT_CSS = "FinishBar { layout: vertical; height: auto; }"

    @dataclass
    class RedlineReady(Message):
        """His changes against the model's draft, marked word by word."""

        text: Text

    def __init__(self, session: DraftingSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.accepted_pair: int | None = None
        self.exported: Path | None = None  # the Markdown export; exports has all three files
        self.exports: Exports | None = None

    @work(thread=True, exclusive=True, group="redline", exit_on_error=False)
    def redline(self, draft: str, final: str) -> None:
        self.post_message(self.RedlineReady(redline_text(draft, final)))

    @work(thread=True, exclusive=True, group="accept", exit_on_error=False)
    def accept(self, run: Run, text: str) -> None:
        self.app.call_from_thread(self._accepted, self.session.accept(run, text))

    def _accepted(self, accepted: Accepted) -> None:
        self.accepted_pair = accepted.pair_id
        what = "stored" if accepted.stored else "already stored"
        self.say(
            f"Accepted: correction pair {accepted.pair_id} {what} (edit ratio {accepted.edit_ratio:.0%})."
        )
        self.reach("accepted")
        self.ask_labels(accepted.pair_id)

    def ask_labels(self, pair_id: int) -> None:
        """The optional rating, rationale and tags of the pair, in a bar above the status line."""
        for old in self.query(AcceptLabels):
            old.remove()
        self.mount(AcceptLabels(self.session.database_file, pair_id))

    def on_accept_labels_done(self, event: AcceptLabels.Done) -> None:
        if event.text:
            self.say(event.text)

    def export(self, run: Run, draft: str, text: str, blocking: list[FlagView]) -> None:
        """Export ``text`` of ``run`` (``draft`` is the model's), unless ``blocking`` flags stand."""
        if blocking:
            first = blocking[0]
            self.say(
                f"Export refused: {len(blocking)} blocking flag(s), the first {first.text!r}. "
                "Fix it (F6 verifies) or open it (Enter) and override it with a reason (o)."
            )
            return
        doubt = (
            "Your text is empty."
            if not text.strip()
            else f"This run ended {run.status}: the draft is not finished."
            if run.status != "completed"
            else ""
        )
        if not doubt:
            self._export(run, draft, text)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._export(run, draft, text)
            else:
                self.say("Nothing exported.")

        self.app.push_screen(ConfirmScreen(f"{doubt} Export it anyway? (y/n)"), answered)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def _export(self, run: Run, draft: str, text: str) -> None:
        self.app.call_from_thread(self._exported, self.session.export(run, draft, text))

    def _exported(self, files: Exports) -> None:
        self.exported = files.markdown
        self.exports = files
        stem = files.markdown.stem
        self.say(f"Exported {stem}.md, {stem}.docx and {files.redline.name} to {files.markdown.parent}")
        self.reach("exported")
