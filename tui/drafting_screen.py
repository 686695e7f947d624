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

import asyncio
import gc
import threading
import time
from functools import partial
from pathlib import Path

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Footer, Header, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from drafting.events import (
    DraftDelta,
    PipelineEvent,
    RunEnded,
    StageFinished,
    StageProgress,
    StageStarted,
    StageTokens,
)
from drafting.pipeline import Pipeline, PipelineOptions
from drafting.runs import Run
from drafting.store import RunStore
from drafting.tasks import DRAFT, TASKS
from drafting.verify import MatterIndex, Report, load_matter_index
from evidence import schema as evidence_schema
from evidence.matters import list_matters
from exhibits.registry import issued_productions
from tui import autosave
from tui.accept_dialog import AcceptLabels
from tui.drafting_dialogs import ConfirmScreen, FlagScreen, ReasonScreen, gate_question
from tui.drafting_editor import DraftEditor
from tui.drafting_versions import Choice, VersionsScreen, choices
from tui.drafting_view import FlagView, Strip, board_of, flag_line, flags_of, marked_lines, strip_from_run
from tui.drafting_work import Exports, export_draft, first_change, override, redline_text, reverify
from tui.key_order import RoomScreen
from tui.screens import error_screen
from workspace.audit import AuditLog
from workspace.config import Config
from workspace.database import connect
from workspace.errors import ChambersError

SAVE_QUIET_S = 1.0  # autosave this long after the last keystroke (and never later than 2 s after an edit)
VERIFY_QUIET_S = 1.5  # re-verify this long after the last keystroke
STREAM_PIECES_SHOWN = 2
CHUNK_CHARS = 1500  # a streamed Markdown piece grows to about this, then a new one starts
FRAME_S = 1 / 30  # how often streamed text is appended to the view
SPEED_EVERY_S = 0.25


