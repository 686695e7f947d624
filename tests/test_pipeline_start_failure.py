"""A run that cannot start, or breaks in an unexpected way, ends marked; it is never left "running".

A run left "running" looks alive to the attorney and to ``runs list`` forever. The backends'
own failures end in a refusal; anything else (a fault in chambers itself) ends the run as
failed, with the error on the record, and still reaches the caller.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

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


async def test_a_url_httpx_cannot_parse_ends_the_run_refused_not_running(db: Path) -> None:
    """A config object made without the loader (the settings screen, the demo) can still hold such a URL."""
    with scripted_server(YES) as (url, _):
        config = role_config({"router": "http://127.0.0.1:8080\n"}, url)
        pipe = pipeline(config, db)
        run = pipe.start(SAMPLE_MATTER, "freeform", INSTRUCTIONS)
        with pytest.raises(StageRefused) as refused:
            await pipe.execute(run.id)
    assert "backend 'router'" in str(refused.value) and "cannot be used" in str(refused.value)
    kept = pipe.store.load(run.id)
    assert kept.status == "refused"
    assert [(s.stage, s.status) for s in kept.stages] == [("route", "refused")]


async def test_an_unexpected_error_marks_the_run_failed(db: Path) -> None:
    def broken_sink(event: PipelineEvent) -> None:
        if isinstance(event, StageStarted) and event.stage == "route":
            raise RuntimeError("the screen went away")

    with scripted_server(YES) as (url, _):
        config: Config = role_config({}, url)
        pipe = pipeline(replace(config), db, on_event=broken_sink)
        run = pipe.start(SAMPLE_MATTER, "freeform", INSTRUCTIONS)
        with pytest.raises(RuntimeError, match="the screen went away"):
            await pipe.execute(run.id)
    kept = pipe.store.load(run.id)
    assert kept.status == "failed"
    assert all(s.status != "running" for s in kept.stages)
