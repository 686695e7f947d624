"""The workstation as a new user finds it, at 80x24: what each screen has to show is laid out for it.

The gate's "no" comes from the scripted gate of ``tests/support/gate_setup.py`` (a model's stand-in:
the tiny model cannot say no on demand); the editor is shown on a planted run, verified by the real
verifier against the demo matter; the adapters are rows as ``chambers train`` registers them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static, TextArea

from tests.support.drafting_screen_setup import demo_db, open_run  # noqa: F401 (demo_db: the db fixture)
from tests.support.gate_setup import gate_saying_no, stopped_by_gate
from tests.test_corrections_screen import app_with_adapters, open_corrections, redline_text, settle
from tests.test_workstation_drafting import app_with, open_drafting, planted_run
from workspace.config import Config, Policy


def shown_whole(widget: Widget) -> bool:
    """On the screen and inside its dialog's box: a widget cut off by the box's height is not."""
    screen = Region(0, 0, *widget.app.size)
    box = widget.parent
    assert isinstance(box, Widget)
    return (
        widget.display and screen.contains_region(widget.region) and box.region.contains_region(widget.region)
    )


async def test_the_gate_dialog_keeps_its_answer_box_and_keys_when_its_reasons_run_long(db: Path) -> None:
    from tui.drafting.dialogs import ReasonScreen

    with gate_saying_no() as config:
        app = app_with(config, db)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await stopped_by_gate(pilot)
            await pilot.press("ctrl+o")
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, ReasonScreen)
            answer, foot = dialog.query_one("#reason-input", Input), dialog.query_one("#reason-foot", Static)
            assert shown_whole(answer) and shown_whole(foot), (answer.region, foot.region)
            question = str(dialog.query_one("#reason-title", Static).render())
            assert "The payment of $52,000 is not mentioned" in question
            cited = screen.run_record.sources[0]  # type: ignore[union-attr]
            assert f"[S1] {Path(cited.path).name}, page {cited.page_no}" in question
            assert str(Path(cited.path).parent) not in question  # the name, not three rows of path
            assert app.focused is answer
            assert "↑↓ scroll the question" in str(foot.render())
            scroll = dialog.query_one("#reason-scroll", VerticalScroll)
            assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
            await pilot.press("down", "down")
            await pilot.pause()
            assert scroll.scroll_y == 2 and app.focused is answer  # it scrolls; he still types his reason


async def test_a_short_question_says_nothing_of_scrolling(db: Path) -> None:
    from tui.drafting.dialogs import ReasonScreen

    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ReasonScreen("Why may '$52,000' stand?"))
        await pilot.pause()
        foot = app.screen.query_one("#reason-foot", Static)
        assert str(foot.render()) == "Enter records it · Esc gives up"


async def test_the_editor_gets_every_row_the_strip_flags_and_footer_leave_at_80x24(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("ctrl+t")
        await pilot.pause()
        editor = screen.query_one("#ws-editor", TextArea)
        assert app.focused is editor
        taken = sum(
            screen.query_one(part).outer_size.height
            for part in ("Header", "#ws-strip", "#ws-finish", "#ws-status", "Footer")
        )
        assert editor.outer_size.height == 24 - taken, (editor.outer_size, taken)
        assert (
            not screen.query_one("#ws-instructions").display and not screen.query_one("#ws-pickers").display
        )
        screen.query_one("#ws-flags").focus()  # Ctrl+E in the editor is its end of line
        await pilot.press("ctrl+e")  # the instructions come back, to be read or changed
        await pilot.pause()
        instructions = screen.query_one("#ws-instructions", TextArea)
        assert instructions.display and app.focused is instructions and instructions.region.height == 4
        await pilot.press("ctrl+t")  # back to the editor: it has the rows again
        await pilot.pause()
        assert app.focused is editor and not instructions.display
        await pilot.press("ctrl+t")  # the marked draft: the pickers and the instructions are back
        await pilot.pause()
        assert not editor.display and instructions.display and screen.query_one("#ws-pickers").display


async def test_a_tall_terminal_keeps_the_instructions_while_editing(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert screen.query_one("#ws-editor").display and screen.query_one("#ws-instructions").display


async def test_the_rates_stay_whole_beside_the_longest_backend_name(db: Path) -> None:
    from tui.drafting.pipeline_strip import PipelineStrip
    from tui.drafting.view import PipelineProgress

    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        strip = screen.query_one(PipelineStrip)
        progress = PipelineProgress.for_plan(["route", "gate", "draft", "review", "verify"])
        view = progress.get("gate")  # a backend with no board set, named as long as the strip allows
        view.backend, view.board, view.state = "workhorse-gate-1", "-", "completed"
        view.speed = "PP 10000 TG 5000 tok/s"
        strip.update(progress.render())
        await pilot.pause()
        assert strip.render_line(1).text.rstrip().endswith("PP 10000 TG 5000 tok/s")


def test_the_adapters_table_puts_base_and_state_on_their_own_line_where_the_pane_is_narrow(
    isolated_home: Path,
) -> None:
    from corrections.adapters import adapters_table, list_adapters

    app_with_adapters(isolated_home)
    records = list_adapters(isolated_home / "data" / "chambers.sqlite3")
    wide = adapters_table(records)
    assert max(len(line) for line in wide) > 76  # what the stats pane showed at 80 columns, cut
    narrow = adapters_table(records, width=76)
    assert max(len(line) for line in narrow) <= 76, narrow
    demand = narrow.index(next(line for line in narrow if line.startswith("demand-v1 ")))
    assert "0.250 → 0.200" in narrow[demand] and "50.5 → 58.2" in narrow[demand]
    assert narrow[demand + 1] == "  base smollm2-135m-instruct · stale: pair 2 excluded"
    assert adapters_table(records, width=200) == wide


async def test_statistics_and_adapters_fit_the_pane_at_80x24(isolated_home: Path) -> None:
    app = app_with_adapters(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_corrections(pilot)
        screen.query_one("#corrections-list", DataTable).focus()
        await pilot.press("s")
        await settle(pilot)
        lines = redline_text(screen).splitlines()
        assert max(len(line) for line in lines) <= 76, lines
        assert any("trend" in line for line in lines) and any("58.2" in line for line in lines)
        assert screen.query_one("#corrections-redline-scroll", VerticalScroll).max_scroll_x == 0
