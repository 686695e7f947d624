"""What ``chambers demo`` opens: the demo config, and the workstation's screens with the demo's guide.

``chambers demo`` (``tui.commands.core``) starts a real local llama-server, writes the demo config
into the current home (the Makefile sets ``CHAMBERS_HOME=.demo`` so a real config is never
overwritten), and opens the workstation on ``DemoFirstScreen``. The server is stopped when the
workstation closes.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from backends.fleet.mission import MISSION_BOARDS, mission_telemetry
from drafting.pipeline import PipelineOptions
from tui.chambers_screen import follow_config
from tui.demo_tour import DEMO_INSTRUCTIONS, DEMO_TASK, DemoTour
from tui.drafting_screen import DraftingScreen
from tui.prompt_screen import PromptScreen
from workspace.audit import AuditLog
from workspace.config import Backend, Config, Policy, Sampling, UiSettings, load_config
from workspace.errors import ChambersError
from workspace.paths import Paths

DEMO_ROLES = ("router", "gate", "drafter", "heavy", "reviewer", "extractor")


def demo_config(url: str, file: str) -> Config:
    backend = Backend(
        name="demo-smollm2",
        kind="llamacpp",
        url=url,
        roles=DEMO_ROLES,
        model="smollm2-135m-instruct",
        board="board-a",  # the live demo server shown on the recorded installation's workhorse board
        sampling=Sampling(
            temperature=0.7, top_p=0.95, top_k=40, min_p=0.01, repeat_penalty=1.2, max_tokens=512
        ),
    )
    return Config(
        file=file, policy=Policy(local_only=True), boards=MISSION_BOARDS, backends=(backend,),
        telemetry=mission_telemetry(),
    )  # fmt: skip


def _kept_ui(paths: Paths) -> UiSettings:
    """The theme chosen in an earlier demo: the server's port is new at every start, the look need not be."""
    try:
        return load_config(paths.config_file).ui
    except ChambersError:  # no demo config yet, or a damaged one: it is rewritten whole
        return UiSettings()


class DemoGuide(Static):
    """The demo's guide line above the status: what to press next, moved on by each ``StepReached``."""

    def __init__(self, tour: DemoTour) -> None:
        super().__init__(tour.hint, id="ws-tour", markup=False)
        self.tour = tour

    def on_drafting_screen_step_reached(self, event: DraftingScreen.StepReached) -> None:
        self.update(self.tour.advance(event.step, blocking=event.blocking))


def demo_drafting_screen(
    config: Config, database_file: Path, audit: AuditLog, *, options: PipelineOptions | None, tour: DemoTour
) -> DraftingScreen:
    """The drafting screen with the demo's guide, the sample task and its instructions filled in
    (only when nothing is reopened: restoring a run puts its own task and instructions back)."""
    return DraftingScreen(
        config, database_file, audit, options=options, guide=DemoGuide(tour),
        task=DEMO_TASK, instructions=DEMO_INSTRUCTIONS,
    )  # fmt: skip


class DemoFirstScreen(PromptScreen):
    """The first screen with the demo's greeting; F4 opens the drafting screen with the guide line."""

    def __init__(
        self, config: Config, audit: AuditLog, *, tour: DemoTour, options: PipelineOptions | None = None
    ) -> None:
        super().__init__(config, audit)
        self.tour = tour
        self.options = options

    def on_mount(self) -> None:
        # Installed under the drafting screen's name, so the app's F4 opens this one.
        drafting = demo_drafting_screen(
            self.config, self.audit.database_file, self.audit, options=self.options, tour=self.tour
        )
        follow_config(drafting, self.app)
        self.app.install_screen(drafting, name="drafting")
        self.call_after_refresh(self.greet)

    def greet(self) -> None:
        if self.app.screen is not self:  # the fleet dashboard is shown over this screen
            # In the header, not a toast: a toast covers a board card for as long as it shows.
            self.app.screen.sub_title = "demo: F4 drafts, F1 keys"
        else:
            self.notify("F4 opens the drafting screen on the sample matter, with a guide. F1 lists every key.",
                        title="chambers demo", timeout=15)  # fmt: skip
