"""The chambers Textual app: the first slice of the workstation.

It lists the configured backends with health, model and context size, and
streams a completion from the selected one into the draft pane, with live
tokens/s and, at the end, the server's own prefill (PP) and generation (TG)
figures. Esc cancels. Widgets never do I/O: workers do, and one handler
(``on_worker_state_changed``) turns every worker error into the error modal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Markdown, Select, Static
from textual.worker import Worker, WorkerState

from backends.chat import ChatClient, ChatRequest
from backends.events import ContentDelta, Finished, PromptProgress
from backends.status import BackendStatus, probe_all
from themes import DEFAULT_THEME, THEMES
from tui.screen_commands import ActionCommands, ScreenCommands
from tui.screens import ErrorScreen, HelpScreen
from workspace.audit import AuditLog
from workspace.config import Backend, Config
from workspace.errors import ChambersError

if TYPE_CHECKING:
    from drafting.pipeline import PipelineOptions
    from tui.demo_tour import DemoTour

FIRST_SCREEN_ACTIONS = frozenset({"refresh_backends", "focus_prompt", "focus_backends", "stop_stream"})
STATS_INTERVAL_S = 0.25  # live tokens/s refresh; the stream itself is batched by MarkdownStream


class ChambersApp(App[None]):
    TITLE = "chambers"
    CSS_PATH = "chambers.tcss"
    COMMANDS = App.COMMANDS | {ScreenCommands, ActionCommands}
    BINDINGS = [
        Binding(
            "escape",
            "cancel_stream",
            "Back",
            id="stream.cancel",
            priority=True,
            tooltip="Back to the screen before (closes an open list first; on the first screen it stops the answer)",
        ),
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
        Binding(
            "ctrl+b",
            "focus_backends",
            "Backends",
            id="backends.focus",
            tooltip="Go to the backend list (up/down chooses where the prompt goes)",
        ),
        Binding(
            "f2",
            "dashboard",
            "Fleet",
            id="fleet.dashboard",
            tooltip="The fleet dashboard: GPUs per NVLink board and the model server on each (F2 again returns)",
        ),
        Binding(
            "f3",
            "exhibits",
            "Exhibits",
            id="exhibits.open",
            tooltip="Exhibits: pick a matter's PDFs, order them, preview and run a Bates production or a binder",
        ),
        Binding(
            "f4",
            "drafting",
            "Draft",
            id="drafting.open",
            tooltip="Drafting: a matter, a task and instructions through the pipeline; the draft with its flags",
        ),
        Binding(
            "f5",
            "corrections",
            "Corrections",
            id="corrections.open",
            tooltip="Corrections: your edits as training pairs, each as a redline; exclude, delete, export, stats",
        ),
        Binding(
            "f10",
            "settings",
            "Settings",
            id="settings.open",
            tooltip="Settings: which backend each role uses, and the theme (saved to the config file)",
        ),
        Binding(
            "f12",
            "evidence",
            "Evidence",
            id="evidence.open",
            tooltip="Evidence: search a matter's pages, read one whole, its documents and provenance audit",
        ),
        Binding("f1", "help", "Help", id="app.help", tooltip="Show this list of keys"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", tooltip="Leave chambers"),
    ]

    def __init__(self, config: Config, audit: AuditLog, *, start_on_dashboard: bool = False) -> None:
        super().__init__()
        self.start_on_dashboard = start_on_dashboard
        self.saved_theme: str | None = None  # from the config's [ui] (or an old ui.toml), set by create_app
        self._theme_ready = False  # the theme set on mount is not a choice to save
        self.config = config
        self.audit = audit
        self.statuses: dict[str, BackendStatus] = {}
        self.draft_text = ""
        # Server-specific fields added to every prompt request (ChatRequest.extra).
        # Empty in use; tests set {"ignore_eos": True} so the tiny model talks long
        # enough for Esc or a server crash to land mid-stream.
        self.request_extra: dict[str, object] = {}
        # Pipeline knobs for the drafting screen (None: the defaults); tests make the tiny model's answers short.
        self.pipeline_options: PipelineOptions | None = None
        # Set by `chambers demo`: the guide line on the drafting screen.
        self.demo_tour: DemoTour | None = None

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield DataTable(id="backends", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="draft-scroll"):
            yield Markdown("", id="draft")
        yield Static("Type a prompt and press Enter. F1 lists the keys.", id="stream-status")
        yield Input(placeholder="Prompt for the selected backend (Enter sends, Esc cancels)", id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        names = {theme.name for theme in THEMES}
        self.theme = self.saved_theme if self.saved_theme in names else DEFAULT_THEME
        self._theme_ready = True
        table = self.query_one("#backends", DataTable)
        table.border_title = "Backends"
        self.query_one("#draft-scroll").border_title = "Draft"
        # What the attorney needs first (is it up, which model) comes first: at 80
        # columns the later ones scroll out of view.
        for key, label in (("name", "Backend"), ("health", "Health"), ("model", "Model"),
                           ("n_ctx", "n_ctx"), ("kind", "Kind"), ("roles", "Roles"),
                           ("url", "Address")):  # fmt: skip
            table.add_column(label, key=key)
        for backend in self.config.backends:
            table.add_row(
                backend.name, "checking", "", "", backend.kind, ",".join(backend.roles) or "-",
                backend.url, key=backend.name,
            )  # fmt: skip
        if not self.config.backends:
            self.set_status(f"No backends in {self.config.file}. Add a [[backends]] entry.")
        self.query_one("#prompt", Input).focus()
        self.action_refresh_backends()
        if self.start_on_dashboard:
            self.action_dashboard()
        if self.demo_tour is not None and self.start_on_dashboard:
            # In the header, not a toast: a toast covers a board card for as long as it shows.
            self.screen.sub_title = "demo: F4 drafts, F1 keys"
        elif self.demo_tour is not None:
            self.notify("F4 opens the drafting screen on the sample matter, with a guide. F1 lists every key.",
                        title="chambers demo", timeout=15)  # fmt: skip

    # --- backends -----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The first screen's own keys (refresh, prompt, backend list) are hidden on the other screens:
        there they would act on a screen out of sight, and at 80 columns they push the screen's keys
        out of the footer."""
        return action not in FIRST_SCREEN_ACTIONS or self.screen is self.screen_stack[0]

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

    @work(exclusive=True, group="stream", exit_on_error=False)
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
            self.set_status(f"Stopped: {exc.title}.")
            raise
        finally:
            await stream.stop()

    def get_default_screen(self) -> Screen[Any]:
        from tui.key_order import RoomScreen

        return RoomScreen(id="_default")  # its footer, too, keeps the keys that matter first

    def action_stop_stream(self) -> None:
        running = [w for w in self.workers if w.group == "stream" and w.is_running]
        for worker in running:
            worker.cancel()
        if running:
            self.set_status("Stopped. The text so far is kept; the server has been told to stop.")

    def action_cancel_stream(self) -> None:
        # An open drop-down list closes first: Esc must not leave the screen (and drop its choices).
        for node in self.focused.ancestors_with_self if self.focused else ():
            if isinstance(node, Select) and node.expanded:
                node.expanded = False
                node.focus()  # as the list's own Esc does: the focus stays on this line
                return
        if len(self.screen_stack) > 1:  # a modal, or the dashboard, is on top: Esc closes it
            own = getattr(self.screen, "handle_escape", None)  # unless it has work to stop first
            if callable(own) and own():
                return
            self.pop_screen()
            return
        running = [w for w in self.workers if w.group == "stream" and w.is_running]
        for worker in running:
            worker.cancel()
        if running:
            self.set_status("Cancelled. The text so far is kept; the server has been told to stop.")

    # --- everything else ----------------------------------------------------

    def set_status(self, text: str) -> None:
        self.query_one("#stream-status", Static).update(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker errors are shown."""
        if event.state is not WorkerState.ERROR:
            return
        error = event.worker.error
        if isinstance(error, ChambersError):
            self.push_screen(ErrorScreen(error.title, error.message))
        else:
            self.push_screen(ErrorScreen("Unexpected error", f"{type(error).__name__}: {error}"))

    def action_focus_prompt(self) -> None:
        self.query_one("#prompt", Input).focus()

    def action_focus_backends(self) -> None:
        self.query_one("#backends", DataTable).focus()

    def action_dashboard(self) -> None:
        from tui.dashboard import DashboardScreen

        if isinstance(self.screen, DashboardScreen):
            self.pop_screen()
            return
        # Installed once, so it keeps polling and keeps its sparklines while the workstation is shown.
        if not self.is_screen_installed("fleet"):
            self.install_screen(DashboardScreen(self.config, self.audit.database_file), name="fleet")
        self.push_screen("fleet")

    def watch_theme(self, name: str) -> None:
        """Keep the attorney's choice (command palette: Change theme) for the next start, in the config
        file's [ui] table; in ui.toml when the config is not a file on disk (never creating one)."""
        if self._theme_ready and name != self.saved_theme:
            from tui.ui_settings import persist_theme

            self.saved_theme = name
            file = Path(self.config.file)
            self.run_worker(partial(persist_theme, name, file), thread=True, group="ui", exit_on_error=False)

    def action_settings(self) -> None:
        from tui.settings_screen import SettingsScreen

        self._toggle(SettingsScreen, lambda: SettingsScreen(self.config))

    def _toggle(self, kind: type[Screen[Any]], make: Callable[[], Screen[Any]]) -> None:
        """A room's F-key: open its screen, or, pressed on that screen, go back to where he was."""
        if isinstance(self.screen, kind):
            self.pop_screen()
        else:
            self.push_screen(make())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Settings", "Which backend each role uses, and the theme (F10)", self.action_settings
        )

    def use_config(self, config: Config) -> None:
        """Run on ``config`` from now on (the settings screen saved it): the next step uses its roles."""
        from tui.dashboard import DashboardScreen
        from tui.drafting_screen import DraftingScreen

        self.config = config
        for name in ("fleet", "drafting"):
            screen = self.get_screen(name) if self.is_screen_installed(name) else None
            if isinstance(screen, DashboardScreen | DraftingScreen):
                screen.config = config
        table = self.screen_stack[0].query_one("#backends", DataTable)
        for backend in config.backends:
            if backend.name in table.rows:
                table.update_cell(backend.name, "roles", ",".join(backend.roles) or "-", update_width=True)

    def action_drafting(self) -> None:
        from tui.drafting_screen import DraftingScreen

        if isinstance(self.screen, DraftingScreen):
            self.pop_screen()
            return
        # Installed once, so a run goes on (and its draft stays) while another screen is shown.
        if not self.is_screen_installed("drafting"):
            args = (self.config, self.audit.database_file, self.audit)
            screen: DraftingScreen
            if self.demo_tour is not None:
                from tui.demo import DemoDraftingScreen

                screen = DemoDraftingScreen(*args, options=self.pipeline_options, tour=self.demo_tour)
            else:
                screen = DraftingScreen(*args, options=self.pipeline_options)
            self.install_screen(screen, name="drafting")
        self.push_screen("drafting")

    def action_exhibits(self) -> None:
        from tui.exhibits_screen import ExhibitsScreen

        self._toggle(ExhibitsScreen, lambda: ExhibitsScreen(self.audit.database_file))

    def action_corrections(self) -> None:
        from tui.corrections_screen import CorrectionsScreen

        self._toggle(CorrectionsScreen, lambda: CorrectionsScreen(self.audit.database_file))

    def action_evidence(self) -> None:
        from tui.evidence_screen import EvidenceScreen

        if isinstance(self.screen, EvidenceScreen):
            self.pop_screen()
            return
        # Installed once, so its search, results and filters are still there when he comes back.
        if not self.is_screen_installed("evidence"):
            self.install_screen(EvidenceScreen(self.audit.database_file), name="evidence")
        self.push_screen("evidence")

    def action_help(self) -> None:
        """The keys of the screen on show first, then those of the box with the focus, then the app's."""
        from tui.help_keys import help_sections

        self.push_screen(HelpScreen(help_sections(self)))


def _finished_line(name: str, event: Finished, tokens: int) -> str:
    t = event.timings
    if t is None:
        return f"{name}: done, {tokens} tokens (the server sent no timings)."
    from tui.drafting_view import pp_tg

    return f"{name}: done. {pp_tg(t.as_dict())} ({t.prompt_n:,} prompt tok read, {t.predicted_n:,} generated)"


def create_app(config: Config, database_file: Path, *, start_on_dashboard: bool | None = None) -> ChambersApp:
    """The one app factory, used by the CLI and the tests.

    The fleet dashboard is the first screen when the config has boards (or when
    ``start_on_dashboard`` says so); F2 or Esc leads to the workstation behind it.
    """
    first = bool(config.boards) if start_on_dashboard is None else start_on_dashboard
    from tui.ui_settings import load_theme

    app = ChambersApp(config, AuditLog(database_file), start_on_dashboard=first)
    app.saved_theme = config.ui.theme or load_theme()  # ui.toml: where earlier versions kept it
    return app
