"""The drafting screen (F4): ask, watch the draft arrive, see every flag where it is written.

The screen wires widgets to a headless ``DraftingSession``, which does the work off the event loop
(the pipeline in an async worker, whose disk and verifier work go to threads; everything else in
thread workers):

- the pickers and the instructions say what to draft; Ctrl+G runs the pipeline;
- ``PipelineStrip`` shows each stage as its events arrive, ``DraftStream`` the draft as it streams;
- when the run ends it is loaded again (and marked, and cut into rows, in the worker) and shown in
  ``MarkedDraft`` with each flag's span marked, listed beside it in ``FlagList`` (both follow ``flags``):
  n/N jump, Enter opens one with its evidence or the reviewer's argument;
- ``DraftEditor`` holds the attorney's working copy, autosaved and verified again as he pauses;
- F7 redlines his text against the model's draft, F8 accepts it, F9 exports it.

Each step of that loop is announced as a ``StepReached`` message, which a guide (the demo's)
listens for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer, Header, Select, Static, TextArea
from textual.worker import Worker

from drafting.events import DraftDelta, PipelineEvent, RunEnded, StageFinished, StageStarted
from drafting.flags import FlagView
from drafting.runs import Run
from drafting.session import DraftingSession, Exports
from drafting.tasks import TASKS
from tui.drafting.dialogs import ReasonScreen, gate_question
from tui.drafting.editor import DraftEditor
from tui.drafting.finish import FinishingKeys
from tui.drafting.flag_keys import FlagKeys
from tui.drafting.flags import FlagList, MarkedDraft, Wrap
from tui.drafting.pipeline_strip import PipelineStrip
from tui.drafting.stream import DraftStream
from tui.drafting.view import LoadedRun
from tui.drafting.working_copy import WorkingCopyKeys
from tui.widgets.chambers_screen import ChambersScreen
from workspace.config import Config
from workspace.errors import ChambersError


class DraftingScreen(FlagKeys, WorkingCopyKeys, FinishingKeys, ChambersScreen):
    """Matter, task and instructions in; the pipeline strip, the streamed draft and its flags out."""

    @dataclass
    class StepReached(Message):
        """A step of the drafting loop happened: run-started, run-completed, run-stopped, run-ended,
        verified (with how many flags block), flag-opened, accepted, exported."""

        step: str
        blocking: int = 0

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)

    SUB_TITLE = "Drafting"
    FOOTER_FIRST = ("run", "cancel_run", "go_on", "toggle_editor", "verify_now",
                    "redline", "accept", "export")  # fmt: skip

    BINDINGS = [
        Binding("ctrl+g", "run", "Draft", id="drafting.run", priority=True,
                tooltip="Run the pipeline on the instructions: route, gate, draft, review, verify"),
        Binding("ctrl+x", "cancel_run", "Stop", id="drafting.cancel", priority=True,
                tooltip="Stop the run; the partial draft is kept and the run can be resumed"),
        Binding("ctrl+o", "go_on", "Past gate", id="drafting.go_on", priority=True,
                tooltip="The gate found no basis: go on anyway, with a written reason (recorded)"),
        Binding("n", "next_flag", "Next flag", id="drafting.next_flag", show=False,
                tooltip="Jump to the next flag in the draft"),
        Binding("N", "previous_flag", "Prev flag", id="drafting.previous_flag", show=False,
                tooltip="Jump to the previous flag in the draft"),
        Binding("ctrl+t", "toggle_editor", "Edit", id="drafting.edit", priority=True,
                tooltip="Edit the draft (Ctrl+Z undoes, Ctrl+Y redoes); Ctrl+T again shows it marked with its flags"),
        Binding("f6", "verify_now", "Verify", id="drafting.verify", priority=True,
                tooltip="Verify the draft as it stands now (it is also verified a moment after you stop typing)"),
        Binding("f7", "redline", "Redline", id="drafting.redline", priority=True,
                tooltip="Show your changes against the model's draft: [-deleted-] and {+inserted+}, word by word"),
        Binding("f8", "accept", "Accept", id="drafting.accept", priority=True,
                tooltip="Accept your text: the model's draft and yours are kept as a correction pair"),
        Binding("f9", "export", "Export", id="drafting.export", priority=True,
                tooltip="Export your text as Markdown and Word, and your edits as a Word redline with tracked changes (refused while a blocking flag is neither fixed nor overridden)"),
        Binding("ctrl+n", "inspect_context", "Context", id="drafting.context", priority=True,
                tooltip="The context inspector: each stage's exact messages, every chunk with its provenance"),
        Binding("ctrl+e", "instructions", "Instructions", id="drafting.instructions", show=False,
                tooltip="Go to the instructions box"),
        Binding("ctrl+r", "versions", "Versions", id="drafting.versions", priority=True,
                tooltip="Earlier states of your text (kept as you edit): Enter puts one back, Ctrl+Z undoes that"),
    ]  # fmt: skip

    def __init__(
        self, session: DraftingSession, *, guide: Widget | None = None, task: str | None = None,
        instructions: str = "",
    ) -> None:  # fmt: skip
        """``session`` is wired by whoever opens the screen (``tui.drafting.wiring``); ``guide`` is shown
        above the status line and gets each ``StepReached``; ``task`` and ``instructions`` fill the
        boxes in (a run reopened puts its own back)."""
        super().__init__()
        self.session = session
        self.guide = guide
        self._start_task, self._start_instructions = task, instructions
        self.run_id: int | None = None
        self.run_record: Run | None = None
        self.draft_text = ""
        self.matters: list[str] = []
        self.model_draft = ""  # what the model wrote; draft_text is the attorney's version
        self.current: int | None = None
        self.runs_finished = 0  # tests wait on it
        self._restored = False  # the editor was opened by reopening the run, not by Ctrl+T
        self.saves = 0  # autosaves written (tests wait on it)
        self.verifies = 0
        self.accepted_pair: int | None = None
        self.exported: Path | None = None  # the Markdown export; exports has all three files
        self.exports: Exports | None = None

    @property
    def config(self) -> Config:
        return self.session.config

    @config.setter
    def config(self, config: Config) -> None:
        self.session.config = config

    @property
    def database_file(self) -> Path:
        return self.session.database_file

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="ws-pickers"):
            yield Select[str]([], prompt="Matter", id="ws-matter", allow_blank=True)
            yield Select[str](
                [(t.title, t.name) for t in TASKS.values()], value="motion", id="ws-task", allow_blank=False
            )
        yield TextArea(id="ws-instructions", placeholder="What to draft (Ctrl+G runs the pipeline)")
        yield PipelineStrip(id="ws-strip")
        with Horizontal(id="ws-body"):
            with VerticalScroll(id="ws-draft-scroll"):
                yield DraftStream(id="ws-stream")
                yield MarkedDraft(id="ws-marked").data_bind(DraftingScreen.flags)
                yield Static("", id="ws-redline", markup=False)
            yield DraftEditor(id="ws-editor", soft_wrap=True)
            yield FlagList(id="ws-flags").data_bind(DraftingScreen.flags)
        if self.guide is not None:
            yield self.guide
        yield Static("Pick a matter and a task, write the instructions, Ctrl+G drafts.", id="ws-status")
        yield Footer()

    def on_mount(self) -> None:
        self.stream = self.query_one(DraftStream)
        self.strip = self.query_one(PipelineStrip)
        self.marked = self.query_one(MarkedDraft)
        self.editor = self.query_one(DraftEditor)
        self.query_one("#ws-draft-scroll").border_title = "Draft"
        self.query_one("#ws-flags").border_title = "Flags"
        self.query_one("#ws-instructions").border_title = "Instructions"
        self.marked.display = False
        self.editor.display = False
        self.query_one("#ws-redline").display = False
        if self._start_task is not None:
            self.query_one("#ws-task", Select).value = self._start_task
        if self._start_instructions:
            self.query_one("#ws-instructions", TextArea).text = self._start_instructions
        self.load_matters()
        self.restore()
        self.query_one("#ws-instructions", TextArea).focus()

    # --- pickers ---

    @work(thread=True, exclusive=True, group="matters", exit_on_error=False)
    def load_matters(self) -> None:
        names = self.session.matters()
        if names is None:
            self.app.call_from_thread(
                self.set_status, "No matters yet: create one with `chambers matter new`."
            )
        else:
            self.app.call_from_thread(self._show_matters, names)

    def _show_matters(self, names: list[str]) -> None:
        self.matters = names
        select = self.query_one("#ws-matter", Select)
        current = select.value  # a reopened run's matter stays chosen when the list arrives after it
        select.set_options([(n, n) for n in names])
        if isinstance(current, str) and current in names:
            select.value = current
        elif names:
            select.value = names[0]

    # --- running ---

    def action_run(self) -> None:
        matter = self.query_one("#ws-matter", Select).value
        task = self.query_one("#ws-task", Select).value
        instructions = self.query_one("#ws-instructions", TextArea).text
        if not isinstance(matter, str):
            self.set_status("Pick a matter first.")
            return
        if self.running():
            self.set_status("A run is going; Ctrl+X stops it.")
            return
        self.leave_working_copy()
        self.start_run(matter, str(task), instructions)

    def running(self) -> bool:
        return any(w.group == "pipeline" and w.is_running for w in self.workers)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Stop shows only while a run goes, Past gate only when the gate stopped one: the footer at 80
        columns keeps room for the keys that work now (F1 lists them all)."""
        if action == "cancel_run":
            return self.running()
        if action == "go_on":
            return self.run_record is not None and self.run_record.status == "stopped"
        return True

    def busy(self) -> bool:
        """While a run writes the draft, the keys that read or change the shown draft wait for it."""
        if self.running():
            self.set_status("A run is writing the draft: wait for it to finish, or Ctrl+X stops it.")
            return True
        return False

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def start_run(self, matter: str, task: str, instructions: str) -> None:
        run = await self.session.start(matter, task, instructions)
        self.run_id = run.id
        await self._execute(run)

    async def _execute(self, run: Run) -> None:
        self.draft_text, self.current = "", None
        self.marked.forget_current()
        self.flags = []
        self.run_record = None  # until the run is loaded again: the keys that act on a run wait for it
        self.reached("run-started")
        self.strip.show_run(self.config, run)
        self.marked.display = False
        await self.stream.restart(run.draft)
        self.draft_text = run.draft
        try:
            await self.session.execute(run.id, self.on_pipeline_event)
        finally:
            await self.stream.flush()
            self.stream.end()
            self.show_run(run.id)

    def on_pipeline_event(self, event: PipelineEvent) -> None:
        """The pipeline's events, on this screen's event loop, in the order it sent them."""
        if not self.is_attached:
            return  # the app closed while the run wound up: nothing is left to show it on
        if isinstance(event, DraftDelta):
            self.stream.feed(event.text)
        self.strip.show_event(self.config, event)
        if isinstance(event, StageStarted):
            self.set_status(f"{event.label} on {event.backend or 'code'} ...")
        elif isinstance(event, StageFinished):
            self.set_status(f"{event.label}: {event.summary}")
        elif isinstance(event, RunEnded):
            self.set_status(event.message)

    @on(DraftStream.Appended)
    def streamed(self, event: DraftStream.Appended) -> None:
        if self.run_record is not None:
            return  # a frame of a run that is already loaded again: its draft is the stored one
        self.draft_text += event.text
        scroll = self.query_one("#ws-draft-scroll", VerticalScroll)
        if scroll.max_scroll_y > 0 and not scroll.is_anchored:
            scroll.anchor()

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
                self.leave_working_copy()
                self.go_on_past_gate(run.id, reason)

        self.app.push_screen(ReasonScreen(gate_question(run)), go)

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def go_on_past_gate(self, run_id: int, reason: str) -> None:
        await self._execute(await self.session.go_on(run_id, reason))

    # --- the finished run: marked draft and flags ---

    def show_run(self, run_id: int) -> None:
        """Load the run again and show it; its flags and marked draft (wrapped into rows) are built off the loop."""
        self._load(run_id, self.marked.wrapper())

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load(self, run_id: int, wrap: Wrap) -> None:
        self.app.call_from_thread(self._show_loaded, LoadedRun.prepare(*self.session.load(run_id), wrap=wrap))

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def restore(self) -> None:
        """Reopen what was open: the last run, the attorney's edited text, the cursor, and its flags."""
        loaded = self.session.reopen()
        if loaded is not None:
            self.app.call_from_thread(self._show_loaded, LoadedRun.prepare(*loaded))

    def _show_loaded(self, loaded: LoadedRun) -> None:
        run, saved = loaded.run, loaded.saved
        self.run_record, self.run_id = run, run.id
        self.refresh_bindings()  # Past gate shows when the gate stopped this run
        self.session.forget_indexes()
        if run.matter not in self.matters:
            self._show_matters([*self.matters, run.matter])
        self.query_one("#ws-matter", Select).value = run.matter
        self.query_one("#ws-task", Select).value = run.task_type
        instructions = self.query_one("#ws-instructions", TextArea)
        if instructions.text != run.instructions:
            instructions.text = run.instructions
        self.strip.show_run(self.config, run)
        self.model_draft = self.draft_text = self.marked.text = run.draft
        self.current = None
        self.marked.forget_current()
        if loaded.marked is not None:  # drawn once, below, with this run's flags
            self.stream.display = self.marked.display = False
        self.flags = loaded.flags
        if self.flags:
            self.query_one(FlagList).focus()
        if loaded.marked is not None:
            self.marked.show(self.draft_text, loaded.marked, loaded.rows)
        if run.status in ("completed", "stopped"):
            self.reached(f"run-{run.status}")
        elif run.status != "created":
            self.reached("run-ended")  # failed, refused or cancelled: the guide says so, not the step before
        if loaded.marked is None and saved is None:  # stopped before its verification: the draft it reached
            self.run_worker(self.stream.show_stored(run.draft), group="load-draft", exit_on_error=False)
        if saved is not None:
            self.draft_text = saved.text
            self.open_editor(saved.cursor)
            self._restored = True
            self.action_verify_now()
            self.set_status(
                f"Run {run.id} reopened in the editor with your edits of {saved.saved_at[:19]} (verifying ...). "
                "Ctrl+R lists earlier versions."
            )
            self.runs_finished += 1
            return
        blocking = sum(f.blocking for f in self.flags)
        if run.status == "stopped":
            self.set_status("The gate found no basis. Ctrl+O goes on anyway with a written reason.")
        elif run.status == "completed":
            self.set_status(
                f"Run {run.id} done: {len(self.flags)} flags, {blocking} blocking. n/N jump, Enter opens one."
            )
        self.runs_finished += 1

    def reached(self, step: str, *, blocking: int = 0) -> None:
        """Announce a step of the loop; the guide, if there is one, hears it first (it bubbles on up)."""
        (self.guide or self).post_message(self.StepReached(step, blocking))

    def action_instructions(self) -> None:
        self.query_one("#ws-instructions", TextArea).focus()

    def action_inspect_context(self) -> None:
        from tui.drafting.context_inspector import ContextScreen

        if self.run_record is None:
            self.set_status("There is no run to inspect yet.")
            return
        self.app.push_screen(ContextScreen(self.run_record))

    def set_status(self, text: str) -> None:
        self.query_one("#ws-status", Static).update(text)

    @on(Worker.StateChanged)
    def stop_key_follows_the_run(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "pipeline":
            self.refresh_bindings()  # Stop comes and goes with the run

    def failure_line(self, worker: Worker[object]) -> str:
        """A run the pipeline stopped midway (the server died mid-draft) kept what it had written: say so."""
        kept = worker.group == "pipeline" and isinstance(worker.error, ChambersError) and self.draft_text
        return super().failure_line(worker) + (" The partial draft is kept." if kept else "")
