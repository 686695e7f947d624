"""A run stopped mid-stream and reopened later shows the draft it had reached; one stopped after its
draft (during the review) says F8 accepts it, and F8 does.

The run is planted in a real store as the pipeline leaves a cancelled one (its draft stage cancelled
with the partial text saved); F4 in a new app reopens it as after a restart.
"""

from __future__ import annotations

from pathlib import Path

from drafting.drafts import store as drafts
from drafting.runs import CANCELLED, COMPLETED
from drafting.store import RunStore
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.drafting_screen_setup import demo_db, drafter_config  # noqa: F401 (demo_db: the db fixture)
from tests.test_workstation_drafting import app_with, open_drafting
from tests.test_workstation_editing import until

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


async def test_a_run_stopped_after_its_draft_says_f8_accepts_it_and_f8_does(db: Path) -> None:
    # Ctrl+X during the review: the draft stage is whole, so the pair can be stored.
    store = RunStore(db)
    run = store.create(SAMPLE_MATTER, "demand_letter", "Demand payment.", "drafter", ["draft", "review"])
    drafted = store.start_stage(run.id, "draft", "drafter", "drafter", "http://127.0.0.1:9", "planted", [])
    drafted.output, drafted.status = PARTIAL, COMPLETED
    store.finish_stage(drafted)
    review = store.start_stage(run.id, "review", "reviewer", "drafter", "http://127.0.0.1:9", "planted", [])
    review.status = CANCELLED
    store.finish_stage(review)
    store.set_status(run.id, CANCELLED)
    drafts.set_last_run(db, run.id)
    app = app_with(drafter_config("http://127.0.0.1:9"), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        await pilot.pause()
        status = str(screen.query_one("#ws-status").render())
        assert "stopped after its draft was finished" in status and "F8 accepts it" in status, status
        await pilot.press("f8")
        await until(lambda: screen.finish_bar.accepted_pair is not None, pilot)
