"""The pipeline strip on the drafting screen at 80x24: every stage keeps its row, however long its figures."""

from __future__ import annotations

from pathlib import Path

from tests.support.drafting_screen_setup import demo_db  # noqa: F401 (the db fixture)
from tests.test_workstation_drafting import app_with, open_drafting
from tui.drafting.pipeline_strip import PipelineStrip
from tui.drafting.view import PipelineProgress
from workspace.config import Config, Policy

PLAN = ["route", "gate", "draft", "review", "verify"]


async def test_a_stage_with_long_figures_does_not_push_the_last_stage_out_of_the_strip(db: Path) -> None:
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        strip = screen.query_one(PipelineStrip)
        progress = PipelineProgress.for_plan(PLAN)
        for stage in ("draft", "review"):  # what a reopened run on the demo's server shows
            view = progress.get(stage)
            view.backend, view.board, view.state = "demo-smollm2", "board-a", "completed"
            view.speed = "cached 4 tok, PP 143 TG 25 tok/s"
        strip.progress = progress
        strip.update(progress.render())
        await pilot.pause()
        rows = [strip.render_line(y).text for y in range(strip.size.height)]
        assert len(rows) == len(PLAN), rows
        assert "Verification" in rows[-1]
        assert "PP 143" in rows[2] and rows[2].rstrip().endswith("…")


async def test_the_tg_rate_is_on_screen_at_80_columns(db: Path) -> None:
    from tui.drafting.view import pp_tg

    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        strip = screen.query_one(PipelineStrip)
        progress = PipelineProgress.for_plan(PLAN)
        view = progress.get("draft")
        view.backend, view.board, view.state = "demo-smollm2", "board-a", "completed"
        view.speed = pp_tg(
            {
                "cache_n": 2650,
                "prompt_n": 120,
                "prompt_ms": 290.0,
                "predicted_n": 450,
                "predicted_ms": 10000.0,
            }
        )
        strip.progress = progress
        strip.update(progress.render())
        await pilot.pause()
        row = strip.render_line(2).text
        assert "TG 45 tok/s" in row, row
