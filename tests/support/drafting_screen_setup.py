"""What the drafting screen's tests share: the demo matter's database (the ``db`` fixture), a
drafter slow enough to press keys during its run, a config with it as the only backend, a
planted run opened on the screen, and the messages a test waits for (its saves and verifications).

The slow drafter replaces a model only where its pace matters (a run must still be going when the
keys are pressed); it is reached over real HTTP and SSE framed as llama-server frames them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tests.support.fakes import chunk, fake_server, send_json, send_sse
from tests.support.heard import Heard
from tests.support.pipeline_setup import demo_database
from tests.test_workstation_drafting import open_drafting, settle
from tui.drafting.flag_pane import FlagPane
from tui.drafting.screen import DraftingScreen
from tui.drafting.workspace import DraftWorkspace
from workspace.config import Backend, Config, Policy, Sampling


@pytest.fixture(name="db")
def demo_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the ingested demo matter; a module that imports ``demo_db`` has ``db``."""
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


SLOW_DRAFT = ["Dear Mr. Calder,\n\n"] + [f"sentence {i} of the second run. " for i in range(60)]


@contextmanager
def slow_drafter(delay: float = 0.3) -> Iterator[str]:
    """A drafter that streams SLOW_DRAFT one piece every ``delay`` seconds (about 18 s in all)."""

    def props(handler: BaseHTTPRequestHandler) -> None:
        send_json(
            handler,
            200,
            {
                "build_info": "b9999-slow",
                "model_alias": "slow",
                "default_generation_settings": {"n_ctx": 4096},
                "total_slots": 1,
            },
        )

    def chat(handler: BaseHTTPRequestHandler) -> None:
        timings = {
            "prompt_n": 10,
            "prompt_ms": 5.0,
            "predicted_n": len(SLOW_DRAFT),
            "predicted_ms": 6000.0,
            "predicted_per_second": 10.0,
        }
        frames = [chunk(piece) for piece in SLOW_DRAFT]
        frames += [chunk(finish="stop", timings=timings), "data: [DONE]\n\n"]
        send_sse(handler, frames, delay=delay)

    with fake_server({("GET", "/props"): props, ("POST", "/v1/chat/completions"): chat}) as url:
        yield url


def drafter_config(url: str) -> Config:
    backend = Backend(
        name="drafter",
        kind="llamacpp",
        url=url,
        roles=("drafter", "heavy", "extractor"),
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=200),
    )
    return Config(file="c.toml", policy=Policy(), boards=(), backends=(backend,))


def status(screen: DraftingScreen) -> str:
    return str(screen.query_one("#ws-status", Static).render())


async def open_run(pilot: Any, run_id: int) -> DraftingScreen:
    """F4, then the run ``run_id`` shown on the drafting screen and settled."""
    screen = await open_drafting(pilot)
    screen.show_run(run_id)
    await settle(screen)
    await pilot.pause()
    return screen


SAVED, VERIFIED = DraftWorkspace.Saved, FlagPane.Verified


def heard() -> Heard:
    """The run_test hook that hears the drafting screen's saves and verifications."""
    return Heard(SAVED, VERIFIED)
