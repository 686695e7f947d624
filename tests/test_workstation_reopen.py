"""A run stopped mid-stream and reopened later shows the draft it had reached.

The run is planted in a real store as the pipeline leaves a cancelled one (its draft stage cancelled
with the partial text saved); F4 in a new app reopens it as after a restart.
"""

from __future__ import annotations

from pathlib import Path

from drafting.drafts import store as drafts
from drafting.runs import CANCELLED
from drafting.store import RunStore
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.drafting_screen_setup import demo_db, drafter_config  # noqa: F401 (demo_db: the db fixture)
from tests.test_workstation_drafting import app_with, open_drafting

PARTIAL = "Dear Mr. Calder,\n\n" + "".join(f"Paragraph {i} of the unpaid balance.\n\n" for i in range(40))


def cancelled_run(db: Path) -> int:
    store = RunStore(db)
    run = store.create(SAMPLE_MATTER, "demand_letter", "Demand payment.", "drafter", ["draft", "verify"])
    record = store.start_stage(run.id, "draft", "drafter", "drafter", "http://127.0.0.1:9", "planted", [])
    record.output, record.status = PARTIAL, CANCELLED
    store.finish_stage(record)
    store.set_status(run.id, CANCELLED)
    drafts.set_last_run(db, run.id)  # as the session marks a run it starts
    return run.id


async def test_a_cancelled_run_reopened_after_a_restart_shows_its_partial_draft(db: Path) -> None:
    cancelled_run(db)
    app = app_with(drafter_config("http://127.0.0.1:9"), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        await pilot.pause()
        assert screen.run_record is not None and screen.run_record.status == CANCELLED
        text = app.export_screenshot()
        assert "Dear" in text and "Calder" in text, "the reopened run's partial draft is not on screen"
        assert "Paragraph&#160;39" not in text, "the partial draft is not shown from its start"
        assert "was stopped before it finished: the partial draft is kept" in str(
            screen.query_one("#ws-status").render()
        )
