"""The batch screen: jobs in review order (contradicted first), Enter and u open a job's run in the drafting screen."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from drafting.batch.store import BatchStore, Finish
from drafting.stages import verify
from drafting.store import RunStore
from tests.conftest import make_backend
from tests.support.batch_setup import queue
from tests.support.drafting_screen_setup import demo_db  # noqa: F401 (demo_db: the db fixture)
from tests.test_workstation_drafting import PLANTED, app_with, planted_run, settle
from tui.drafting.batch_screen import BatchScreen
from tui.drafting.screen import DraftingScreen
from workspace.config import Config, Policy

CLEAN = "Dear Sir,\n\nPlease pay the invoice within 14 days.\n"


def _batch(db: Path, tmp_path: Path) -> list[int]:
    """Four jobs: lines 2 and 4 drafted (4 with contradicted figures), line 3 failed, line 5 still queued."""
    store = BatchStore(db)
    batch = queue(db, tmp_path, 4, task="demand-letter")
    runs = []
    for draft, state in ((CLEAN, "done"), (None, "failed"), (PLANTED, "done")):
        job = store.claim(batch)
        assert job is not None
        counts = None
        if draft is not None:
            run_id = planted_run(db, draft)
            store.link(job.id, run_id)
            found = verify.completed(RunStore(db).load(run_id))
            counts = found.counts if found else None
            runs.append(run_id)
        store.finish(
            job.id,
            Finish(
                state,
                None if draft else "the drafter's server refused",
                12.0,
                40,
                8.0,
                2,
                None,
                {"drafter": 1},
                "b1-test",
                {"calls": []},
                counts,
            ),
        )
    return runs


def _config() -> Config:
    return Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))


async def _open_batches(pilot: Any) -> BatchScreen:
    pilot.app.action_batch()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, BatchScreen)
    await settle(screen)
    await pilot.pause()
    return screen


def test_batch_screen_80x24(snap_compare: Any, db: Path, tmp_path: Path) -> None:
    _batch(db, tmp_path)
    assert snap_compare(app_with(_config(), db), terminal_size=(80, 24), run_before=_open_batches)


async def test_enter_opens_the_contradicted_job_first_and_u_the_next_unreviewed(
    db: Path, tmp_path: Path
) -> None:
    clean_run, contradicted_run = await asyncio.to_thread(_batch, db, tmp_path)  # it runs the verifier
    app = app_with(_config(), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_batches(pilot)
        assert screen.view is not None
        assert [r.job.line_no for r in screen.view.rows] == [
            4,
            3,
            2,
            5,
        ]  # contradicted, failed, clean, queued
        await pilot.press("enter")
        await pilot.pause()
        drafting = app.screen
        assert isinstance(drafting, DraftingScreen)
        await settle(drafting)
        assert drafting.run_record is not None and drafting.run_record.id == contradicted_run
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("u")  # the contradicted one is seen, so the clean one is next
        await pilot.pause()
        again = app.screen
        assert isinstance(again, DraftingScreen)
        await settle(again)
        assert again.run_record is not None and again.run_record.id == clean_run
    jobs = BatchStore(db).jobs(BatchStore(db).batch("b").id)
    assert [j.line_no for j in jobs if j.reviewed_at] == [2, 4]
