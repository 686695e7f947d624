"""The first screen: the configured backends with health, model and context size, and a prompt.

The prompt is streamed from the selected backend into the draft pane, with live tokens/s and, at the
end, the server's own prefill (PP) and generation (TG) figures. Esc cancels, Ctrl+X stops. Widgets
never do I/O: workers do, and a failed worker reaches the error modal through ``ChambersScreen``.
"""

from __future__ import annotations

import time

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Header, Input, Markdown, Static

from backends.chat import ChatClient, ChatRequest
from backends.events import ContentDelta, Finished, PromptProgress
from backends.status import BackendStatus, probe_all
from tui.drafting.view import pp_tg
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.key_text import KeyText
from workspace.audit import AuditLog
from workspace.config import Backend, Config
from workspace.errors import ChambersError

STATS_INTERVAL_S = 0.25  # live tokens/s refresh; the stream itself is batched by MarkdownStream
STREAM_GROUP = "stream"


class PromptScreen(ChambersScreen):
    HELP_TITLE = "the prompt and the backends"
    HELP_KEYS = [  # keys of the boxes themselves, which have no binding of this screen
        ("enter", "Send the prompt to the selected backend"),
        ("tab", "Move between the backend list and the prompt"),
        ("up/down", "In the backend list: choose where the prompt goes"),
    ]
    BINDINGS = [
        Binding(
            "ctrl+x",
            "stop_stream",
            "Stop",
            id="stream.stop",
            priority=True,
            tooltip="Stop the answer being streamed (the text so far is kept)",
        ),
        Binding(
            "ctrl+r",
            "refresh_backends",
            "Refresh",
            id="backends.refresh",
            tooltip="Check every backend again: health, model, context size",
        ),
        Binding("ctrl+l", "focus_prompt", "Prompt", id="prompt.focus", tooltip="Go to the prompt box"),
        Binding(  # not ctrl+b: inside tmux, its prefix, that key never reaches chambers
            "ctrl+o",
            "focus_backends",
            "Backends",
            id="backends.focus",
            tooltip="Go to the backend list (up/down chooses where the prompt goes)",
        ),
    ]

    def __init__(self, config: Config, audit: AuditLog) -> None:
        super().__init__()
        self.config = config
        self.audit = audit
        self.statuses: dict[str, BackendStatus] = {}
        self.draft_text = ""
        # Server-specific fields added to every prompt request (ChatRequest.extra).
        # Empty in use; tests set {"ignore_eos": True} so the tiny model talks long
        # enough for Esc or a server crash to land mid-stream.
        self.request_extra: dict[str, object] = {}

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield DataTable(id="backends", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="draft-scroll"):
            yield Markdown("", id="draft")
        yield KeyText("Type a prompt and press Enter. F1 lists the keys.", id="stream-status")
        prompt = Input(placeholder="Prompt for the selected backend (Enter sends, Esc cancels)", id="prompt")
        # Headless (tests, snapshots) the cursor is steady: a picture must not depend on the instant it is taken.
        prompt.cursor_blink = not self.app.is_headless
        yield prompt
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#backends", DataTable)
        table.border_title = "Backends"
        self.query_one("#draft-scroll").border_title = "Draft"
        # What the attorney needs first (is it up, which model) comes first: at 80
        # columns the later ones scroll out of view.
        for key, label in (
            ("name", "Backend"),
            ("health", "Health"),
            ("model", "Model"),
            ("n_ctx", "n_ctx"),
            ("kind", "Kind"),
            ("roles", "Roles"),
            ("url", "Address"),
        ):
            table.add_column(label, key=key)
        for backend in self.config.backends:
            table.add_row(
                backend.name,
                "checking",
                "",
                "",
                backend.kind,
                ",".join(backend.roles) or "-",
                backend.url,
                key=backend.name,
            )
        if not self.config.backends:
            self.set_status(f"No backends in {self.config.file}. Add a [[backends]] entry.")
        self.query_one("#prompt", Input).focus()
        self.action_refresh_backends()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """This screen's keys leave its footer while a dialog is over it: they would act on a screen
        out of reach, and at 80 columns they push the app's keys out of the footer."""
        return self.is_active

    def config_changed(self, config: Config) -> None:
        """Settings moved roles between backends: the next prompt and the Roles column follow."""
        self.config = config
        table = self.query_one("#backends", DataTable)
        for backend in config.backends:
            if backend.name in table.rows:
                table.update_cell(backend.name, "roles", ",".join(backend.roles) or "-", update_width=True)

    # --- backends -----------------------------------------------------------

    def action_refresh_backends(self) -> None:
        self.refresh_backends()

    @work(exclusive=True, group="probe", exit_on_error=False)
    async def refresh_backends(self) -> None:
        statuses = await probe_all(self.config.backends, self.config.policy)
        for status in statuses:
            self.show_status(status)
        if problems := [s for s in statuses if not s.ok]:
            self.set_status(f"{problems[0].name} is {problems[0].health}: {problems[0].problem}")

    def show_status(self, status: BackendStatus) -> None:
        self.statuses[status.name] = status
        table = self.query_one("#backends", DataTable)
        health = (
            status.health
            if status.address_class in (None, "loopback")
            else (f"{status.health} ({status.address_class})")
        )
        table.update_cell(status.name, "health", health, update_width=True)
        table.update_cell(status.name, "model", status.model or "", update_width=True)
        table.update_cell(status.name, "n_ctx", str(status.n_ctx or ""), update_width=True)

    def selected_backend(self) -> Backend | None:
        table = self.query_one("#backends", DataTable)
        if not self.config.backends:
            return None
        row = min(max(table.cursor_row, 0), len(self.config.backends) - 1)
        return self.config.backends[row]

    # --- streaming ----------------------------------------------------------

    @on(Input.Submitted, "#prompt")
    def submit_prompt(self, event: Input.Submitted) -> None:
        prompt = event.value.strip()
        if not prompt:
            self.set_status("The prompt is empty: type what you want drafted, then press Enter.")
            return
        backend = self.selected_backend()
        if backend is None:
            self.set_status("There is no backend to send to. Add one to the config.")
            return
        self.draft_text = ""
        self.stream_prompt(backend, prompt)

    @work(exclusive=True, group=STREAM_GROUP, exit_on_error=False)
    async def stream_prompt(self, backend: Backend, prompt: str) -> None:
        draft = self.query_one("#draft", Markdown)
        await draft.update("")
        scroll = self.query_one("#draft-scroll", VerticalScroll)
        scroll.anchor(False)
        stream = Markdown.get_stream(draft)
        client = ChatClient(backend, self.config.policy, self.audit)
        request = ChatRequest(
            messages=[{"role": "user", "content": prompt}],
            return_progress=True,
            extra=dict(self.request_extra),
        )
        self.set_status(f"Sending to {backend.name} ...")
        tokens, first_at, last_stats = 0, 0.0, 0.0
        try:
            async for event in client.stream(request):
                if isinstance(event, ContentDelta):
                    now = time.perf_counter()
                    if tokens == 0:
                        first_at = now
                    tokens += 1
                    self.draft_text += event.text
                    await stream.write(event.text)
                    if now - last_stats >= STATS_INTERVAL_S:
                        last_stats = now
                        # Follow the end only once the draft overflows: Textual's anchor
                        # bottom-aligns short content, leaving a blank pane above it.
                        if scroll.max_scroll_y > 0 and not scroll.is_anchored:
                            scroll.anchor()
                        rate = (tokens - 1) / (now - first_at) if now > first_at else 0.0
                        # Set directly, not by a posted message: a message still queued when
                        # the stream ends would overwrite the final PP/TG line.
                        self.set_status(f"streaming: {tokens} tokens, {rate:.1f} tok/s")
                elif isinstance(event, PromptProgress):
                    self.set_status(f"{backend.name}: reading the prompt {event.fraction:.0%}")
                elif isinstance(event, Finished):
                    self.set_status(_finished_line(backend.name, event, tokens))
        except ChambersError as exc:
            if self.draft_text:
                await stream.write(f"\n\n---\n**Incomplete:** {exc.title.lower()}; the text above is kept.")
            raise  # the status line and the error modal are ChambersScreen's
        finally:
            await stream.stop()
            await client.aclose()

    def action_stop_stream(self) -> None:
        if self._cancel_stream():
            self.set_status("Stopped. The text so far is kept; the server has been told to stop.")

    def action_cancel_stream(self) -> None:
        """Esc on this screen (the app's Esc closes a list or another screen first)."""
        if self._cancel_stream():
            self.set_status("Cancelled. The text so far is kept; the server has been told to stop.")

    def _cancel_stream(self) -> bool:
        running = [w for w in self.workers if w.group == STREAM_GROUP and w.is_running]
        for worker in running:
            worker.cancel()
        return bool(running)

    # --- everything else ----------------------------------------------------

    def set_status(self, text: str) -> None:
        self.query_one("#stream-status", Static).update(text)

    def action_focus_prompt(self) -> None:
        self.query_one("#prompt", Input).focus()

    def action_focus_backends(self) -> None:
        self.query_one("#backends", DataTable).focus()


def _finished_line(name: str, event: Finished, tokens: int) -> str:
    t = event.timings
    if t is None:
        return f"{name}: done, {tokens} tokens (the server sent no timings)."
    return f"{name}: done. {pp_tg(t.as_dict())} ({t.prompt_n:,} prompt tok read, {t.predicted_n:,} generated)"
