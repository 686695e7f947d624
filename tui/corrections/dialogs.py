"""The corrections browser's two dialogs: confirm a deletion, and export the training set.

The export runs the same ``corrections.export`` as ``chambers corrections export`` in a thread worker,
with its progress bar fed through ``call_from_thread`` and its summary shown when it ends. The bar
shows only while an export runs and when one has finished (full); a failed export hides it, so the
dialog never animates over nothing.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, ProgressBar, Select, Static
from textual.worker import Worker, WorkerState

from corrections.export import FORMATS, ExportSummary
from corrections.store import PairFilters
from tui.widgets.chambers_screen import ChambersDialog
from tui.widgets.key_text import KeyText
from tui.widgets.screens import error_title
from workspace.errors import ChambersError

FORMAT_CHOICES = [
    ("SFT (messages)", "sft"),
    ("DPO (prompt, chosen, rejected)", "dpo"),
    ("KTO (prompt, completion, label)", "kto"),
    ("All fields (pairs)", "pairs"),
]
assert [value for _, value in FORMAT_CHOICES] == list(FORMATS)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; Esc or n is no."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "No", id="confirm.no"),
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.question, id="confirm-question", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button("Delete (y)", id="confirm-yes", variant="error")
                yield Button("Keep (n)", id="confirm-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ExportScreen(ChambersDialog[None]):
    """Format, file, paragraphs and scrub; the browser's filters apply. Esc closes."""

    BINDINGS = [Binding("escape", "close", "Close", id="export.close")]

    def __init__(self, database_file: Path, filters: PairFilters, default_dir: Path) -> None:
        super().__init__()
        self.database_file = database_file
        self.filters = filters
        self.default_dir = default_dir

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static("Export the corrections", id="export-title")
            # compact, so a summary or an error of several lines leaves the buttons in view at 80x24
            yield Select[str](
                FORMAT_CHOICES, value="sft", allow_blank=False, id="export-format", compact=True
            )
            yield Input(str(self.default_dir / "corrections-sft.jsonl"), id="export-out", compact=True)
            with Horizontal(id="export-options"):
                yield Checkbox("One row per edited paragraph", id="export-paragraphs")
                yield Checkbox("Scrub party names", id="export-scrub")
            yield Static(_describe(self.filters), id="export-filters", markup=False)
            yield ProgressBar(total=None, id="export-progress", show_eta=False)
            yield KeyText("", id="export-summary", markup=False)
            with Horizontal(id="export-buttons"):
                yield Button("Export", id="export-run", variant="primary")
                yield Button("Close (Esc)", id="export-close")

    def on_mount(self) -> None:
        self.query_one("#export-progress", ProgressBar).display = False

    @on(Select.Changed, "#export-format")
    def format_changed(self, event: Select.Changed) -> None:
        out = self.query_one("#export-out", Input)
        if Path(out.value).name.startswith("corrections-"):
            out.value = str(Path(out.value).with_name(f"corrections-{event.value}.jsonl"))

    @on(Button.Pressed, "#export-close")
    def action_close(self) -> None:
        self.dismiss()

    @on(Button.Pressed, "#export-run")
    def start(self) -> None:
        out = self.query_one("#export-out", Input).value.strip()
        if not out:
            self.query_one("#export-summary", Static).update("Type where the file should go.")
            return
        self.query_one("#export-summary", Static).update("Exporting ...")
        bar = self.query_one("#export-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = True
        self.query_one("#export-run", Button).disabled = True  # two at once would share one temporary file
        self.run_export(
            str(self.query_one("#export-format", Select).value),
            Path(out).expanduser(),
            self.query_one("#export-paragraphs", Checkbox).value,
            self.query_one("#export-scrub", Checkbox).value,
        )

    @work(thread=True, exclusive=True, group="corrections-export", exit_on_error=False)
    def run_export(self, fmt: str, out: Path, paragraphs: bool, scrub: bool) -> None:
        from corrections.export import export

        summary = export(
            self.database_file,
            out,
            fmt,
            self.filters,
            paragraphs=paragraphs,
            scrub=scrub,
            progress=lambda done, total: self.app.call_from_thread(self._progress, done, total),
        )
        self.app.call_from_thread(self._done, summary)

    def _progress(self, done: int, total: int) -> None:
        self.query_one("#export-progress", ProgressBar).update(total=max(total, 1), progress=done)

    def _done(self, summary: ExportSummary) -> None:
        # Full when done, even with no pairs to export.
        self.query_one("#export-progress", ProgressBar).update(total=1, progress=1)
        self.query_one("#export-summary", Static).update("\n".join(summary.lines()))

    @on(Worker.StateChanged)
    def export_ended(self, event: Worker.StateChanged) -> None:
        """Export can be pressed again once a run ends; a run that did not finish leaves no bar behind."""
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self.query_one("#export-run", Button).disabled = False
            if event.state is not WorkerState.SUCCESS:
                self.query_one("#export-progress", ProgressBar).display = False

    def failure_line(self, worker: Worker[object]) -> str:
        """The whole message when it is his to act on (it names the file and what to do), so the dialog
        still says it once the error modal is closed."""
        error = worker.error
        if isinstance(error, ChambersError):
            return f"Not exported: {error.message}"
        return f"Not exported: {error_title(error)}."

    def set_status(self, text: str) -> None:
        self.query_one("#export-summary", Static).update(text)


def _describe(filters: PairFilters) -> str:
    parts = [
        f"model {filters.model}" if filters.model else "",
        f"task {filters.task}" if filters.task else "",
        f"edit ratio >= {filters.min_edit_ratio:g}" if filters.min_edit_ratio else "",
    ]
    chosen = ", ".join(p for p in parts if p)
    return f"Pairs: {chosen or 'all'}; excluded pairs are left out."
