"""``chambers demo``: a real local llama-server, a demo config, and the workstation.

The demo config is written with tomli-w into the current home (the Makefile
sets ``CHAMBERS_HOME=.demo`` so a real config is never overwritten). The
server is stopped when the workstation closes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.widgets import Static

from backends.fleet.mission import MISSION_BOARDS, mission_telemetry
from backends.local_server import LlamaServerProcess, ensure_demo_model, ensure_llama_server
from drafting.pipeline import PipelineOptions
from evidence.guard import check_output
from tui.demo_tour import DEMO_INSTRUCTIONS, DEMO_TASK, DemoTour
from tui.drafting_screen import DraftingScreen
from workspace.audit import AuditLog
from workspace.config import Backend, Config, Policy, Sampling, UiSettings, config_to_toml, load_config
from workspace.errors import ChambersError
from workspace.paths import Paths, write_atomically

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


def run_demo(paths: Paths) -> int:
    from tui.app import create_app

    def progress(message: str) -> None:
        print(message, flush=True)

    check_output(paths.database_file, paths.config_file, what="demo home (CHAMBERS_HOME)")
    from tui.commands.evidence import setup_demo_matter

    setup_demo_matter(paths)
    from tui.commands.exhibits import setup_demo_exhibits

    setup_demo_exhibits(paths)
    binary = ensure_llama_server(progress)
    model = ensure_demo_model(progress)
    server = LlamaServerProcess(binary, model, log_file=paths.data_dir / "demo-llama-server.log")
    progress(f"Starting llama-server on {server.url} ...")
    with server:
        config = replace(demo_config(server.url, str(paths.config_file)), ui=_kept_ui(paths))
        write_atomically(paths.config_file, config_to_toml(config).encode("utf-8"))
        progress(f"Demo config written to {paths.config_file}")
        app = create_app(config, paths.database_file)
        app.demo_tour = DemoTour()
        app.run()
    return 0


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
