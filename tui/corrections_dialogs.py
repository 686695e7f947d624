"""The corrections browser's two dialogs: confirm a deletion, and export the training set.

The export runs the same ``corrections.export`` as ``chambers corrections export`` in a thread worker,
with its progress bar fed through ``call_from_thread`` and its summary shown when it ends.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, ProgressBar, Select, Static
from textual.worker import Worker

from corrections.export import FORMATS, ExportSummary
from corrections.store import PairFilters
from tui.chambers_screen import ChambersDialog
from tui.screens import error_title

FORMAT_CHOICES = [("SFT (messages)", "sft"), ("DPO (prompt, chosen, rejected)", "dpo"),
                  ("KTO (prompt, completion, label)", "kto"), ("All fields (pairs)", "pairs")]  # fmt: skip
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
            yield Select[str](FORMAT_CHOICES, value="sft", allow_blank=False, id="export-format")
            yield Input(str(self.default_dir / "corrections-sft.jsonl"), id="export-out")
            with Horizontal(id="export-options"):
                yield Checkbox("One row per edited paragraph", id="export-paragraphs")
                yield Checkbox("Scrub party names", id="export-scrub")
            yield Static(_describe(self.filters), id="export-filters", markup=False)
            yield ProgressBar(total=None, id="export-progress", show_eta=False)
            yield Static("", id="export-summary", markup=False)
            with Horizontal(id="export-buttons"):
                yield Button("Export", id="export-run", variant="primary")
                yield Button("Close (Esc)", id="export-close")

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
        self.run_export(
            str(self.query_one("#export-format", Select).value), Path(out).expanduser(),
            self.query_one("#export-paragraphs", Checkbox).value, self.query_one("#export-scrub", Checkbox).value,
        )  # fmt: skip

    @work(thread=True, exclusive=True, group="corrections-export", exit_on_error=False)
    def run_export(self, fmt: str, out: Path, paragraphs: bool, scrub: bool) -> None:
        from corrections.export import export

        summary = export(
            self.database_file, out, fmt, self.filters, paragraphs=paragraphs, scrub=scrub,
            progress=lambda done, total: self.app.call_from_thread(self._progress, done, total),
        )  # fmt: skip
        self.app.call_from_thread(self._done, summary)

    def _progress(self, done: int, total: int) -> None:
        self.query_one("#export-progress", ProgressBar).update(total=max(total, 1), progress=done)

    def _done(self, summary: ExportSummary) -> None:
        self.query_one("#export-summary", Static).update("\n".join(summary.lines()))

    def failure_line(self, worker: Worker[object]) -> str:
        return f"Not exported: {error_title(worker.error)}."

    def set_status(self, text: str) -> None:
        self.query_one("#export-summary", Static).update(text)


def _describe(filters: PairFilters) -> str:
    parts = [f"model {filters.model}" if filters.model else "", f"task {filters.task}" if filters.task else "",
             f"edit ratio >= {filters.min_edit_ratio:g}" if filters.min_edit_ratio else ""]  # fmt: skip
    chosen = ", ".join(p for p in parts if p)
    return f"Pairs: {chosen or 'all'}; excluded pairs are left out."
