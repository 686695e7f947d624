"""Train a LoRA adapter from the workstation (t on the corrections screen), with progress and a cancel.

The run is ``corrections.train_run.train_adapter``, the same as ``chambers train``, in a thread worker:
the stage, the step, the loss and the time left come back through ``call_from_thread``. Esc asks the
run to stop; it stops after the step (or the loading) in progress, and the training code removes its
partial folder, so a cancelled run leaves no adapter, no file and no registry row. The worker is not
cancelled by Textual: a thread cannot be interrupted, and the dialog must not say "cancelled" while
the run is still cleaning up, so it asks through an event and reports when the run has really ended.
Esc again closes.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Input, ProgressBar, Select, Static
from textual.worker import Worker, WorkerState

from corrections.adapters import AdapterRecord
from corrections.train_loop import Progress, TrainingCancelled
from tui.widgets.chambers_screen import ChambersDialog
from tui.widgets.screens import ErrorScreen, error_title
from workspace.config import Config
from workspace.errors import ChambersError


def serve_hint(backend: str, name: str) -> str:
    """How to serve the new adapter: the demo restarts its own server with it; elsewhere the backend
    names it and its server loads the file."""
    from tui.widgets.demo_tour import DEMO_BACKEND

    if backend == DEMO_BACKEND:
        return (
            f"Serve it: quit, then `chambers demo --adapter {name}`; "
            f"`chambers eval --role drafter --adapter {name}` measures it."
        )
    return f'Name it on the backend (lora = [{{ name = "{name}" }}]) and `chambers eval` measures it.'


class TrainScreen(ChambersDialog[str | None]):
    """Returns the new adapter's name, or None when nothing was trained."""

    DEFAULT_CSS = """
    TrainScreen { align: center middle; }
    #train-box { width: 76; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                 background: $surface; padding: 0 1; }
    #train-box Select, #train-box Input { width: 100%; }
    """
    BINDINGS = [Binding("escape", "cancel", "Stop / close", id="train.cancel")]

    def __init__(self, config: Config, database_file: Path) -> None:
        super().__init__()
        self.config = config
        self.database_file = database_file
        self.worker: Worker[AdapterRecord] | None = None
        self.trained: str | None = None
        self.stop = threading.Event()

    def compose(self) -> ComposeResult:
        roles = sorted({role for backend in self.config.backends for role in backend.roles})
        first = "drafter" if "drafter" in roles else (roles[0] if roles else None)
        with Vertical(id="train-box") as box:
            box.border_title = "Train an adapter from the accepted corrections"
            yield Select[str]([(r, r) for r in roles], value=first or Select.NULL, id="train-role")
            yield Input(f"{first or 'role'}-{datetime.now(UTC):%Y%m%d}", id="train-name", max_length=64)
            yield Static(
                "It trains on this role's accepted pairs (the newest fifth held out), then converts the "
                "adapter for llama-server. Enter starts; Esc stops a run and keeps nothing.",
                id="train-stage",
                markup=False,
            )
            yield ProgressBar(total=None, id="train-progress", show_eta=False)
            yield Static("", id="train-step", markup=False)
            yield Button("Train (Enter)", id="train-start", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#train-progress").display = False  # shown from the first step on
        self.query_one("#train-name", Input).focus()

    @on(Input.Submitted, "#train-name")
    @on(Button.Pressed, "#train-start")
    def start(self) -> None:
        if self.worker is not None and self.worker.is_running:
            return
        role = self.query_one("#train-role", Select).value
        name = self.query_one("#train-name", Input).value.strip()
        if not isinstance(role, str) or not name:
            self.say("Choose a role and type a name for the adapter.")
            return
        from tui.corrections.train_extra import train_extra_problem

        if (problem := train_extra_problem()) is not None:
            self.say(problem + ", then open this dialog again.")
            return
        self.query_one("#train-start", Button).disabled = True
        self.stop.clear()
        self.worker = self.train(role, name)

    @work(thread=True, exclusive=True, group="train", exit_on_error=False)
    def train(self, role: str, name: str) -> AdapterRecord:
        from backends.local_server import ensure_lora_converter
        from corrections.store import PairFilters
        from corrections.train_data import TrainingSelection
        from corrections.train_run import TrainRequest, train_adapter
        from tui.corrections.model_names import stored_model_names

        backend = self.config.backend_for_role(role)
        if not backend.weights:
            raise ChambersError(
                f"Backend '{backend.name}' names no base model: set weights = \"/path/to/model.gguf\" on it in "
                "the config (the GGUF its server loads), then train again.",
                title="Training was not started",
            )
        request = TrainRequest(
            name=name,
            role=role,
            base=Path(backend.weights).expanduser(),
            selection=TrainingSelection(
                backend.name, PairFilters(), model_names=stored_model_names(self.config, self.database_file)
            ),
        )
        converter = ensure_lora_converter(lambda line: self.app.call_from_thread(self.say, line))
        return train_adapter(
            self.database_file,
            self.database_file.parent,
            request,
            converter,
            on_stage=lambda line: self.app.call_from_thread(self.say, line),
            on_progress=lambda p: self.app.call_from_thread(self.progress, p),
            should_stop=self.stop.is_set,
        )

    def say(self, line: str) -> None:
        self.query_one("#train-stage", Static).update(line)

    def progress(self, step: Progress) -> None:
        self.query_one("#train-progress").display = True
        self.query_one("#train-progress", ProgressBar).update(total=step.total_steps, progress=step.step)
        self.query_one("#train-step", Static).update(step.line())

    def action_cancel(self) -> None:
        self.handle_escape()

    def handle_escape(self) -> bool:
        """Esc stops a run first (the app asks before it closes a dialog); with none running it closes."""
        if self.worker is not None and self.worker.is_running:
            self.stop.set()
            self.say("Stopping after the step in progress; nothing of this run is kept ...")
            return True
        self.dismiss(self.trained)
        return True

    @on(Worker.StateChanged)
    def follow_the_run(self, event: Worker.StateChanged) -> None:
        """Train waits while a run goes; a finished run says what was trained (a failure: ``failure_line``)."""
        if event.worker is not self.worker:
            return
        self.query_one("#train-start", Button).disabled = event.state is WorkerState.RUNNING
        if event.state is WorkerState.SUCCESS:
            record = event.worker.result
            assert record is not None
            self.trained = record.name
            curve = record.loss_curve
            self.say(
                f"Adapter '{record.name}': {len(curve)} steps in {record.train_seconds:.0f} s, loss "
                f"{curve[0]:.3f} -> {curve[-1]:.3f}. "
                + serve_hint(record.backend, record.name)
                + " Esc closes."
            )

    def failure_line(self, worker: Worker[object]) -> str:
        error = worker.error
        if isinstance(error, TrainingCancelled):
            return f"Cancelled. {error.message} Esc closes."
        return f"Not trained: {error_title(error)}."

    def error_modal(self, worker: Worker[object]) -> ErrorScreen | None:
        """A run he stopped is no error: the dialog's line says it was cancelled, with no modal."""
        return None if isinstance(worker.error, TrainingCancelled) else super().error_modal(worker)

    def set_status(self, text: str) -> None:
        self.say(text)
