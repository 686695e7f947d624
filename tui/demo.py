"""What ``chambers demo`` opens: the demo config, and the workstation's screens with the demo's guide.

``chambers demo`` (``tui.cli.core``) starts a real local llama-server, writes the demo config
into the current home (the Makefile sets ``CHAMBERS_HOME=.demo`` so a real config is never
overwritten), and opens the workstation on ``DemoFirstScreen``. The server is stopped when the
workstation closes.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from backends.fleet.mission import MISSION_BOARDS, mission_telemetry
from drafting.pipeline import PipelineOptions
from tui.drafting.prompt_screen import PromptScreen
from tui.drafting.screen import DraftingScreen
from tui.drafting.wiring import drafting_session
from tui.widgets.chambers_screen import follow_config
from tui.widgets.demo_tour import DEMO_BACKEND, DEMO_INSTRUCTIONS, DEMO_MODEL, DEMO_TASK, DemoTour
from workspace.audit import AuditLog
from workspace.config import Backend, Config, LoraRef, Policy, Sampling, UiSettings, load_config
from workspace.errors import ChambersError
from workspace.paths import Paths

DEMO_ROLES = ("router", "gate", "drafter", "heavy", "reviewer", "extractor")


def demo_config(
    url: str, file: str, *, weights: str | None = None, adapter: str | None = None, max_tokens: int = 512
) -> Config:
    """The demo's config: one backend for every role on the local server. ``weights`` is the GGUF that
    server loads (the base ``train`` needs), ``adapter`` the trained adapter its requests carry,
    ``max_tokens`` the longest draft it asks for."""
    backend = Backend(
        name=DEMO_BACKEND,
        kind="llamacpp",
        url=url,
        roles=DEMO_ROLES,
        model=DEMO_MODEL,
        board="board-a",  # the live demo server shown on the recorded installation's workhorse board
        sampling=Sampling(
            temperature=0.7, top_p=0.95, top_k=40, min_p=0.01, repeat_penalty=1.2, max_tokens=max_tokens
        ),
        weights=weights,
        lora=(LoraRef(adapter),) if adapter else (),
    )
    return Config(
        file=file,
        policy=Policy(local_only=True),
        boards=MISSION_BOARDS,
        backends=(backend,),
        telemetry=mission_telemetry(),
    )


# Written under the demo config, commented out: how the same model would be served by `chambers serve`
# (with a trained adapter) on a machine of his own. The demo starts its server itself.
SAMPLE_PROFILE = """
# A launch profile: how `chambers serve demo-local` would start this model (the demo starts its own).
# Uncomment it and set the port to the backend's. Adapters: `chambers demo --adapter NAME` serves one.
# [[profiles]]
# name = "demo-local"
# model = "{weights}"
# backend = "demo-smollm2"
# ctx_size = 8192
# lora = ["adapters/NAME/NAME.gguf"]
"""


def demo_config_text(config: Config) -> str:
    """The demo config as written: the TOML, then the commented sample launch profile."""
    from workspace.config import config_to_toml

    weights = config.backends[0].weights or "/path/to/model.gguf"
    return config_to_toml(config) + SAMPLE_PROFILE.format(weights=weights)


def demo_adapter_flags(paths: Paths, name: str, model: Path) -> list[str]:
    """The llama-server flags that load adapter ``name`` on the demo's server, after checking it is an
    adapter trained on the demo's model and that its file is still there."""
    from backends.lora import launch_flags
    from corrections.adapters import get_adapter
    from workspace.digest import file_sha256

    record = get_adapter(paths.database_file, name)
    if not Path(record.file).is_file():
        raise ChambersError(
            f"Adapter '{name}' names the file {record.file}, which is gone. Train it again "
            f"(F5 then t, or `chambers train --role {record.role} --name {name}`).",
            title="The demo was not started",
        )
    if record.base_sha256 != file_sha256(model):
        raise ChambersError(
            f"Adapter '{name}' was trained on {record.base_path}, not on the demo's model {model}: it "
            "cannot be served on the demo's server. `chambers adapters list` shows each adapter's base.",
            title="The demo was not started",
        )
    return launch_flags([record.file])


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
        drafting_session(config, database_file, audit=audit, options=options),
        guide=DemoGuide(tour),
        task=DEMO_TASK,
        instructions=DEMO_INSTRUCTIONS,
    )


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
        # The adapter he trained is named here: at 80 columns the board card cuts it off behind the roles.
        adapters = ", ".join(ref.name for backend in self.config.backends for ref in backend.lora)
        # At 80 columns the header has no room for both the adapter and F1 (the footer shows F1 Help).
        greeting = f"demo + adapter {adapters}: F4 drafts" if adapters else "demo: F4 drafts, F1 keys"
        if self.app.screen is not self:  # the fleet dashboard is shown over this screen
            # In the header, not a toast: a toast covers a board card for as long as it shows.
            self.app.screen.sub_title = greeting
        else:
            self.notify(
                (f"Every request carries adapter {adapters}. " if adapters else "")
                + "F4 opens the drafting screen on the sample matter, with a guide. F1 lists every key.",
                title="chambers demo",
                timeout=15,
            )
