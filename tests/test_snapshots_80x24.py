"""Snapshots at 80x24 of what a new user meets first (update with --snapshot-update).

The pipeline strip with a stage's PP and TG rates (the scripted gate's, which stopped the run), the
gate's question over it, the draft editor, the statistics with the no-adapters hint, and the page a
flag's ``r`` opens. The gate is the scripted one of ``tests/support/gate_setup.py`` (a model's
stand-in: the tiny model cannot say no on demand); the rest is a planted run verified by the real
verifier against the demo matter, and correction pairs stored as accepting stores them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from tests.support.drafting_screen_setup import demo_db, open_run  # noqa: F401 (demo_db: the db fixture)
from tests.support.gate_setup import gate_saying_no, stopped_by_gate
from tests.test_corrections_screen import open_corrections, seeded_app, settle
from tests.test_workstation_drafting import app_with, planted_run
from tests.test_workstation_editing import until
from workspace.config import Config, Policy

SIZE = (80, 24)


def test_the_strip_with_its_rates_when_the_gate_stops_a_run(snap_compare: Any, db: Path) -> None:
    async def stop(pilot: Any) -> None:
        await stopped_by_gate(pilot)
        # No box holds the focus when the picture is taken: on a loaded machine the focus could still be
        # on its way to the instructions, and a focused box's cursor is caught lit or dark at random.
        pilot.app.set_focus(None)
        await pilot.pause()

    with gate_saying_no() as config:
        assert snap_compare(app_with(config, db), terminal_size=SIZE, run_before=stop)


def test_the_gate_question_with_its_answer_box(snap_compare: Any, db: Path) -> None:
    async def ask(pilot: Any) -> None:
        await stopped_by_gate(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()

    with gate_saying_no() as config:
        assert snap_compare(app_with(config, db), terminal_size=SIZE, run_before=ask)


def test_the_draft_editor(snap_compare: Any, db: Path) -> None:
    run_id = planted_run(db)
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())

    async def edit(pilot: Any) -> None:
        await open_run(pilot, run_id)
        await pilot.press("ctrl+t")
        await pilot.pause()

    assert snap_compare(app_with(config, db), terminal_size=SIZE, run_before=edit)


def test_the_page_a_flag_reads(snap_compare: Any, db: Path) -> None:
    from tui.widgets.evidence_views import ReadingScreen

    run_id = planted_run(db)
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())

    async def read(pilot: Any) -> None:
        screen = await open_run(pilot, run_id)
        quoted = next(i for i, f in enumerate(screen.flag_pane.flags) if f.kind == "quotation")
        screen.query_one("#ws-flags").highlighted = quoted  # type: ignore[attr-defined]
        await pilot.press("enter", "r")
        await until(lambda: isinstance(pilot.app.screen, ReadingScreen), pilot)

    assert snap_compare(app_with(config, db), terminal_size=SIZE, run_before=read)


def test_the_statistics_before_any_adapter(snap_compare: Any, isolated_home: Path) -> None:
    async def stats(pilot: Any) -> None:
        screen = await open_corrections(pilot)
        screen.query_one("#corrections-list", DataTable).focus()
        await pilot.press("s")
        await settle(pilot)

    assert snap_compare(seeded_app(isolated_home), terminal_size=SIZE, run_before=stats)
