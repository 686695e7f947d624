"""What the drafting screen's parts share: the two messages they tell the screen by, and their failures.

The draft workspace, the flag pane and the finish bar each do their own work in their own workers,
and tell the screen what happened by message: ``Status`` for its status line, ``Reached`` for a step
of the drafting loop (the screen announces it to the guide). A widget's worker reports its state to
the widget alone (``Worker.StateChanged`` does not bubble), so a part hands its failures to the
screen's one handler, to be shown like every other worker's.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker

from tui.widgets.chambers_screen import ShowsFailedWorkers


@dataclass
class Status(Message):
    """Say ``text`` on the screen's status line."""

    text: str


@dataclass
class Reached(Message):
    """A step of the drafting loop happened (``DraftingScreen.StepReached`` names them)."""

    step: str
    blocking: int = 0


class DraftingPart(Widget):
    """A part of the drafting screen: it says what it did by message, and its failures reach the screen."""

    def say(self, text: str) -> None:
        self.post_message(Status(text))

    def reach(self, step: str, *, blocking: int = 0) -> None:
        self.post_message(Reached(step, blocking))

    @on(Worker.StateChanged)
    def failure_reaches_the_screen(self, event: Worker.StateChanged) -> None:
        if isinstance(self.screen, ShowsFailedWorkers):
            self.screen.on_worker_state_changed(event)
