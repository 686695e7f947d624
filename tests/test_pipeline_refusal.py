"""No fallback: a stage whose backend is down, missing or not allowed refuses, names itself, and stops.

Every connection the process opens is recorded (as tests/test_socket_guard.py does), so the tests
show that once a stage is refused nothing is sent anywhere else.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backends.local_server import LlamaServerProcess
from drafting.events import PipelineEvent, StageStarted
from drafting.refusal import StageRefused
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.pipeline_setup import INSTRUCTIONS, demo_database, pipeline, role_config
from tests.support.scripted_server import scripted_server
from workspace.config import Config

YES = {"basis": "yes", "reasons": ["The agreement."], "evidence": ["S1"]}


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    seen: list[Any] = []
    real = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield seen


async def test_stopping_the_reviewers_server_yields_the_named_refusal_and_nothing_goes_elsewhere(
    db: Path,
    llama_server: LlamaServerProcess,
    llama_server_binary: Path,
    demo_model: Path,
    tmp_path: Path,
    connections: list[Any],
) -> None:
    reviewer = LlamaServerProcess(llama_server_binary, demo_model, log_file=tmp_path / "reviewer.log")
    reviewer.start()
    reviewer.stop()  # the reviewer's own server, really started and then stopped
    port = reviewer.port
    events: list[PipelineEvent] = []
    marks: list[int] = []

    def sink(event: PipelineEvent) -> None:
        events.append(event)
        if isinstance(event, StageStarted) and event.stage == "review":
            marks.append(len(connections))

    with scripted_server(YES) as (gate_url, _):
        config = role_config({"gate": gate_url, "reviewer": reviewer.url}, llama_server.url)
        pipe = pipeline(config, db, on_event=sink)
        run = pipe.start(SAMPLE_MATTER, "demand_letter", INSTRUCTIONS)
        with pytest.raises(StageRefused) as refused:
            await pipe.execute(run.id)

    assert str(refused.value).startswith(
        f"Adversarial review cannot run locally: backend 'reviewer' at 127.0.0.1:{port} refused the connection."
    )
    assert refused.value.stage == "review" and refused.value.address == f"127.0.0.1:{port}"
    after = connections[marks[0] :]
    assert after and {a[1] for a in after} == {port}  # only the reviewer's own address was tried
    kept = pipe.store.load(run.id)
    assert kept.status == "refused" and kept.draft  # the run keeps what it has
    assert [(s.stage, s.status) for s in kept.stages][-1] == ("review", "refused")
    assert kept.next_stage() == "review"

    # Only the attorney can send that stage elsewhere, and the choice is on the record.
    pipe.choose(run.id, reroutes=[("review", "router")], reason="the reviewer box is down for repair")
    done = (await pipe.execute(run.id)).run
    assert done.status == "completed"
    review = [s for s in done.stages if s.stage == "review"]
    assert [s.status for s in review] == ["refused", "completed"] and review[-1].backend == "router"
    (choice,) = [c for c in done.choices if c.kind == "reroute"]
    assert (choice.stage, choice.value, choice.reason) == (
        "review",
        "router",
        "the reviewer box is down for repair",
    )


async def test_a_role_with_no_backend_and_a_public_address_are_refused_without_a_connection(
    db: Path, connections: list[Any]
) -> None:
    with scripted_server(YES) as (url, _):
        full = role_config({"gate": url, "drafter": "http://8.8.8.8:8080"}, url)
        no_router = Config(
            full.file, full.policy, (), tuple(b for b in full.backends if b.name != "reviewer")
        )
        pipe = pipeline(no_router, db)
        run = pipe.start(SAMPLE_MATTER, "freeform", INSTRUCTIONS)
        with pytest.raises(StageRefused) as refused:
            await pipe.execute(run.id)
        assert str(refused.value).startswith(
            "Drafting cannot run locally: backend 'drafter' at 8.8.8.8:8080 is not allowed by the local-only policy"
        )
        assert all(a[0] != "8.8.8.8" for a in connections)

        pipe.choose(run.id, reroutes=[("draft", "gate")], reason="draft on the gate box today")
        with pytest.raises(StageRefused) as missing:
            await pipe.execute(run.id)
    assert str(missing.value).startswith(
        "Adversarial review cannot run locally: no backend in the config has the role 'reviewer'."
    )
    assert pipe.store.load(run.id).status == "refused"
