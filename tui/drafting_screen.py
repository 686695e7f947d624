"""The drafting screen (F4): ask, watch the draft arrive, see every flag where it is written.

The pipeline runs in an async worker on this screen; its events (plain dataclasses from
``drafting.events``) update the pipeline strip, and the draft's text is gathered in a buffer
that a frame timer appends to the Markdown view (about 30 times a second, however fast the
tokens come), so a fast server never makes the screen re-render per token. When the run ends,
the stored run is loaded in a thread worker and the draft is shown line by line with each
flag's span marked (colour by severity, a gutter letter for monochrome terminals) and the
flags listed beside it: n/N jump, Enter opens one with its evidence or the reviewer's argument.
"""

from __future__ import annotations

import time
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Markdown, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from drafting.events import DraftDelta, PipelineEvent, RunEnded, StageFinished, StageStarted
from drafting.pipeline import Pipeline, PipelineOptions
from drafting.runs import Run, RunStore
from drafting.tasks import DRAFT, TASKS
from evidence.matters import list_matters
from tui.drafting_dialogs import FlagScreen, ReasonScreen
from tui.drafting_view import FlagView, Strip, board_of, flag_line, flags_of, marked_lines, strip_from_run
from tui.screens import ErrorScreen
from workspace.audit import AuditLog
from workspace.config import Config
from workspace.database import connect
from workspace.errors import ChambersError

FRAME_S = 1 / 30  # how often streamed text is appended to the view
SPEED_EVERY_S = 0.25


