"""The demo's guide line: it starts filled in and moves on only when each step of the loop happened."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import pytest
from textual.widgets import Select, Static, TextArea

from drafting.runs import Run, StageRecord
from tests.support.pipeline_setup import demo_database
from tests.test_workstation_drafting import OPTIONS, planted_run, settle
from tests.test_workstation_editing import config, replace_in_editor, until
from tui.app import create_app
from tui.demo import DemoFirstScreen, DemoGuide
from tui.drafting.screen import DraftingScreen, guide_step
from tui.widgets.demo_tour import DEMO_INSTRUCTIONS, DEMO_TASK, DemoTour


def test_the_tour_follows_the_loop_and_ignores_steps_out_of_order() -> None:
    tour = DemoTour()
    assert tour.advance("accepted").startswith("Demo 1/6"), "accepting before any draft does not skip ahead"
    assert tour.advance("run-stopped").startswith("Demo: the gate")
    assert tour.advance("run-completed").startswith("Demo 2/6")
    assert tour.advance("verified", blocking=0).startswith("Demo 2/6"), "still asks for the planted line"
    assert tour.advance("verified", blocking=1).startswith("Demo 3/6")
    assert tour.advance("flag-opened").startswith("Demo 4/6")
    assert tour.advance("verified", blocking=1).startswith("Demo 4/6")
    assert tour.advance("verified", blocking=0).startswith("Demo 5/6")
    assert tour.advance("exported").startswith("Demo 5/6"), "export comes after accept"
    assert tour.advance("accepted").startswith("Demo 6/6")
    assert tour.advance("exported").startswith("Demo done")


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


async def test_the_demo_screen_is_filled_in_and_its_guide_moves_with_the_attorney(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    first = partial(DemoFirstScreen, tour=DemoTour(), options=OPTIONS)
    app = create_app(config(), db, first_screen=first, start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen) and len(screen.query(DemoGuide)) == 1

        def guide() -> str:
            return str(screen.query_one("#ws-tour", Static).render())

        assert screen.query_one("#ws-task", Select).value == DEMO_TASK
        assert screen.query_one("#ws-instructions", TextArea).text == DEMO_INSTRUCTIONS
        assert guide().startswith("Demo 1/6")

        screen.show_run(run_id)  # as if Ctrl+G had drafted it: the planted draft holds two blocking figures
        await settle(screen)
        await until(lambda: guide().startswith("Demo 2/6"), pilot)
        await pilot.press("f6")
        await until(lambda: guide().startswith("Demo 3/6"), pilot)
        screen.query_one("#ws-flags").focus()
        await pilot.press("n", "enter")
        await pilot.pause()
        await pilot.press("escape")
        assert guide().startswith("Demo 4/6")

        await pilot.press("ctrl+t")
        await replace_in_editor(pilot, screen, "$52,000", "$84,000")
        await replace_in_editor(pilot, screen, "$300", "$200")
        await pilot.press("f6")
        await until(lambda: guide().startswith("Demo 5/6"), pilot)
        await pilot.press("f8")
        await until(lambda: guide().startswith("Demo 6/6"), pilot)
        await pilot.press("f9")
        await until(lambda: guide().startswith("Demo done"), pilot)
        assert screen.finish_bar.exported is not None and "$84,000" in screen.finish_bar.exported.read_text()


def test_a_theme_chosen_in_the_demo_survives_its_next_start(isolated_home: Path) -> None:
    from dataclasses import replace

    from tui.demo import _kept_ui, demo_config
    from workspace.config import UiSettings, config_to_toml
    from workspace.paths import Paths

    paths = Paths.from_environment()
    assert _kept_ui(paths) == UiSettings(), "no demo config yet: the default look"
    earlier = replace(
        demo_config("http://127.0.0.1:41234", str(paths.config_file)), ui=UiSettings("chambers-light")
    )
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(config_to_toml(earlier), encoding="utf-8")
    assert _kept_ui(paths) == UiSettings("chambers-light")
    paths.config_file.write_text("[[backends]\n", encoding="utf-8")
    assert _kept_ui(paths) == UiSettings(), "a damaged file is rewritten whole"


def test_the_guide_line_follows_the_run_itself() -> None:
    tour = DemoTour()
    assert tour.advance("run-started").startswith("Demo: the run is going")
    assert tour.advance("run-ended").startswith("Demo: the run did not finish")
    assert tour.advance("verified", blocking=1).startswith("Demo 3/6"), "a stopped run's draft goes on"
    assert tour.advance("run-started").startswith("Demo: the run is going")
    assert tour.advance("run-stopped").startswith("Demo: the gate")
    assert tour.advance("run-started").startswith("Demo: the run is going")
    assert tour.advance("run-completed").startswith("Demo 2/6")
    assert tour.advance("accepted").startswith("Demo 6/6")
    assert tour.advance("run-started").startswith("Demo: the run is going"), "a second run is followed too"
    assert tour.advance("run-completed").startswith("Demo 2/6")


def test_a_run_cancelled_after_its_draft_was_finished_guides_to_editing_it_not_drafting_again() -> None:
    def run(status: str, *stages: tuple[str, str]) -> Run:
        records = [
            StageRecord(i, 1, i, stage, None, None, None, None, None, [], "", {}, done, "2026-12-03T00:00:00")
            for i, (stage, done) in enumerate(stages)
        ]
        return Run(
            1,
            "2026-12-03T00:00:00",
            "m",
            DEMO_TASK,
            "x",
            "drafter",
            ["route", "draft", "review"],
            status,
            stages=records,
        )

    review_skipped = run("cancelled", ("route", "completed"), ("draft", "completed"), ("review", "cancelled"))
    cut_off = run("cancelled", ("route", "completed"), ("draft", "cancelled"))
    assert guide_step(review_skipped) == "run-completed"
    assert guide_step(cut_off) == "run-ended"
    assert guide_step(run("failed", ("route", "failed"))) == "run-ended"
    assert guide_step(run("completed")) == "run-completed" and guide_step(run("created")) is None
    tour = DemoTour()
    tour.advance("run-started")
    assert tour.advance(guide_step(review_skipped) or "").startswith("Demo 2/6: Ctrl+T edits the draft")


def test_the_guides_planted_line_and_its_fix_teach_a_true_citation(db: Path) -> None:
    """The real verifier on the sample matter: the planted line blocks, and the fix the guide asks for
    leaves nothing at all on that line, not even a warning (a fix that still cites the wrong page
    would teach a miscitation)."""
    from drafting.session import DraftingSession
    from drafting.store import RunStore
    from drafting.wiring import wire
    from tui.widgets.demo_tour import FIX, PLANTED

    run = RunStore(db).load(planted_run(db, draft=f"Dear Mr. Calder,\n\n{PLANTED}\n"))
    session = DraftingSession(wire(config(), db))
    before = session.reverify(run, run.draft)
    wrong, right = FIX
    assert [f.text for f in before.flags if f.blocking] == [wrong]
    after = session.reverify(run, run.draft.replace(wrong, right))
    assert after.flags == [], [(f.severity, f.text, f.message) for f in after.flags]


def test_the_guide_names_what_was_blocked_not_the_planted_figure() -> None:
    tour = DemoTour()
    tour.advance("run-completed")
    assert "2 items" in tour.advance("verified", blocking=2) and "52,000" not in tour.hint