class DraftingScreen(RoomScreen):
    """Matter, task and instructions in; the pipeline strip, the streamed draft and its flags out."""

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
        self.model_draft = ""  # what the model wrote; draft_text is the attorney's version
        self.report: Report | None = None
        self.saves = 0  # autosaves written (tests wait on it)
        self.verifies = 0
        self.accepted_pair: int | None = None
        self.exported: Path | None = None  # the Markdown export; exports has all three files
        self.exports: Exports | None = None
        self._dirty_since: float | None = None
        self._save_timer: Timer | None = None
        self._verify_timer: Timer | None = None
        self.current: int | None = None
        self.strip = Strip()
        self.runs_finished = 0  # tests wait on it
        self._pending: list[str] = []
        self._appending = False
        self._tokens = 0
        self._first_token_at = 0.0
        self._last_speed = 0.0
        self._piece: Static | None = None  # the streamed piece that finished paragraphs join
        self._piece_source = ""
        self._tail = ""  # the paragraph still being written: the only text parsed on every frame
        self._words_above = 0  # in the pieces dropped while streaming (a line at the top says so)
        self._heap_frozen = False
        self._indexes: dict[str, MatterIndex] = {}  # the verifier's view of each matter, see _matter_index
        self._editor_run: int | None = None  # whose working copy the editor holds, see _open_editor
        self._restored = False  # the editor was opened by reopening the run, not by Ctrl+T
        self._save_lock = threading.Lock()

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
                with Vertical(id="ws-stream"):
                    yield Static("", id="ws-stream-above", markup=False)
                    yield Static("", id="ws-draft")
                yield Vertical(id="ws-marked")
                yield Static("", id="ws-redline", markup=False)
            yield DraftEditor(id="ws-editor", soft_wrap=True)
            yield OptionList(id="ws-flags")
        yield Static("Pick a matter and a task, write the instructions, Ctrl+G drafts.", id="ws-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#ws-draft-scroll").border_title = "Draft"
        self.query_one("#ws-flags").border_title = "Flags"
        self.query_one("#ws-instructions").border_title = "Instructions"
        self.query_one("#ws-marked").display = False
        self.query_one("#ws-editor").display = False
        self.query_one("#ws-redline").display = False
        self.query_one("#ws-stream-above").display = False
        self.set_interval(FRAME_S, self._flush)
        self.load_matters()
        self.restore()
        self.query_one("#ws-instructions", TextArea).focus()

    # --- pickers ---

    @work(thread=True, exclusive=True, group="matters", exit_on_error=False)
    def load_matters(self) -> None:
        if not self.database_file.exists():
            self.app.call_from_thread(
                self.set_status, "No matters yet: create one with `chambers matter new`."
            )
            return
        db = connect(self.database_file, evidence_schema.SCHEMA)
        try:
            names = [m.name for m in list_matters(db) if not m.name.endswith("authorities")]
        finally:
            db.close()
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
        self._leave_working_copy()
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

    def _busy(self) -> bool:
        """While a run writes the draft, the keys that read or change the shown draft wait for it."""
        if self.running():
            self.set_status("A run is writing the draft: wait for it to finish, or Ctrl+X stops it.")
            return True
        return False

    def _leave_working_copy(self) -> None:
        """Before the pane shows another run: save the attorney's text of this one under this run's id
        (not the next run's), and empty the editor, so one pane never holds two runs' text."""
        for timer in (self._save_timer, self._verify_timer):
            if timer is not None:
                timer.stop()
        self._autosave()
        editor = self.query_one("#ws-editor", TextArea)
        editor.display = False
        self.query_one("#ws-redline").display = False
        self.query_one("#ws-draft-scroll").display = True
        self._editor_run = None

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def start_run(self, matter: str, task: str, instructions: str) -> None:
        pipe = self._pipeline()
        run = pipe.start(matter, task, instructions)
        self.run_id = run.id
        await asyncio.to_thread(autosave.set_last_run, self.database_file, run.id)
        await self._execute(pipe, run)

    def _pipeline(self) -> Pipeline:
        return Pipeline(
            self.config,
            self.database_file,
            options=self.options,
            on_event=self.on_pipeline_event,
            audit=self.audit,
            issued_ranges=partial(issued_productions, self.database_file),
        )

    async def _execute(self, pipe: Pipeline, run: Run) -> None:
        self.flags, self.current, self.draft_text, self._pending = [], None, "", []
        self.run_record = None  # until the run is loaded again: the keys that act on a run wait for it
        self.reached("run-started")
        self.strip = strip_from_run(self.config, run)
        self._show_strip()
        self.query_one("#ws-flags", OptionList).clear_options()
        self.query_one("#ws-marked").display = False
        await self.query(".ws-draft-chunk").remove()
        self.query_one("#ws-stream").display = True
        self._piece, self._piece_source, self._tail, self._words_above = None, "", "", 0
        self.query_one("#ws-stream-above").display = False
        await self._append(run.draft)
        self.draft_text = run.draft
        try:
            await pipe.execute(run.id)
        except ChambersError:
            if self.draft_text:
                self.set_status("Stopped. The partial draft is kept (see the error).")
            raise
        finally:
            await self._flush()
            self._unfreeze_heap()
            self.show_run(run.id)

    def on_pipeline_event(self, event: PipelineEvent) -> None:
        """Called by the pipeline on this screen's event loop, between its awaits."""
        if isinstance(event, DraftDelta):
            self._pending.append(event.text)
            now = time.perf_counter()
            if self._tokens == 0:
                self._first_token_at = now
                self._freeze_heap()
            self._tokens += 1
            if now - self._last_speed >= SPEED_EVERY_S and now > self._first_token_at:
                self._last_speed = now
                rate = (self._tokens - 1) / (now - self._first_token_at)
                self.strip.get(DRAFT).speed = f"{self._tokens} tok, {rate:.1f} tok/s"
                self._show_strip()
        elif isinstance(event, StageTokens):
            # The router, gate and reviewer write JSON without showing it: the count says they are writing.
            now = time.perf_counter()
            if event.tokens == 1:
                self._first_token_at = now
            if now - self._last_speed >= SPEED_EVERY_S or event.tokens == 1:
                self._last_speed = now
                elapsed = now - self._first_token_at
                speed = (
                    f", {(event.tokens - 1) / elapsed:.1f} tok/s" if elapsed > 0 and event.tokens > 1 else ""
                )
                self.strip.get(event.stage).speed = f"{event.tokens} tok{speed}"
                self._show_strip()
        elif isinstance(event, StageProgress):
            # A long prompt on a busy server reads for a minute or more: the strip says how far it is.
            self.strip.get(event.stage).speed = f"reading {event.total:,} tok: {event.fraction:.0%}"
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
            await self._append(text)
            scroll = self.query_one("#ws-draft-scroll", VerticalScroll)
            if scroll.max_scroll_y > 0 and not scroll.is_anchored:
                scroll.anchor()
        finally:
            self._appending = False

    async def _append(self, text: str) -> None:
        """Re-render only what this frame changed: the unfinished paragraph, and the piece it joins when done.

        Textual's ``Markdown.append`` builds and mounts block widgets on every frame (and drops some: a few
        hundred objects of cyclic garbage a frame, whose full collections stalled the loop for 150 ms and
        more), so the stream is drawn with Rich's Markdown in plain Statics instead: the paragraph being
        written is parsed again each frame (a few hundred characters at most), a finished one once more
        as part of its piece, and a piece is never parsed again once the next one starts.
        """
        buffer = self._tail + text
        cut = buffer.rfind("\n\n")
        if cut >= 0:
            await self._finish(buffer[: cut + 2])
            buffer = buffer[cut + 2 :]
        self._tail = buffer
        self.query_one("#ws-draft", Static).update(RichMarkdown(buffer))

    async def _finish(self, paragraphs: str) -> None:
        """Add finished paragraphs to the current piece; past CHUNK_CHARS, start a new one."""
        stream = self.query_one("#ws-stream")
        if self._piece is None or len(self._piece_source) > CHUNK_CHARS:
            self._piece, self._piece_source = Static(classes="ws-draft-chunk"), ""
            await stream.mount(self._piece, before=self.query_one("#ws-draft"))
            # While streaming only the last pieces are kept (the whole draft is shown, marked, at the end),
            # so a frame costs the same at token 12,000 as at token 100, and the widget count stays flat.
            pieces = stream.query_children(".ws-draft-chunk").results(Static)
            dropped = list(pieces)[:-STREAM_PIECES_SHOWN]
            if dropped:
                self._words_above += sum(
                    len(p.content.markup.split()) for p in dropped if isinstance(p.content, RichMarkdown)
                )
                await stream.remove_children(dropped)
                above = self.query_one("#ws-stream-above", Static)
                above.update(f"… {self._words_above:,} words above, shown in full when the draft is done")
                above.display = True
        self._piece_source += paragraphs
        self._piece.update(RichMarkdown(self._piece_source))

    def _freeze_heap(self) -> None:
        """Keep the objects alive before the stream out of the garbage collector's full passes while it runs.

        The app holds some 200,000 objects, and drawing 30 frames a second promotes enough short-lived
        ones that Python runs a full collection about once a second, each over all of them: 100-200 ms
        with the loop stopped, the stream's worst stalls. Frozen, they are skipped, so a full pass only
        walks what the stream made (tens of ms at most); ``gc.unfreeze`` puts them back when it ends.
        """
        if not self._heap_frozen:
            gc.freeze()
            self._heap_frozen = True

    def _unfreeze_heap(self) -> None:
        if self._heap_frozen:
            gc.unfreeze()
            self._heap_frozen = False

    def on_unmount(self) -> None:
        self._unfreeze_heap()

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
                self._leave_working_copy()
                self.go_on_past_gate(run.id, reason)

        self.app.push_screen(ReasonScreen(gate_question(run)), go)

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def go_on_past_gate(self, run_id: int, reason: str) -> None:
        pipe = self._pipeline()
        run = pipe.choose(run_id, go_on_anyway=reason)
        await self._execute(pipe, run)

    # --- the finished run: marked draft and flags ---

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def show_run(self, run_id: int) -> None:
        run = RunStore(self.database_file).load(run_id)
        saved = autosave.load(self.database_file, run_id)
        self.app.call_from_thread(self._show_loaded, run, saved)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def restore(self) -> None:
        """Reopen what was open: the last run, the attorney's edited text, the cursor, and its flags."""
        run_id = autosave.last_run(self.database_file)
        if run_id is None:
            return
        run = RunStore(self.database_file).load(run_id)
        saved = autosave.load(self.database_file, run_id)
        self.app.call_from_thread(self._show_loaded, run, saved)

    def _show_loaded(self, run: Run, saved: autosave.Saved | None = None) -> None:
        self.run_record, self.run_id = run, run.id
        self.refresh_bindings()  # Past gate shows when the gate stopped this run
        self._indexes = {}
        if run.matter not in self.matters:
            self._show_matters([*self.matters, run.matter])
        self.query_one("#ws-matter", Select).value = run.matter
        self.query_one("#ws-task", Select).value = run.task_type
        instructions = self.query_one("#ws-instructions", TextArea)
        if instructions.text != run.instructions:
            instructions.text = run.instructions
        self.strip = strip_from_run(self.config, run)
        self._show_strip()
        self.model_draft = self.draft_text = run.draft
        self.flags = flags_of(run)
        self.current = None
        options = self.query_one("#ws-flags", OptionList)
        options.clear_options()
        options.add_options([Option(Text(f.label()), id=str(i)) for i, f in enumerate(self.flags)])
        if self.flags:
            options.focus()
        if run.completed("verify") is not None:
            self.query_one("#ws-stream").display = False
            self.query_one("#ws-marked").display = True
            self._render_marked()
        if run.status in ("completed", "stopped"):
            self.reached(f"run-{run.status}")
        elif run.status != "created":
            self.reached("run-ended")  # failed, refused or cancelled: the guide says so, not the step before
        if saved is not None:
            self.draft_text = saved.text
            self._open_editor(saved.cursor)
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

        def reason_given(reason: str | None) -> None:
            if reason and self.run_record is not None and flag.key:
                self.override_flag(self.run_record, self.draft_text, flag.key, reason)

        def after(answer: str | None) -> None:
            if answer == "read" and self.run_record is not None and flag.evidence:
                pointer = flag.evidence[0]
                self.read_evidence(
                    self.run_record.matter,
                    str(pointer.get("file", "")),
                    int(pointer.get("page") or 0),
                    flag.text,
                )
            if answer == "override":
                self.app.push_screen(
                    ReasonScreen(f"Why may {flag.text!r} stand? ({flag.message})"), reason_given
                )

        matter = self.run_record.matter if self.run_record is not None else None
        self.app.push_screen(FlagScreen(flag, self.database_file, matter), after)
        self.reached("flag-opened")

    @work(thread=True, exclusive=True, group="read", exit_on_error=False)
    def read_evidence(self, matter: str, file_name: str, page_no: int, words: str) -> None:
        from evidence.pages import find_page
        from tui.evidence_views import ReadingScreen, page_body, page_heading, page_subtitle

        view = find_page(self.database_file, matter, file_name, page_no)
        if view is None:
            self.app.call_from_thread(
                self.set_status, f"{file_name}, page {page_no} is no longer in the index."
            )
            return
        screen = ReadingScreen(page_heading(view, view.path), page_subtitle(view), page_body(view, words))
        self.app.call_from_thread(self.app.push_screen, screen)

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def override_flag(self, run: Run, text: str, key: str, reason: str) -> None:
        report, flags = override(self.database_file, run, text, self._matter_index(run.matter), key, reason)
        self.app.call_from_thread(self._verified, text, report, flags)

    # --- editing: autosave and re-verify, both debounced, both in thread workers ---

    def action_toggle_editor(self) -> None:
        editor = self.query_one("#ws-editor", TextArea)
        if self._busy():
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
            self.query_one("#ws-stream").display = False
            self.query_one("#ws-marked").display = True
            self._render_marked()
            self.query_one("#ws-flags", OptionList).focus()
        else:
            self._open_editor(None)

    def _open_editor(self, cursor: tuple[int, int] | None) -> None:
        """Show the editor. It is loaded only when it holds no text of this run: between Ctrl+T presses
        and screen switches it keeps its own text and undo history, and that text is the working copy."""
        editor = self.query_one("#ws-editor", TextArea)
        if self._editor_run != self.run_id:
            editor.load_text(self.draft_text)  # a fresh undo history: undo stops at the text loaded
            self._editor_run = self.run_id
        elif editor.text != self.draft_text:
            self.draft_text = editor.text
        self.query_one("#ws-draft-scroll").display = False
        editor.display = True
        if cursor is not None:
            editor.move_cursor(cursor)
        editor.focus()

    @on(TextArea.Changed, "#ws-editor")
    def edited(self, event: TextArea.Changed) -> None:
        if event.text_area.text == self.draft_text or self._editor_run != self.run_id:
            return
        self._restored = False
        self.draft_text = event.text_area.text
        now = time.monotonic()
        if self._dirty_since is None:
            self._dirty_since = now
        for timer in (self._save_timer, self._verify_timer):
            if timer is not None:
                timer.stop()
        # A second after the last keystroke, or now if unsaved edits are already that old: at most 2 s lost.
        # Never a 0 s timer: Textual's timer divides by its interval and fails with ZeroDivisionError.
        wait = max(0.01, min(SAVE_QUIET_S, autosave.DEBOUNCE_S - 0.25 - (now - self._dirty_since)))
        self._save_timer = self.set_timer(wait, self._autosave)
        self._verify_timer = self.set_timer(VERIFY_QUIET_S, self.action_verify_now)

    def _autosave(self) -> None:
        if self.run_id is None or self._dirty_since is None:
            return
        self._dirty_since = None
        cursor = self.query_one("#ws-editor", TextArea).cursor_location
        self.save_draft(self.run_id, self.draft_text, cursor)

    @work(thread=True, group="autosave", exit_on_error=False)
    def save_draft(self, run_id: int, text: str, cursor: tuple[int, int], new_version: bool = False) -> None:
        with self._save_lock:  # one save at a time: two never interleave their reads and writes
            replaced = autosave.save(
                self.database_file, run_id, text, cursor, new_version=new_version, previous=self.model_draft
            )
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
        if self._busy():
            return
        if self.run_record is None:
            self.set_status("There is no draft to verify yet.")
            return
        self.verify_edit(self.run_record, self.draft_text)

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def verify_edit(self, run: Run, text: str) -> None:
        report, flags = reverify(self.database_file, run, text, self._matter_index(run.matter))
        self.app.call_from_thread(self._verified, text, report, flags)

    def _matter_index(self, matter: str) -> MatterIndex:
        """The matter read into the verifier's indexes once per shown run, not at every pause in the typing.

        Called in the verify workers (one at a time: their group is exclusive); a run shown again, or a
        new one, reads the matter afresh, so a re-ingest is picked up there.
        """
        index = self._indexes.get(matter)
        if index is None:
            issued = issued_productions(self.database_file, matter)
            index = self._indexes[matter] = load_matter_index(self.database_file, matter, productions=issued)
        return index

    def _verified(self, text: str, report: Report, flags: list[FlagView]) -> None:
        self.verifies += 1
        if text != self.draft_text:
            return  # typed on meanwhile: the next verify is already scheduled
        self.report, self.flags, self.current = report, flags, None
        options = self.query_one("#ws-flags", OptionList)
        options.clear_options()
        options.add_options([Option(Text(f.label()), id=str(i)) for i, f in enumerate(flags)])
        if self.query_one("#ws-marked").display:
            self._render_marked()
        blocking = sum(f.blocking for f in flags)
        self.set_status(f"Verified: {len(flags)} flags, {blocking} blocking.")
        self.reached("verified", blocking=blocking)

    def action_versions(self) -> None:
        if self._busy():
            return
        if self.run_record is None or self.run_id is None:
            self.set_status("There is no draft yet, so no versions of it.")
            return
        # What is in the editor now is saved first, so it is the newest version listed.
        unsaved = self.draft_text if self._dirty_since is not None else None
        self._dirty_since = None
        cursor = self.query_one("#ws-editor", TextArea).cursor_location
        self.list_versions(self.run_id, self.model_draft, unsaved, cursor)

    @work(thread=True, exclusive=True, group="versions", exit_on_error=False)
    def list_versions(
        self, run_id: int, model_draft: str, unsaved: str | None, cursor: tuple[int, int]
    ) -> None:
        with self._save_lock:
            if unsaved is not None:
                autosave.save(self.database_file, run_id, unsaved, cursor)
            kept = autosave.versions(self.database_file, run_id)
        self.app.call_from_thread(self._pick_version, run_id, choices(kept, model_draft))

    def _pick_version(self, run_id: int, listed: list[Choice]) -> None:
        def chosen(text: str | None) -> None:
            if text is None or run_id != self.run_id:
                return
            self._open_editor(None)
            editor = self.query_one("#ws-editor", TextArea)
            if text == editor.text:
                self.set_status("That version is the text you have.")
                return
            editor.replace(text, (0, 0), editor.document.end)  # one edit: Ctrl+Z takes it back
            self._dirty_since = None
            self.save_draft(run_id, text, editor.cursor_location, new_version=True)
            self.set_status("Version put back. Ctrl+Z undoes that; Ctrl+R lists the versions again.")

        self.app.push_screen(VersionsScreen(listed), chosen)

    # --- redline, accept, export ---

    def action_redline(self) -> None:
        view = self.query_one("#ws-redline", Static)
        if view.display:
            view.display = False
            self.query_one("#ws-marked").display = True
            self._render_marked()
            return
        if self._busy():
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
        self.query_one("#ws-editor").display = False
        self.query_one("#ws-stream").display = False
        self.query_one("#ws-marked").display = False
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
        if self._busy():
            return
        if self.run_record is None:
            self.set_status("There is no draft to accept yet.")
            return
        self.accept(self.run_record, self.draft_text)

    @work(thread=True, exclusive=True, group="accept", exit_on_error=False)
    def accept(self, run: Run, text: str) -> None:
        from corrections.from_run import capture_from_run

        result = capture_from_run(self.database_file, run, text)
        self.app.call_from_thread(self._accepted, result.pair_id, result.stored, result.redline.edit_ratio)

    def _accepted(self, pair_id: int, stored: bool, ratio: float) -> None:
        self.accepted_pair = pair_id
        what = "stored" if stored else "already stored"
        self.set_status(f"Accepted: correction pair {pair_id} {what} (edit ratio {ratio:.0%}).")
        self.reached("accepted")
        self.ask_labels(pair_id)

    def ask_labels(self, pair_id: int) -> None:
        """The optional rating, rationale and tags of the pair (tui/accept_dialog.py)."""
        for old in self.query(AcceptLabels):
            old.remove()
        self.mount(AcceptLabels(self.database_file, pair_id), before="#ws-status")

    def on_accept_labels_done(self, event: AcceptLabels.Done) -> None:
        if event.text:
            self.set_status(event.text)

    def action_export(self) -> None:
        if self._busy():
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
        files = export_draft(self.database_file, run, draft, text, self.config.export.template_path)
        self.app.call_from_thread(self._exported, files)

    def _exported(self, files: Exports) -> None:
        self.exported = files.markdown
        self.exports = files
        stem = files.markdown.stem
        self.set_status(
            f"Exported {stem}.md, {stem}.docx and {files.redline.name} to {files.markdown.parent}"
        )
        self.reached("exported")

    def reached(self, step: str, *, blocking: int = 0) -> None:
        """A step of the loop happened: run-started, run-completed, run-stopped, run-ended, verified,
        flag-opened, accepted, exported. Nothing listens here; the demo's screen does (its guide line moves on)."""

    def action_inspect_context(self) -> None:
        from tui.context_inspector import ContextScreen

        if self.run_record is None:
            self.set_status("There is no run to inspect yet.")
            return
        self.app.push_screen(ContextScreen(self.run_record))

    # --- everything else ---

    def _show_strip(self) -> None:
        self.query_one("#ws-strip", Static).update(self.strip.render())

    def set_status(self, text: str) -> None:
        self.query_one("#ws-status", Static).update(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "pipeline":
            self.refresh_bindings()  # Stop comes and goes with the run
        if event.state is not WorkerState.ERROR:
            return
        event.stop()
        self.app.push_screen(error_screen(event.worker.error))
