"""The chambers Textual app: a shell around the workstation's screens.

It holds what every screen shares (the config, the audit log, the theme), opens the rooms with
their F-keys, and applies a config saved in Settings. The first screen is given to it by whoever
starts it (``create_app``): the prompt and backend list, or the demo's. Each screen shows its own
workers' errors (``tui.widgets.chambers_screen``); the app's only worker writes the chosen theme.
The app alone tunes the interpreter (``HeapPolicy``): no screen or widget does.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import var
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Select
from textual.worker import Worker, WorkerState

from drafting.batch.presence import workstation_present
from themes import DEFAULT_THEME, THEMES
from tui.corrections.screen import CorrectionsScreen
from tui.drafting.batch_screen import BatchScreen
from tui.drafting.prompt_screen import PromptScreen
from tui.drafting.screen import DraftingScreen
from tui.drafting.stream import DraftStream
from tui.drafting.wiring import drafting_session
from tui.evidence.screen import EvidenceScreen
from tui.exhibits.screen import ExhibitsScreen
from tui.fleet.dashboard import DashboardScreen
from tui.search.jump import matter_on_show, open_hit
from tui.search.screen import SearchScreen
from tui.settings.screen import SettingsScreen
from tui.settings.ui_settings import load_theme, persist_theme
from tui.widgets.chambers_screen import follow_config
from tui.widgets.help_keys import help_sections
from tui.widgets.screen_commands import ActionCommands, RoomActionCommands, ScreenCommands
from tui.widgets.screens import HelpScreen, error_screen
from workspace.audit import AuditLog
from workspace.config import Config

if TYPE_CHECKING:
    from drafting.pipeline import PipelineOptions

FirstScreen = Callable[[Config, AuditLog], Screen[Any]]  # builds the screen under all others


# The heap stays frozen this long after a stream ends, so the finished draft is drawn first and the
# full collection that unfreezing brings on runs while he reads it, not in the middle of the finish.
RELEASE_AFTER_S = 2.0


class HeapPolicy:
    """While a draft streams, the objects alive before it are kept out of the garbage collector's passes.

    Why (measured with ``benchmarks/tui_stream.py`` and ``benchmarks/finish_stall.py``): the app
    holds some 200,000 objects, and drawing 30 frames a second promotes enough short-lived ones that
    Python runs a full collection about once a second, each over all of them: 100-200 ms with the
    loop stopped, the stream's worst stalls. Frozen (``gc.freeze``), they are skipped, so a full
    pass walks only what the stream made (tens of ms at most). The heap is the whole interpreter's,
    so this is the app's policy, fed by each ``DraftStream``'s ``Started`` and ``Ended``: frozen
    while any stream runs, released ``RELEASE_AFTER_S`` after the last one ends, with one full pass
    run then on purpose, and released at once when the app closes.
    """

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.streams: set[int] = set()
        self.frozen = False
        self._release: Timer | None = None

    def started(self, stream: object) -> None:
        if self._release is not None:  # a stream started before the last one's release was due
            self._release.stop()
            self._release = None
        self.streams.add(id(stream))
        if not self.frozen:
            gc.freeze()
            self.frozen = True

    def ended(self, stream: object) -> None:
        self.streams.discard(id(stream))
        if self.frozen and not self.streams and self._release is None:
            self._release = self.app.set_timer(RELEASE_AFTER_S, self._release_now)

    def _release_now(self) -> None:
        self._release = None
        if self.frozen and not self.streams:
            self.close()
            gc.collect()

    def close(self) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False


def _config_unset() -> Config:
    raise RuntimeError("ChambersApp sets its config in __init__")


class ChambersApp(App[None]):
    TITLE = "chambers"
    CSS_PATH = "chambers.tcss"
    COMMANDS = App.COMMANDS | {ScreenCommands, ActionCommands, RoomActionCommands}
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
        Binding(
            "/",
            "search",
            "Search",
            id="search.open",
            show=False,
            tooltip="Search the matter's sources, the runs, their flags and the pairs; Enter opens a hit "
            "in its room (in a text box, / types a slash)",
        ),
        Binding("f1", "help", "Help", id="app.help", tooltip="Show this list of keys"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", tooltip="Leave chambers"),
    ]

    config: var[Config] = var(_config_unset, init=False)  # set in __init__; a save in Settings replaces it

    def __init__(
        self,
        config: Config,
        audit: AuditLog,
        *,
        first_screen: FirstScreen = PromptScreen,
        start_on_dashboard: bool = False,
    ) -> None:
        super().__init__()
        self.set_reactive(ChambersApp.config, config)
        self.audit = audit
        self.first_screen = first_screen
        self.start_on_dashboard = start_on_dashboard
        self.saved_theme: str | None = None  # from the config's [ui] (or an old ui.toml), set by create_app
        self._theme_ready = False  # the theme set on mount is not a choice to save
        # Pipeline knobs for the drafting screen (None: the defaults); tests make the tiny model's answers short.
        self.pipeline_options: PipelineOptions | None = None
        self._present = ExitStack()  # the workstation's presence, held from mount to unmount
        self.heap = HeapPolicy(self)

    def get_default_screen(self) -> Screen[Any]:
        return self.first_screen(self.config, self.audit)

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        names = {theme.name for theme in THEMES}
        self.theme = self.saved_theme if self.saved_theme in names else DEFAULT_THEME
        self._theme_ready = True
        # While he is here, a batch leaves one slot of each server to him (the lock dies with the process).
        if self.audit.database_file.parent.is_dir():
            self._present.enter_context(workstation_present(self.audit.database_file))
        if self.start_on_dashboard:
            self.action_dashboard()

    def on_unmount(self) -> None:
        self._present.close()
        self.heap.close()

    def on_draft_stream_started(self, message: DraftStream.Started) -> None:
        self.heap.started(message.stream)

    def on_draft_stream_ended(self, message: DraftStream.Ended) -> None:
        self.heap.ended(message.stream)

    async def action_cancel_stream(self) -> None:
        """Esc: an open list closes first, then the screen on top; on the first screen, that screen's Esc."""
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
        await self.screen.run_action("cancel_stream")

    # --- the config and the theme ---------------------------------------------

    @on(SettingsScreen.ConfigSaved)
    def apply_saved_config(self, message: SettingsScreen.ConfigSaved) -> None:
        """Run on the saved config from now on (the screens follow ``config``), in its theme."""
        theme = message.config.ui.theme or DEFAULT_THEME
        self.saved_theme = theme  # already in the file: the theme watcher need not write it again
        self.config = message.config
        self.theme = theme

    def watch_theme(self, name: str) -> None:
        """Keep the attorney's choice (command palette: Change theme) for the next start, in the config
        file's [ui] table; in ui.toml when the config is not a file on disk (never creating one)."""
        if self._theme_ready and name != self.saved_theme:
            self.saved_theme = name
            file = Path(self.config.file)
            self.run_worker(partial(persist_theme, name, file), thread=True, group="ui", exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's own worker (the theme's save) fails into the same error modal as the screens'."""
        if event.state is WorkerState.ERROR:
            self.push_screen(error_screen(event.worker.error))

    # --- the rooms --------------------------------------------------------------

    def _back_down_to(self, kind: type[Screen[Any]]) -> bool:
        """Whether a room already open lower in the stack was brought back by closing the screens over
        it: pushing it again would stack the same room twice, and every F-key press would deepen the
        stack that Esc walks back through."""
        lower = [index for index, screen in enumerate(self.screen_stack[:-1]) if isinstance(screen, kind)]
        if not lower:
            return False
        for _ in range(len(self.screen_stack) - 1 - lower[-1]):
            self.pop_screen()
        return True

    def _toggle(self, kind: type[Screen[Any]], make: Callable[[], Screen[Any]]) -> None:
        """A room's F-key: open its screen, or, pressed on that screen, go back to where he was."""
        if isinstance(self.screen, kind):
            self.pop_screen()
        elif not self._back_down_to(kind):
            self.push_screen(make())

    def _toggle_installed(self, name: str, kind: type[Screen[Any]], make: Callable[[], Screen[Any]]) -> None:
        """Like ``_toggle`` for a screen installed once, so its work goes on (and is there when he
        comes back) while another screen is shown."""
        if isinstance(self.screen, kind):
            self.pop_screen()
            return
        if self._back_down_to(kind):
            return
        if not self.is_screen_installed(name):
            self.install_screen(make(), name=name)
        self.push_screen(name)

    def room_screens(self) -> dict[str, type]:
        """Each F-key room's screen class by the action that opens it: the palette's way to every
        room's keys from any screen."""
        return {
            "evidence": EvidenceScreen,
            "exhibits": ExhibitsScreen,
            "drafting": DraftingScreen,
            "corrections": CorrectionsScreen,
            "dashboard": DashboardScreen,
        }

    def action_dashboard(self) -> None:
        self._toggle_installed(
            "fleet", DashboardScreen, lambda: DashboardScreen(self.config, self.audit.database_file)
        )

    def action_drafting(self) -> None:
        def make() -> DraftingScreen:
            session = drafting_session(
                self.config, self.audit.database_file, audit=self.audit, options=self.pipeline_options
            )
            screen = DraftingScreen(session)
            follow_config(screen, self)
            return screen

        self._toggle_installed("drafting", DraftingScreen, make)

    def action_evidence(self) -> None:
        self._toggle_installed("evidence", EvidenceScreen, lambda: EvidenceScreen(self.audit.database_file))

    def action_exhibits(self) -> None:
        self._toggle(ExhibitsScreen, lambda: ExhibitsScreen(self.audit.database_file))

    def action_corrections(self) -> None:
        self._toggle(CorrectionsScreen, lambda: CorrectionsScreen(self.audit.database_file))

    def action_settings(self) -> None:
        self._toggle(SettingsScreen, lambda: SettingsScreen(self.config))

    def action_batch(self) -> None:
        self._toggle(BatchScreen, lambda: BatchScreen(self.audit.database_file))

    @on(BatchScreen.OpenRun)
    def open_batch_job(self, message: BatchScreen.OpenRun) -> None:
        """A batch job's run in the drafting screen: over the batch screen (Esc goes back to it), or,
        when drafting is already open under it, back down to drafting."""
        self.action_drafting()
        screen = self.screen
        if isinstance(screen, DraftingScreen):  # a screen installed just now is shown once it is mounted
            if screen.is_mounted:
                screen.show_run(message.run_id)
            else:
                self.call_after_refresh(screen.show_run, message.run_id)

    def action_search(self) -> None:
        """/: the search over every room, in the matter on show; the hit chosen opens in its room."""
        if isinstance(self.screen, SearchScreen):  # / from its list (a click took the focus there)
            self.screen.query_one("#search-query").focus()
            return
        if isinstance(self.screen, ModalScreen):  # its room is under it: a hit there would open it twice
            self.notify("Close this dialog first (Esc): the search opens from a room's screen.")
            return
        screen = SearchScreen(self.audit.database_file, matter_on_show(self))
        self.push_screen(screen, partial(open_hit, self))

    def action_help(self) -> None:
        """The keys of the screen on show first, then those of the box with the focus, then the app's."""
        self.push_screen(HelpScreen(help_sections(self)))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Settings", "Which backend each role uses, and the theme (F10)", self.action_settings
        )
        yield SystemCommand(
            "Search matter, runs, flags and pairs",
            "The matter's sources, the runs, their flags and the pairs; Enter opens a hit in its room (/)",
            self.action_search,
        )
        yield SystemCommand(
            "Batches",
            "Each job of a batch, contradicted drafts first; Enter opens one to review",
            self.action_batch,
        )


def create_app(
    config: Config,
    database_file: Path,
    *,
    first_screen: FirstScreen = PromptScreen,
    start_on_dashboard: bool | None = None,
) -> ChambersApp:
    """The one app factory, used by the CLI, the demo and the tests.

    ``first_screen`` builds the screen under all others from the config and the audit log. The fleet
    dashboard is shown over it when the config has boards (or when ``start_on_dashboard`` says so);
    F2 or Esc leads to the first screen behind it.
    """
    on_dashboard = bool(config.boards) if start_on_dashboard is None else start_on_dashboard
    app = ChambersApp(
        config, AuditLog(database_file), first_screen=first_screen, start_on_dashboard=on_dashboard
    )
    app.saved_theme = config.ui.theme or load_theme()  # ui.toml: where earlier versions kept it
    app.set_keymap(dict(config.keys))  # his [keys]: F1 and the footer show them as he set them
    return app


def mouse_wanted(config: Config, no_mouse: bool) -> bool:
    """The mouse is the app's unless ``--no-mouse`` or ``[ui] mouse = false`` leave it to the terminal."""
    return not no_mouse and config.ui.mouse is not False
