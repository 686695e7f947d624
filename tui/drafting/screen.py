"""The drafting screen (F4): ask, watch the draft arrive, see every flag where it is written.

The screen keeps the run and the headless ``DraftingSession``, which does the work off the event loop
(the pipeline in an async worker, whose disk and verifier work go to threads; everything else in
thread workers); three parts, each with its own state and workers, do the rest and tell the screen
what happened by message:

- the pickers and the instructions say what to draft; Ctrl+G runs the pipeline, and
  ``PipelineStrip`` shows each stage as its events arrive;
- ``DraftWorkspace`` holds the attorney's text: the draft as it streams, then loaded again (marked,
  and cut into rows, in a worker), his working copy in the editor, autosaved, and its versions;
- ``FlagPane`` lists the flags (the marked draft shows them too): n/N jump, Enter opens one with its
  evidence or the reviewer's argument; his text is verified again as he pauses;
- ``FinishBar``: F7 redlines his text against the model's draft, F8 accepts it, F9 exports it.

The keys stay bound here, where Textual finds them wherever the focus is, and are handed to the part
that does the work. Each step of the loop is announced as a ``StepReached`` message, which a guide
(the demo's) listens for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Footer, Header, Static, TextArea
from textual.worker import Worker, get_current_worker

from drafting.events import DraftDelta, PipelineEvent, RunEnded, StageFinished, StageStarted
from drafting.flags import FlagView
from drafting.runs import Run
from drafting.session import DraftingSession
from tui.drafting.dialogs import ReasonScreen, gate_question
from tui.drafting.editor import DraftEditor
from tui.drafting.finish_bar import FinishBar, stopped_line
from tui.drafting.flag_pane import FlagPane
from tui.drafting.flags import FlagList, Wrap
from tui.drafting.parts import Reached, Status
from tui.drafting.pickers import RunPickers
from tui.drafting.pipeline_strip import PipelineStrip
from tui.drafting.screen_keys import DRAFTING_KEYS
from tui.drafting.view import LoadedRun
from tui.drafting.workspace import DraftWorkspace
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.key_text import KeyText
from workspace.config import Config
from workspace.errors import ChambersError


def guide_step(run: Run) -> str | None:
    """The step of the drafting loop a run shown again has reached, for the guide line: completed,
    stopped by the gate, or ended (failed, refused or cancelled). A run cancelled after its draft was
    finished (the review skipped) reached the draft: the guide goes on to editing it, not to drafting
    again."""
    if run.status in ("completed", "stopped"):
        return f"run-{run.status}"
    if run.status == "created":
        return None
    return "run-completed" if run.completed("draft") is not None else "run-ended"


class DraftingScreen(ChambersScreen):
    """Matter, task and instructions in; the pipeline strip, the streamed draft and its flags out."""

    @dataclass
    class StepReached(Message):
        """A step of the drafting loop happened: run-started, run-completed, run-stopped, run-ended,
        verified (with how many flags block), flag-opened, accepted, exported."""

        step: str
        blocking: int = 0

    SUB_TITLE = "Drafting"
    FOOTER_FIRST = (
        "run",
        "cancel_run",
        "go_on",
        "toggle_editor",
        "verify_now",
        "redline",
        "accept",
        "export",
    )

    BINDINGS = DRAFTING_KEYS
    # Under 36 rows the editor takes the rows of the pickers and the instructions while it is shown
    # (see chambers.tcss): at 80x24 the strip, the flags and the footer left it five rows otherwise.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]

    def __init__(
        self,
        session: DraftingSession,
        *,
        guide: Widget | None = None,
        task: str | None = None,
        instructions: str = "",
    ) -> None:
        """``session`` is wired by whoever opens the screen (``tui.drafting.wiring``); ``guide`` is shown
        above the status line and gets each ``StepReached``; ``task`` and ``instructions`` fill the
        boxes in (a run reopened puts its own back)."""
        super().__init__()
        self.session = session
        self.guide = guide
        self._start_task, self._start_instructions = task, instructions
        self.run_id: int | None = None
        self.run_record: Run | None = None
        self._flag_wanted: tuple[int, int] | None = None  # (run, flag) to jump to once that run is shown
        self.pickers = RunPickers(self.session, id="ws-pickers")
        self.workspace = DraftWorkspace(self.session, id="ws-workspace")
        self.flag_pane = FlagPane(self.session, lambda: self.workspace.text, id="ws-flag-pane")
        self.finish_bar = FinishBar(self.session, id="ws-finish")

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
        yield self.pickers
        yield TextArea(id="ws-instructions", placeholder="What to draft (Ctrl+G runs the pipeline)")
        yield PipelineStrip(id="ws-strip")
        with Horizontal(id="ws-body"):
            yield self.workspace
            yield self.flag_pane
        if self.guide is not None:
            yield self.guide
        yield self.finish_bar
        yield KeyText("Pick a matter and a task, write the instructions, Ctrl+G drafts.", id="ws-status")
        yield Footer()

    def on_mount(self) -> None:
        self.strip = self.query_one(PipelineStrip)
        self.watch(self.flag_pane, "flags", self._mark_flags, init=False)  # the marked draft shows them too
        self.query_one("#ws-instructions").border_title = "Instructions"
        if self._start_task is not None:
            self.pickers.task_type = self._start_task
        if self._start_instructions:
            self.query_one("#ws-instructions", TextArea).text = self._start_instructions
        self.restore()
        self.query_one("#ws-instructions", TextArea).focus()

    def _mark_flags(self, flags: list[FlagView]) -> None:
        marked = self.workspace.marked
        marked.text = self.flag_pane.text
        marked.forget_current()
        marked.flags = flags

    # --- running ---

    def action_run(self) -> None:
        matter, instructions = self.pickers.matter, self.query_one("#ws-instructions", TextArea).text
        if matter is None:
            self.set_status("Pick a matter first.")
            return
        if self.running():
            self.set_status("A run is going; Ctrl+X stops it.")
            return
        self.workspace.leave()
        self.start_run(matter, self.pickers.task_type, instructions)

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

    def shown_run(self, what: str) -> Run | None:
        """The run the keys act on; None while one is written, or when there is none (``what`` says so)."""
        if not self.busy() and self.run_record is None:
            self.set_status(what)
        return None if self.running() else self.run_record

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def start_run(self, matter: str, task: str, instructions: str) -> None:
        run = await self.session.start(matter, task, instructions)
        self.run_id = run.id
        await self._execute(run)

    async def _execute(self, run: Run) -> None:
        self.run_record = None  # until the run is loaded again: the keys that act on a run wait for it
        self.flag_pane.show(None, [], "")
        self.reached("run-started")
        self.strip.show_run(self.config, run)
        await self.workspace.stream_run(run.id, run.draft)
        try:
            await self.session.execute(run.id, self.on_pipeline_event)
        finally:
            await self.workspace.end_stream()
            self.show_run(run.id)

    def on_pipeline_event(self, event: PipelineEvent) -> None:
        """The pipeline's events, on this screen's event loop, in the order it sent them."""
        if not self.is_attached:
            return  # the app closed while the run wound up: nothing is left to show it on
        if isinstance(event, DraftDelta):
            self.workspace.stream.feed(event.text)
        self.strip.show_event(self.config, event)
        if isinstance(event, StageStarted):
            self.set_status(f"{event.label} on {event.backend or 'code'} ...")
        elif isinstance(event, StageFinished):
            self.set_status(f"{event.label}: {event.summary}")
        elif isinstance(event, RunEnded):
            self.set_status(event.message)

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
                self.workspace.leave()
                self.go_on_past_gate(run.id, reason)

        self.app.push_screen(ReasonScreen(gate_question(run)), go)

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def go_on_past_gate(self, run_id: int, reason: str) -> None:
        await self._execute(await self.session.go_on(run_id, reason))

    # --- the finished run, handed to the parts ---

    def show_run(self, run_id: int, flag: int | None = None) -> Worker[None]:
        """Load the run again and show it (once the worker is done), at its flag number ``flag`` if given;
        its flags and rows are built off the loop."""
        self._flag_wanted = (run_id, flag) if flag is not None else None
        return self._load(run_id, self.workspace.marked.wrapper())

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load(self, run_id: int, wrap: Wrap) -> None:
        loaded = LoadedRun.prepare(*self.session.load(run_id), wrap=wrap)
        if not get_current_worker().is_cancelled:  # a later load (another run asked for) shows its own
            self.app.call_from_thread(self._show_loaded, loaded)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def restore(self) -> None:
        """Reopen what was open: the last run, the attorney's edited text, the cursor, and its flags."""
        loaded = self.session.reopen()
        if loaded is not None and not get_current_worker().is_cancelled:  # a run asked for since wins
            self.app.call_from_thread(self._show_loaded, LoadedRun.prepare(*loaded))

    def _show_loaded(self, loaded: LoadedRun) -> None:
        run, saved = loaded.run, loaded.saved
        self.run_record, self.run_id = run, run.id
        self.refresh_bindings()  # Past gate shows when the gate stopped this run
        self.session.forget_indexes()
        self.pickers.choose(run.matter, run.task_type)
        instructions = self.query_one("#ws-instructions", TextArea)
        if instructions.text != run.instructions:
            instructions.text = run.instructions
        self.strip.show_run(self.config, run)
        workspace, flags = self.workspace, loaded.flags
        workspace.load(run.id, run.draft, marked=loaded.marked is not None)
        self.flag_pane.show(run, flags, run.draft)
        if flags:
            self.query_one(FlagList).focus()
        if loaded.marked is not None:
            workspace.marked.show(run.draft, loaded.marked, loaded.rows)
        step = guide_step(run)
        if step is not None:
            self.reached(step)
        if loaded.marked is None and saved is None:  # stopped before its verification: the draft it reached
            workspace.show_stored(run.draft)
        if saved is not None:
            workspace.reopen(saved)
            self.action_verify_now()
            self.set_status(
                f"Run {run.id} reopened in the editor with your edits of {saved.saved_at[:19]} (verifying ...). "
                "Ctrl+R lists earlier versions."
            )
        elif run.status == "stopped":
            self.set_status("The gate found no basis. Ctrl+O goes on anyway with a written reason.")
        elif run.status in ("cancelled", "interrupted"):  # Ctrl+X, or the app closed while it wrote
            self.set_status(stopped_line(run))
        elif run.status == "completed":
            blocking = sum(f.blocking for f in flags)
            self.set_status(
                f"Run {run.id} done: {len(flags)} flags, {blocking} blocking. n/N jump, Enter opens one."
            )
        wanted, self._flag_wanted = self._flag_wanted, None
        if wanted is not None and wanted[0] == run.id:
            self.flag_pane.jump_to(wanted[1])

    # --- what the parts tell the screen ---

    @on(Status)
    def say(self, message: Status) -> None:
        self.set_status(message.text)

    @on(Reached)
    def step(self, message: Reached) -> None:
        self.reached(message.step, blocking=message.blocking)

    @on(DraftWorkspace.Editing)
    def give_the_editor_room(self, message: DraftWorkspace.Editing) -> None:
        self.set_class(message.shown, "-editing")

    @on(FlagPane.Jumped)
    def show_flag(self, message: FlagPane.Jumped) -> None:
        self.workspace.show_flag(message.index, message.flag)

    @on(FinishBar.RedlineReady)
    def show_redline(self, message: FinishBar.RedlineReady) -> None:
        self.workspace.show_redline(message.text)

    def on_draft_editor_verify_due(self, event: DraftEditor.VerifyDue) -> None:
        if event.run_id == self.run_id:
            self.action_verify_now()

    def reached(self, step: str, *, blocking: int = 0) -> None:
        """Announce a step of the loop; the guide, if there is one, hears it first (it bubbles on up)."""
        (self.guide or self).post_message(self.StepReached(step, blocking))

    # --- the keys, each handed to the part that does it ---

    def action_next_flag(self) -> None:
        self.flag_pane.jump(1)

    def action_previous_flag(self) -> None:
        self.flag_pane.jump(-1)

    def action_toggle_editor(self) -> None:
        if self.shown_run("There is no draft to edit yet.") and self.workspace.toggle_editor():
            self.query_one(FlagList).focus()

    def action_verify_now(self) -> None:
        if run := self.shown_run("There is no draft to verify yet."):
            self.flag_pane.verify(run, self.workspace.text)

    def action_versions(self) -> None:
        if self.shown_run("There is no draft yet, so no versions of it."):
            self.workspace.list_versions()

    def action_redline(self) -> None:
        workspace = self.workspace
        if workspace.redline_shown:
            workspace.hide_redline()
        elif not self.shown_run("There is no draft yet."):
            return
        elif workspace.text == workspace.model_draft:
            self.set_status("No changes yet: your text is the model's draft. Ctrl+T edits it.")
        else:
            self.finish_bar.redline(workspace.model_draft, workspace.text)

    def action_accept(self) -> None:
        if run := self.shown_run("There is no draft to accept yet."):
            self.finish_bar.accept(run, self.workspace.text)

    def action_export(self) -> None:
        if run := self.shown_run("There is no draft to export yet."):
            text, blocking = self.workspace.text, self.flag_pane.blocking()
            self.finish_bar.export(run, self.workspace.model_draft, text, blocking)

    def action_instructions(self) -> None:
        self.remove_class("-editing")  # put away for the editor's sake: Ctrl+E shows them again
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
        kept = worker.group == "pipeline" and isinstance(worker.error, ChambersError) and self.workspace.text
        return super().failure_line(worker) + (" The partial draft is kept." if kept else "")
