"""The exhibits screen: pick a matter's PDFs, order them, preview the plan, run it with a progress bar.

Widgets do no I/O: the database and PyMuPDF work run in thread workers
(``@work(thread=True, exclusive=True, exit_on_error=False)``), which report
back through ``call_from_thread``; a failed worker's ChambersError is shown in
the app's one error modal. The plan shown is the dry run of the same code the
CLI runs, so what the attorney previews is what will be written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Input, ProgressBar, Select, Static

from exhibits.sources import MatterPdf, matter_names, matter_pdfs
from exhibits.stamp import Progress
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.key_text import KeyText

ACTIONS = [("Bates production", "stamp"), ("Binder with Bates", "bind-bates"), ("Binder", "bind")]


@dataclass(frozen=True)
class Job:
    action: str
    matter: str
    exhibits: tuple[MatterPdf, ...]
    prefix: str
    out_root: Path


class ExhibitsScreen(ChambersScreen):
    """Bates productions and binders from a matter's indexed PDFs."""

    SUB_TITLE = "Exhibits"
    STOPPED_AFTER = " Nothing was written."

    BINDINGS = [
        Binding("escape", "close", "Back", id="exhibits.close", tooltip="Back to the workstation"),
        Binding(
            "a", "add", "Add", id="exhibits.add", tooltip="Add the highlighted document as the next exhibit"
        ),
        Binding(
            "x", "remove", "Remove", id="exhibits.remove", tooltip="Take the highlighted exhibit off the list"
        ),
        Binding("[", "move(-1)", "Up", id="exhibits.up", tooltip="Move the highlighted exhibit up"),
        Binding("]", "move(1)", "Down", id="exhibits.down", tooltip="Move the highlighted exhibit down"),
        Binding(
            "p",
            "preview",
            "Preview",
            id="exhibits.preview",
            tooltip="Show what would be written (a dry run: nothing is written)",
        ),
        Binding(
            "ctrl+g",
            "run",
            "Run",
            id="exhibits.run",
            priority=True,
            tooltip="Write the production or binder, with a progress bar",
        ),
    ]

    def __init__(self, database_file: Path, out_root: Path | None = None) -> None:
        super().__init__()
        self.database_file = database_file
        self.out_root = out_root or database_file.parent / "exhibits"
        self.documents: list[MatterPdf] = []
        self.chosen: list[MatterPdf] = []
        self.documents_shown = 0  # how many document lists have been shown (tests wait on it)

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="exhibits-controls"):
            yield Select[str]([], prompt="Matter", id="exhibits-matter", allow_blank=True)
            yield Select[str](ACTIONS, value="stamp", id="exhibits-action", allow_blank=False)
            yield Input(placeholder="Bates prefix", id="exhibits-prefix", max_length=12)
        with Horizontal(id="exhibits-lists"):
            yield DataTable(id="exhibits-documents", cursor_type="row", zebra_stripes=True)
            yield DataTable(id="exhibits-chosen", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="exhibits-plan-scroll"):
            yield Static(
                "Pick a matter, add documents (a), then preview (p).", id="exhibits-plan", markup=False
            )
        with Vertical(id="exhibits-run"):
            yield ProgressBar(total=1, id="exhibits-progress", show_eta=False)  # 0%, still: a bar that waits
            yield KeyText("", id="exhibits-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#exhibits-documents").border_title = "Documents (a adds)"
        self.query_one("#exhibits-chosen").border_title = "Exhibits, in order ([ ] move, x removes)"
        self.query_one("#exhibits-plan-scroll").border_title = "Plan"
        docs = self.query_one("#exhibits-documents", DataTable)
        # Fixed widths: auto widths were settled by whichever update came first, so the screen differed
        # from run to run.
        # The names take what the terminal gives beyond 80 columns; a Bates number is never cut (HPP-000001).
        wider = max(0, self.app.size.width - 80) // 2
        stamp = 11 + min(
            3, wider
        )  # HPP-000001 whole at 80 columns, a longer prefix's number when there is room
        for label, width in (("Document", 16 + wider - (stamp - 11)), ("Pages", 5), ("Stamp", stamp)):
            docs.add_column(label, width=width)
        chosen = self.query_one("#exhibits-chosen", DataTable)
        for label, width in (("#", 2), ("Exhibit", 22 + wider), ("Pages", 5)):
            chosen.add_column(label, width=width)
        docs.focus()  # not the matter's drop-down, which Down would open
        self.load_matters()

    # --- loading ------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="exhibits-load", exit_on_error=False)
    def load_matters(self) -> None:
        names = matter_names(self.database_file)
        self.app.call_from_thread(self._show_matters, names)

    def _show_matters(self, names: list[str]) -> None:
        select = self.query_one("#exhibits-matter", Select)
        select.set_options((name, name) for name in names)
        if names:
            select.value = names[0]
        else:
            self.set_status("No matters yet: create one with `chambers matter new` and ingest it.")

    @on(Select.Changed, "#exhibits-matter")
    def matter_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.chosen = []
            self._show_chosen()
            self.load_documents(event.value)

    @work(thread=True, exclusive=True, group="exhibits-load", exit_on_error=False)
    def load_documents(self, matter: str) -> None:
        documents = matter_pdfs(self.database_file, matter)
        self.app.call_from_thread(self._show_documents, documents)

    def _show_documents(self, documents: list[MatterPdf]) -> None:
        self.documents = documents
        table = self.query_one("#exhibits-documents", DataTable)
        table.clear()
        for doc in documents:
            table.add_row(doc.path.name, str(doc.pages), doc.bates or "")
        if not documents:
            self.set_status("This matter has no indexed PDFs: run `chambers evidence ingest` first.")
        self.documents_shown += 1

    # --- choosing and ordering ------------------------------------------------------

    def action_add(self) -> None:
        table = self.query_one("#exhibits-documents", DataTable)
        if not self.documents:
            return
        self.chosen.append(self.documents[min(table.cursor_row, len(self.documents) - 1)])
        self._show_chosen(len(self.chosen) - 1)

    def action_remove(self) -> None:
        table = self.query_one("#exhibits-chosen", DataTable)
        if self.chosen:
            row = min(table.cursor_row, len(self.chosen) - 1)
            del self.chosen[row]
            self._show_chosen(max(row - 1, 0))

    def action_move(self, step: int) -> None:
        table = self.query_one("#exhibits-chosen", DataTable)
        row = table.cursor_row
        target = row + step
        if 0 <= row < len(self.chosen) and 0 <= target < len(self.chosen):
            self.chosen[row], self.chosen[target] = self.chosen[target], self.chosen[row]
            self._show_chosen(target)

    def _show_chosen(self, cursor: int = 0) -> None:
        table = self.query_one("#exhibits-chosen", DataTable)
        table.clear()
        for number, doc in enumerate(self.chosen, start=1):
            table.add_row(str(number), doc.title, str(doc.pages))
        if self.chosen:
            table.move_cursor(row=cursor)

    # --- plan and run --------------------------------------------------------------

    def job(self) -> Job | None:
        matter = self.query_one("#exhibits-matter", Select).value
        if not isinstance(matter, str):
            self.set_status("Pick a matter first.")
            return None
        if not self.chosen:
            self.set_status("Add at least one document (a) before previewing or running.")
            return None
        action = str(self.query_one("#exhibits-action", Select).value)
        prefix = self.query_one("#exhibits-prefix", Input).value.strip()
        if action != "bind" and not prefix:
            self.set_status("Type a Bates prefix (e.g. HPP) first.")
            self.query_one("#exhibits-prefix", Input).focus()
            return None
        return Job(action, matter, tuple(self.chosen), prefix, self.out_root)

    def action_preview(self) -> None:
        if job := self.job():
            self.run_job(job, dry_run=True)

    def action_run(self) -> None:
        if job := self.job():
            self.query_one("#exhibits-progress", ProgressBar).update(total=1, progress=0)
            self.run_job(job, dry_run=False)

    @work(thread=True, exclusive=True, group="exhibits-run", exit_on_error=False)
    def run_job(self, job: Job, dry_run: bool) -> None:
        from exhibits.errors import AlreadyStamped
        from exhibits.jobs import run_exhibit_job

        try:
            lines = run_exhibit_job(
                self.database_file,
                job.action,
                job.matter,
                [d.path for d in job.exhibits],
                [d.title for d in job.exhibits],
                job.prefix,
                job.out_root,
                dry_run=dry_run,
                progress=lambda p: self.app.call_from_thread(self._show_progress, p),
                stamp=datetime.now().strftime("%Y%m%d-%H%M%S"),
            )
        except AlreadyStamped as exc:
            # Its message names the command line's --restamp, which this screen has no way to pass.
            message = exc.message.replace(
                "or pass --restamp to stamp it again anyway.",
                "or take this document off the list (x). To stamp over the old stamp anyway, use the "
                "command line: chambers exhibits stamp --restamp.",
            )
            raise AlreadyStamped(message) from exc
        self.app.call_from_thread(self._show_plan, lines, dry_run)

    def _show_progress(self, progress: Progress) -> None:
        self.query_one("#exhibits-progress", ProgressBar).update(total=progress.total, progress=progress.done)
        self.set_status(f"{progress.done}/{progress.total} pages: {progress.document}")

    def _show_plan(self, lines: list[str], dry_run: bool) -> None:
        self.query_one("#exhibits-plan", Static).update("\n".join(lines))
        self.set_status("Preview only: nothing was written. Ctrl+G runs it." if dry_run else "Done.")

    def set_status(self, text: str) -> None:
        self.query_one("#exhibits-status", Static).update(text)

    def action_close(self) -> None:
        self.dismiss()
