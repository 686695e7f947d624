"""The matter and the task a run is asked for, picked from two lists above the instructions.

The matters are read from the database in a thread worker when the pickers are mounted; a run
reopened puts its own matter and task back (``choose``), even before the list of matters arrives.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Select

from drafting.session import DraftingSession
from drafting.tasks import TASKS
from tui.drafting.parts import DraftingPart


class RunPickers(Horizontal, DraftingPart):
    """The matter and the task pickers, side by side."""

    def __init__(self, session: DraftingSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.matters: list[str] = []

    def compose(self) -> ComposeResult:
        yield Select[str]([], prompt="Matter", id="ws-matter", allow_blank=True)
        yield Select[str](
            [(t.title, t.name) for t in TASKS.values()], value="motion", id="ws-task", allow_blank=False
        )

    def on_mount(self) -> None:
        self.load_matters()

    @property
    def matter(self) -> str | None:
        value = self.query_one("#ws-matter", Select).value
        return value if isinstance(value, str) else None

    @property
    def task_type(self) -> str:
        return str(self.query_one("#ws-task", Select).value)

    @task_type.setter
    def task_type(self, task_type: str) -> None:
        self.query_one("#ws-task", Select).value = task_type

    @work(thread=True, exclusive=True, group="matters", exit_on_error=False)
    def load_matters(self) -> None:
        names = self.session.matters()
        if names is None:
            self.say("No matters yet: create one with `chambers matter new`.")
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

    def choose(self, matter: str, task_type: str) -> None:
        """A reopened run's matter (listed, should it be new since the list was read) and task."""
        if matter not in self.matters:
            self._show_matters([*self.matters, matter])
        self.query_one("#ws-matter", Select).value = matter
        self.task_type = task_type