class DraftingScreen(Screen[None]):
    """Matter, task and instructions in; the pipeline strip, the streamed draft and its flags out."""

    SUB_TITLE = "Drafting"

    BINDINGS = [
        Binding("ctrl+g", "run", "Draft", id="drafting.run", priority=True,
                tooltip="Run the pipeline on the instructions: route, gate, draft, review, verify"),
        Binding("ctrl+x", "cancel_run", "Stop", id="drafting.cancel", priority=True,
                tooltip="Stop the run; the partial draft is kept and the run can be resumed"),
        Binding("ctrl+o", "go_on", "Past gate", id="drafting.go_on", priority=True,
                tooltip="The gate found no basis: go on anyway, with a written reason (recorded)"),
        Binding("n", "next_flag", "Next flag", id="drafting.next_flag",
                tooltip="Jump to the next flag in the draft"),
        Binding("N", "previous_flag", "Prev flag", id="drafting.previous_flag",
                tooltip="Jump to the previous flag in the draft"),
        Binding("ctrl+e", "instructions", "Instructions", id="drafting.instructions",
                tooltip="Go to the instructions box"),
    ]  # fmt: skip

    def __init__(
        self, config: Config, database_file: Path, audit: AuditLog, *, options: PipelineOptions | None = None
    ) -> None:
        super().__init__()
        self.config = config
        self.database_file = database_file
        self.audit = audit
        self.options = options
        self.run_id: int | None = None
        self.run_record: Run | None = None
        self.draft_text = ""
        self.flags: list[FlagView] = []
        self.matters: list[str] = []
        self.current: int | None = None
        self.strip = Strip()
        self.runs_finished = 0  # tests wait on it
        self._pending: list[str] = []
        self._appending = False
        self._tokens = 0
        self._first_token_at = 0.0
        self._last_speed = 0.0

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="ws-pickers"):
            yield Select[str]([], prompt="Matter", id="ws-matter", allow_blank=True)
            yield Select[str](
                [(t.title, t.name) for t in TASKS.values()], value="motion", id="ws-task", allow_blank=False
            )
        yield TextArea(id="ws-instructions", placeholder="What to draft (Ctrl+G runs the pipeline)")
        yield Static("", id="ws-strip", markup=False)
        with Horizontal(id="ws-body"):
            with VerticalScroll(id="ws-draft-scroll"):
                yield Markdown("", id="ws-draft")
                yield Vertical(id="ws-marked")
            yield OptionList(id="ws-flags")
        yield Static("Pick a matter and a task, write the instructions, Ctrl+G drafts.", id="ws-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#ws-draft-scroll").border_title = "Draft"
        self.query_one("#ws-flags").border_title = "Flags"
        self.query_one("#ws-instructions").border_title = "Instructions"
        self.query_one("#ws-marked").display = False
        self.set_interval(FRAME_S, self._flush)
        self.load_matters()
        self.query_one("#ws-instructions", TextArea).focus()

    # --- pickers ---

    @work(thread=True, exclusive=True, group="matters", exit_on_error=False)
    def load_matters(self) -> None:
        if not self.database_file.exists():
            self.app.call_from_thread(
                self.set_status, "No matters yet: create one with `chambers matter new`."
            )
            return
        db = connect(self.database_file)
        try:
            names = [m.name for m in list_matters(db) if not m.name.endswith("authorities")]
        finally:
            db.close()
        self.app.call_from_thread(self._show_matters, names)

    def _show_matters(self, names: list[str]) -> None:
        self.matters = names
        select = self.query_one("#ws-matter", Select)
        select.set_options([(n, n) for n in names])
        if len(names) >= 1 and select.value is Select.NULL:
            select.value = names[0]

    # --- running ---

    def action_run(self) -> None:
        matter = self.query_one("#ws-matter", Select).value
        task = self.query_one("#ws-task", Select).value
        instructions = self.query_one("#ws-instructions", TextArea).text
        if not isinstance(matter, str):
            self.set_status("Pick a matter first.")
            return
        if any(w.group == "pipeline" and w.is_running for w in self.workers):
            self.set_status("A run is going; Ctrl+X stops it.")
            return
        self.start_run(matter, str(task), instructions)

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def start_run(self, matter: str, task: str, instructions: str) -> None:
        pipe = self._pipeline()
        run = pipe.start(matter, task, instructions)
        self.run_id = run.id
        await self._execute(pipe, run)

    def _pipeline(self) -> Pipeline:
        return Pipeline(
            self.config,
            self.database_file,
            options=self.options,
            on_event=self.on_pipeline_event,
            audit=self.audit,
        )

    async def _execute(self, pipe: Pipeline, run: Run) -> None:
        self.flags, self.current, self.draft_text, self._pending = [], None, "", []
        self.strip = strip_from_run(self.config, run)
        self._show_strip()
        self.query_one("#ws-flags", OptionList).clear_options()
        self.query_one("#ws-marked").display = False
        draft = self.query_one("#ws-draft", Markdown)
        draft.display = True
        await draft.update(run.draft)
        self.draft_text = run.draft
        try:
            await pipe.execute(run.id)
        except ChambersError:
            if self.draft_text:
                self.set_status("Stopped. The partial draft is kept (see the error).")
            raise
        finally:
            await self._flush()
            self.show_run(run.id)

    def on_pipeline_event(self, event: PipelineEvent) -> None:
        """Called by the pipeline on this screen's event loop, between its awaits."""
        if isinstance(event, DraftDelta):
            self._pending.append(event.text)
            now = time.perf_counter()
            if self._tokens == 0:
                self._first_token_at = now
            self._tokens += 1
            if now - self._last_speed >= SPEED_EVERY_S and now > self._first_token_at:
                self._last_speed = now
                rate = (self._tokens - 1) / (now - self._first_token_at)
                self.strip.get(DRAFT).speed = f"{self._tokens} tok, {rate:.1f} tok/s"
                self._show_strip()
        elif isinstance(event, StageStarted):
            view = self.strip.get(event.stage)
            view.backend, view.board = event.backend or "code", board_of(self.config, event.backend)
            view.state, view.speed = "running", ""
            self._tokens, self._last_speed = 0, 0.0
            self.set_status(f"{event.label} on {event.backend or 'code'} ...")
            self._show_strip()
        elif isinstance(event, StageFinished):
            self.strip.get(event.stage).state = event.status
            self.set_status(f"{event.label}: {event.summary}")
            self._show_strip()
        elif isinstance(event, RunEnded):
            self.set_status(event.message)

    async def _flush(self) -> None:
        """Append what arrived since the last frame, in one piece."""
        if not self._pending or self._appending:
            return
        text, self._pending = "".join(self._pending), []
        self.draft_text += text
        self._appending = True
        try:
            await self.query_one("#ws-draft", Markdown).append(text)
            scroll = self.query_one("#ws-draft-scroll", VerticalScroll)
            if scroll.max_scroll_y > 0 and not scroll.is_anchored:
                scroll.anchor()
        finally:
            self._appending = False

    def action_cancel_run(self) -> None:
        running = [w for w in self.workers if w.group == "pipeline" and w.is_running]
        for worker in running:
            worker.cancel()
        if running:
            self.set_status("Stopped. The partial draft is kept; Ctrl+G starts a new run.")

    def action_go_on(self) -> None:
        run = self.run_record
        if run is None or run.status != "stopped":
            self.set_status("Only a run the gate stopped can go on past it.")
            return

        def go(reason: str | None) -> None:
            if reason:
                self.go_on_past_gate(run.id, reason)

        self.app.push_screen(ReasonScreen("Why go on although the gate found no basis?"), go)

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def go_on_past_gate(self, run_id: int, reason: str) -> None:
        pipe = self._pipeline()
        run = pipe.choose(run_id, go_on_anyway=reason)
        await self._execute(pipe, run)

    # --- the finished run: marked draft and flags ---

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def show_run(self, run_id: int) -> None:
        run = RunStore(self.database_file).load(run_id)
        self.app.call_from_thread(self._show_loaded, run)

    def _show_loaded(self, run: Run) -> None:
        self.run_record, self.run_id = run, run.id
        if run.matter not in self.matters:
            self._show_matters([*self.matters, run.matter])
        self.query_one("#ws-matter", Select).value = run.matter
        self.query_one("#ws-task", Select).value = run.task_type
        instructions = self.query_one("#ws-instructions", TextArea)
        if instructions.text != run.instructions:
            instructions.text = run.instructions
        self.strip = strip_from_run(self.config, run)
        self._show_strip()
        self.draft_text = run.draft
        self.flags = flags_of(run)
        self.current = None
        options = self.query_one("#ws-flags", OptionList)
        options.clear_options()
        options.add_options([Option(f.label(), id=str(i)) for i, f in enumerate(self.flags)])
        if self.flags:
            options.focus()
        if run.completed("verify") is not None:
            self.query_one("#ws-draft", Markdown).display = False
            self.query_one("#ws-marked").display = True
            self._render_marked()
        blocking = sum(f.blocking for f in self.flags)
        if run.status == "stopped":
            self.set_status("The gate found no basis. Ctrl+O goes on anyway with a written reason.")
        elif run.status == "completed":
            self.set_status(
                f"Run {run.id} done: {len(self.flags)} flags, {blocking} blocking. n/N jump, Enter opens one."
            )
        self.runs_finished += 1

    def _render_marked(self) -> None:
        box = self.query_one("#ws-marked", Vertical)
        box.remove_children()
        lines = marked_lines(self.draft_text, self.flags, self.current)
        box.mount_all([Static(line, classes="ws-line") for line in lines])

    def _jump(self, step: int) -> None:
        if not self.flags:
            self.set_status("There are no flags.")
            return
        self.current = (
            (0 if step > 0 else len(self.flags) - 1)
            if self.current is None
            else (self.current + step) % len(self.flags)
        )
        self.query_one("#ws-flags", OptionList).highlighted = self.current
        self._render_marked()
        line = flag_line(self.draft_text, self.flags[self.current])
        self.call_after_refresh(self._scroll_to_line, line)
        flag = self.flags[self.current]
        self.set_status(f"Flag {self.current + 1}/{len(self.flags)}: {flag.label()} (Enter opens it)")

    def _scroll_to_line(self, line: int) -> None:
        lines = self.query(".ws-line")
        if 0 <= line < len(lines):
            self.query_one("#ws-draft-scroll", VerticalScroll).scroll_to_widget(lines[line], animate=False)

    def action_next_flag(self) -> None:
        self._jump(1)

    def action_previous_flag(self) -> None:
        self._jump(-1)

    def action_instructions(self) -> None:
        self.query_one("#ws-instructions", TextArea).focus()

    @on(OptionList.OptionSelected, "#ws-flags")
    def open_flag(self, event: OptionList.OptionSelected) -> None:
        self.current = event.option_index
        self.open_current_flag()

    def open_current_flag(self) -> None:
        if self.current is None or not self.flags:
            return
        flag = self.flags[self.current]

        def after(answer: str | None) -> None:
            if answer == "override":
                self.set_status(
                    "Overrides from this screen come next; use `chambers verify --override` for now."
                )

        self.app.push_screen(FlagScreen(flag), after)

    # --- everything else ---

    def _show_strip(self) -> None:
        self.query_one("#ws-strip", Static).update(self.strip.render())

    def set_status(self, text: str) -> None:
        self.query_one("#ws-status", Static).update(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        event.stop()
        error = event.worker.error
        if isinstance(error, ChambersError):
            self.app.push_screen(ErrorScreen(error.title, error.message))
        else:
            self.app.push_screen(ErrorScreen("Unexpected error", f"{type(error).__name__}: {error}"))
