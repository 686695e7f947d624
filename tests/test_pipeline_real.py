"""The whole pipeline with the real llama-server in every role: a run, its record, cancel and resume."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from drafting.events import DraftDelta, PipelineEvent, RunEnded, StageFinished, StageProgress, StageStarted
from drafting.stages import draft
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.pipeline_setup import INSTRUCTIONS, demo_database, pipeline, role_config

GO_ON = "a test: the tiny model's verdict is not under test"


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


async def test_a_demand_letter_goes_through_every_stage_on_the_real_server(
    db: Path, llama_server: LlamaServerProcess
) -> None:
    events: list[PipelineEvent] = []
    pipe = pipeline(role_config({}, llama_server.url), db, events)
    run = pipe.start(SAMPLE_MATTER, "demand-letter", INSTRUCTIONS)
    pipe.choose(run.id, go_on_anyway=GO_ON)  # the tiny model's gate verdict is not what is under test
    outcome = await pipe.execute(run.id)
    run = outcome.run

    assert run.status == "completed", [(s.stage, s.status, s.error) for s in run.stages]
    assert [s.stage for s in run.stages] == ["route", "gate", "draft", "review", "verify"]
    assert all(s.status == "completed" for s in run.stages)
    for record in run.stages[:4]:
        assert record.backend == {"route": "router", "draft": "drafter"}.get(
            record.stage, record.stage.replace("review", "reviewer")
        )
        assert record.url == llama_server.url
        assert record.server_build and record.model and record.timings
        assert record.messages and record.model_seconds is not None
    # The drafter saw exactly the evidence the run recorded, with its provenance.
    assert run.sources and all(s.bates is None or s.bates.startswith("HPP-") for s in run.sources)
    assert run.stages[2].messages == draft.STAGE.messages(run, None)
    assert run.sources[0].text.strip()[:40] in run.stages[2].messages[1]["content"]
    assert run.draft == run.stages[2].output and run.draft
    assert run.stages[1].result["basis"] in ("yes", "partial", "no")
    verify = run.stages[4].result
    assert "marks" in verify and "unanchored" in verify and verify["report"]["matter"] == SAMPLE_MATTER
    assert [m["start"] for m in verify["marks"]] == sorted(m["start"] for m in verify["marks"])

    # Every model call is on the audit trail under its role; the draft is registered as chambers' own.
    con = sqlite3.connect(db)
    roles = [r[0] for r in con.execute("SELECT role FROM audit ORDER BY id")]
    assert roles == ["router", "gate", "drafter", "reviewer"]
    assert con.execute("SELECT COUNT(*) FROM outputs WHERE kind = 'draft'").fetchone()[0] >= 1
    con.close()
    started = [e.stage for e in events if isinstance(e, StageStarted)]
    assert started == ["route", "gate", "draft", "review", "verify"]
    assert any(isinstance(e, DraftDelta) for e in events)
    # The server's own prompt progress reaches the listener for every model stage: a long prefill is visible.
    progress = [e for e in events if isinstance(e, StageProgress)]
    assert {e.stage for e in progress} == {"route", "gate", "draft", "review"}
    assert all(0.0 <= e.fraction <= 1.0 and e.total > 0 for e in progress)
    assert isinstance(events[-1], RunEnded) and events[-1].status == "completed"


async def test_cancel_mid_draft_keeps_the_partial_text_and_resume_finishes_the_run(
    db: Path, llama_server: LlamaServerProcess
) -> None:
    events: list[PipelineEvent] = []
    config = role_config({}, llama_server.url)
    pipe = pipeline(config, db, events)
    run = pipe.start(SAMPLE_MATTER, "motion", INSTRUCTIONS, drafter="workhorse")
    pipe.choose(run.id, go_on_anyway=GO_ON)
    task = asyncio.current_task()
    assert task is not None
    pipe.options.partial_every_s = 0.0

    def cancel_after_some_text(event: PipelineEvent) -> None:
        events.append(event)
        if isinstance(event, DraftDelta) and event.chars_so_far >= 20:
            inner.cancel()

    pipe.on_event = cancel_after_some_text
    inner = asyncio.ensure_future(pipe.execute(run.id))
    with pytest.raises(asyncio.CancelledError):
        await inner

    cut = pipe.store.load(run.id)
    assert cut.status == "cancelled"
    draft_try = [s for s in cut.stages if s.stage == "draft"][-1]
    assert draft_try.status == "cancelled" and len(draft_try.output) >= 20
    assert cut.next_stage() == "draft"

    outcome = await pipeline(config, db).execute(run.id)
    done = outcome.run
    assert done.status == "completed"
    assert [(s.stage, s.status) for s in done.stages] == [
        ("route", "completed"),
        ("gate", "completed"),
        ("draft", "cancelled"),
        ("draft", "completed"),
        ("review", "completed"),
        ("verify", "completed"),
    ]
    assert done.stages[2].output == draft_try.output  # the cut-short attempt stays on the record
    assert done.choice("drafter") is not None and done.drafter_role == "drafter"
    finished = [e for e in events if isinstance(e, StageFinished) and e.stage == "draft"]
    assert finished and finished[0].status == "cancelled"
