"""The batch screen (F11): a batch's jobs in review order, contradicted drafts first, live while it runs.

Each row is a job: its line in the table, its row's name, its state, the verifier's counts
(contradicted / unverifiable / verified), tokens and time. Enter opens the job's run in the drafting
screen, to redline, verify, accept and export it as any draft; u opens the next job not yet opened,
in the same order. The line above the list says how the batch stands (jobs done, running, failed,
its tok/s and the time left) and what batching measurably gained on its servers; it is read again
every few seconds, so a batch running from the command line shows here as it goes. All database
work runs in thread workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from drafting.batch.plan import gains_for
from drafting.batch.review import JobRow, job_rows, next_unreviewed
from drafting.batch.runner import duration
from drafting.batch.store import DONE, FAILED, RUNNING, BatchStore, Job
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.key_text import KeyText

REFRESH_S = 3.0


@dataclass(frozen=True)
class BatchView:
    """What the screen shows of one batch, read in a worker."""

    names: list[str]
    name: str | None
    rows: list[JobRow]
    gains: dict[str, dict[int, float]]


class BatchScreen(ChambersScreen):
    """A batch's jobs, sorted for review; Enter opens one in the drafting screen."""

    SUB_TITLE = "Batches"
    DEFAULT_CSS = """
    #batch-summary { height: auto; max-height: 3; padding: 0 1; }
    #batch-list { height: 1fr; border: round $primary 50%; }
    #batch-status { height: 1; padding: 0 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "close", "Back", id="batch.close", tooltip="Back to the screen before"),
        Binding(
            "enter",
            "open_job",
            "Open",
            id="batch.open_job",
            tooltip="Open the highlighted job's run in the drafting screen, to redline, verify, accept, export",
        ),
        Binding(
            "u",
            "next_unreviewed",
            "Next unreviewed",
            id="batch.next_unreviewed",
            tooltip="Open the next finished job not yet opened, contradicted drafts first",
        ),
        Binding("b", "next_batch", "Next batch", id="batch.next_batch", tooltip="Show the next batch"),
        Binding("r", "refresh", "Refresh", id="batch.refresh", tooltip="Read the batch again now"),
    ]

    class OpenRun(Message):
        """Open ``run_id`` in the drafting screen (the app does: a screen never opens another)."""

        def __init__(self, run_id: int) -> None:
            super().__init__()
            self.run_id = run_id

    def __init__(self, database_file: Path, name: str | None = None) -> None:
        super().__init__()
        self.database_file = database_file
        self.name_shown = name
        self.view: BatchView | None = None
        self.last_opened: int | None = None

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield KeyText("", id="batch-summary", markup=False)
        yield DataTable(id="batch-list", cursor_type="row", zebra_stripes=True)
        yield KeyText("", id="batch-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#batch-list", DataTable)
        table.add_columns("Line", "Row", "State", "C/U/V", "Tokens", "Time", "")
        table.focus()
        self.load()
        self.set_interval(REFRESH_S, self.load)

    @work(thread=True, exclusive=True, group="batch-load")
    def load(self) -> None:
        store = BatchStore(self.database_file)
        names = [b.name for b in store.batches()] if self.database_file.exists() else []
        name = self.name_shown if self.name_shown in names else (names[-1] if names else None)
        rows = job_rows(self.database_file, name) if name else []
        urls = {
            c["url"] for r in rows if r.job.request for c in r.job.request.get("calls", []) if c.get("url")
        }
        gains = {url: gains_for(store, url) for url in sorted(urls)}
        self.app.call_from_thread(self.show, BatchView(names, name, rows, gains))

    def show(self, view: BatchView) -> None:
        self.view = view
        self.name_shown = view.name
        table = self.query_one("#batch-list", DataTable)
        at = table.cursor_row
        table.clear()
        for r in view.rows:
            j = r.job
            table.add_row(
                str(j.line_no),
                j.row_name,
                j.state,
                r.verdict(),
                "-" if j.tokens is None else str(j.tokens),
                "-" if j.seconds is None else f"{j.seconds:.0f}s",
                "seen" if r.reviewed else "",
                key=str(j.id),
            )
        if view.rows:
            table.move_cursor(row=min(at, len(view.rows) - 1))
        table.border_title = f"Batch {view.name}" if view.name else "No batch yet"
        self.query_one("#batch-summary", Static).update(summary(view))

    def _highlighted(self) -> JobRow | None:
        if not self.view or not self.view.rows:
            return None
        row = self.query_one("#batch-list", DataTable).cursor_row
        return self.view.rows[row] if 0 <= row < len(self.view.rows) else None

    def action_open_job(self) -> None:
        row = self._highlighted()
        if row is None or row.job.run_id is None:
            self.set_status("This job has no run yet: it starts with `chambers batch run`.")
            return
        self._open(row)

    @on(DataTable.RowSelected, "#batch-list")
    def row_chosen(self) -> None:
        """Enter in the list (the list takes the key before the screen's binding)."""
        self.action_open_job()

    def action_next_unreviewed(self) -> None:
        row = next_unreviewed(self.view.rows, self.last_opened) if self.view else None
        if row is None:
            self.set_status("Every finished job has been opened.")
            return
        self._open(row)

    def _open(self, row: JobRow) -> None:
        assert row.job.run_id is not None
        self.last_opened = row.job.id
        self.mark_reviewed(row.job.id)
        self.post_message(self.OpenRun(row.job.run_id))

    @work(thread=True, group="batch-review")
    def mark_reviewed(self, job_id: int) -> None:
        BatchStore(self.database_file).set_reviewed(job_id)

    def action_next_batch(self) -> None:
        if self.view and self.view.names:
            names = self.view.names
            at = names.index(self.view.name) if self.view.name in names else -1
            self.name_shown = names[(at + 1) % len(names)]
            self.load()

    def action_refresh(self) -> None:
        self.load()

    def action_close(self) -> None:
        self.app.pop_screen()

    def set_status(self, text: str) -> None:
        self.query_one("#batch-status", Static).update(text)


def summary(view: BatchView) -> str:
    if view.name is None:
        return "No batch yet. `chambers batch new NAME --jobs rows.csv ...` queues one."
    jobs = [r.job for r in view.rows]
    done = sum(j.state == DONE for j in jobs)
    running = sum(j.state == RUNNING for j in jobs)
    failed = sum(j.state == FAILED for j in jobs)
    contradicted = sum(1 for r in view.rows if r.contradicted)
    line = f"{done}/{len(jobs)} done, {running} running, {failed} failed; {contradicted} with a contradicted item"
    rate = _rate(jobs)
    if rate is not None:
        tok_s, left = rate
        line += f"; {tok_s:.1f} tok/s" + (f", about {duration(left)} left" if left else "")
    gained = [f"{k} at once {g:.2f}x" for gains in view.gains.values() for k, g in sorted(gains.items())]
    if gained:
        line += "\nMeasured gain over one at a time: " + ", ".join(gained)
    return line


def _rate(jobs: list[Job]) -> tuple[float, float | None] | None:
    """Total decode tok/s of the finished jobs (each job's speed times how many ran beside it), and the
    seconds left at that pace."""
    finished = [j for j in jobs if j.state == DONE and j.tokens and j.seconds]
    if not finished:
        return None
    at_once = sum(j.concurrency or 1 for j in finished) / len(finished)
    seconds = sum(j.seconds or 0.0 for j in finished)
    waiting = sum(j.state not in (DONE, FAILED) for j in jobs)
    return sum(j.tokens or 0 for j in finished) / seconds * at_once, (
        seconds / len(finished) / at_once * waiting
    ) or None
