"""The bases of the workstation's screens and dialogs: one way a failed worker is shown, and the config
kept in step.

A worker's state changes are posted to the screen that started it and do not bubble, so each screen
meets its own workers' failures: ``ShowsFailedWorkers`` handles them all the same way, for the room
screens (``ChambersScreen``) and the dialogs over them (``ChambersDialog``) alike. The error goes to
the one error modal, and the screen's status line (a dialog's own line) says the work stopped, so the
screen still says why once the modal is closed. A screen changes the words with ``failure_line`` or
``error_modal``, never the handling; one that must react to other states of its workers (a key that
shows only while a run goes) listens for ``Worker.StateChanged`` under a name of its own.

The app's ``config`` is watched: a config saved in Settings reaches every open screen through
``config_changed``, or, for a screen built before it is first shown, through ``follow_config``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events, on
from textual.app import App
from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.worker import Worker, WorkerState

from tui.widgets.key_order import RoomScreen
from tui.widgets.screens import ErrorScreen, error_screen, stopped_line
from workspace.config import Config


class ShowsFailedWorkers(Screen[ScreenResultType]):
    """The one handler of a screen's failed workers: the status line says so, the error modal says why.

    It comes after the screen's own kind among a class's bases: Textual takes a screen's default CSS
    (a dialog's see-through backdrop) from the first base alone.
    """

    STOPPED_AFTER: ClassVar[str] = (
        ""  # added to the status line after a failure, e.g. " Nothing was written."
    )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one handler of a screen's failed workers."""
        if event.state is not WorkerState.ERROR:
            return
        self.set_status(self.failure_line(event.worker))
        modal = self.error_modal(event.worker)
        if modal is not None:
            self.app.push_screen(modal)

    def failure_line(self, worker: Worker[object]) -> str:
        """The status line under the error modal."""
        return stopped_line(worker.error) + self.STOPPED_AFTER

    def error_modal(self, worker: Worker[object]) -> ErrorScreen | None:
        """The modal a failed worker opens: a ChambersError in its own words, anything else by name.
        None for a failure that is no error to him (a run he stopped): the status line says it all."""
        return error_screen(worker.error)

    def set_status(self, text: str) -> None:
        """The screen's status line. A screen without one tells a failure in the modal only."""


class ChambersScreen(RoomScreen, ShowsFailedWorkers[None]):
    """A workstation screen: its footer keeps its keys first, its workers' errors reach the error modal."""

    HELP_TITLE: ClassVar[str] = ""  # F1's name for the screen, when its sub-title is not the right one
    HELP_KEYS: ClassVar[list[tuple[str, str]]] = []  # F1 rows for keys that are no binding (Enter in a box)

    @on(events.Mount)
    def follow_the_config(self) -> None:
        self.watch(self.app, "config", self.config_changed, init=False)

    def config_changed(self, config: Config) -> None:
        """The app runs on ``config`` from now on (Settings saved it). A screen that keeps one updates it."""


class ChambersDialog(ModalScreen[ScreenResultType], ShowsFailedWorkers[ScreenResultType]):
    """A dialog over a screen: its workers' errors reach the error modal, and its own line says what
    stopped (``set_status``)."""


def follow_config(screen: Screen[Any], app: App[Any]) -> None:
    """Keep the ``config`` of ``screen`` in step with the app's from now on, before it is mounted: a
    ChambersScreen follows from its mount, and the drafting screen is built (and installed) earlier."""

    def follow(config: Config) -> None:
        setattr(screen, "config", config)  # noqa: B010 (the screen's own attribute, not known to Screen)

    screen.watch(app, "config", follow, init=False)
