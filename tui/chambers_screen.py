"""The base of the workstation's screens: one way a failed worker is shown, and the config kept in step.

A worker's state changes are posted to the screen that started it and do not bubble, so each screen
meets its own workers' failures: ``ChambersScreen`` handles them all the same way. The error goes to
the one error modal, and the screen's status line says the work stopped, so the screen still says why
once the modal is closed. A screen changes the words with ``failure_line`` or ``error_modal``, never
the handling.

The app's ``config`` is watched: a config saved in Settings reaches every open screen through
``config_changed``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events, on
from textual.app import App
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from tui.key_order import RoomScreen
from tui.screens import ErrorScreen, error_screen, stopped_line
from workspace.config import Config


class ChambersScreen(RoomScreen):
    """A workstation screen: its footer keeps its keys first, its workers' errors reach the error modal."""

    STOPPED_AFTER: ClassVar[str] = (
        ""  # added to the status line after a failure, e.g. " Nothing was written."
    )
    HELP_TITLE: ClassVar[str] = ""  # F1's name for the screen, when its sub-title is not the right one
    HELP_KEYS: ClassVar[list[tuple[str, str]]] = []  # F1 rows for keys that are no binding (Enter in a box)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one handler of a screen's failed workers."""
        if event.state is not WorkerState.ERROR:
            return
        self.set_status(self.failure_line(event.worker))
        self.app.push_screen(self.error_modal(event.worker))

    def failure_line(self, worker: Worker[object]) -> str:
        """The status line under the error modal."""
        return stopped_line(worker.error) + self.STOPPED_AFTER

    def error_modal(self, worker: Worker[object]) -> ErrorScreen:
        """The modal a failed worker opens: a ChambersError in its own words, anything else by name."""
        return error_screen(worker.error)

    def set_status(self, text: str) -> None:
        """The screen's status line. A screen without one tells a failure in the modal only."""

    @on(events.Mount)
    def follow_the_config(self) -> None:
        self.watch(self.app, "config", self.config_changed, init=False)

    def config_changed(self, config: Config) -> None:
        """The app runs on ``config`` from now on (Settings saved it). A screen that keeps one updates it."""


def follow_config(screen: Screen[Any], app: App[Any]) -> None:
    """Keep the ``config`` of a screen that is no ChambersScreen in step with the app's."""

    def follow(config: Config) -> None:
        setattr(screen, "config", config)  # noqa: B010 (the screen's own attribute, not known to Screen)

    screen.watch(app, "config", follow, init=False)
