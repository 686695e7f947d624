"""The finished draft on the drafting screen (F4): every flag marked, n/N bring each into view, and
the garbage collector's heap freeze outlives the stream a while, then ends.

The long draft is planted in a real run and verified by the real verifier against the demo matter
(no model involved), so its flags are the verifier's own.
"""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll

from drafting.events import DraftDelta
from tests.conftest import make_backend
from tests.support.drafting_screen_setup import demo_db  # noqa: F401 (the db fixture)
from tests.test_workstation_drafting import app_with, open_drafting, planted_run, settle
from tui import app as tui_app
from tui.drafting.dialogs import FlagScreen
from tui.drafting.screen import DraftingScreen
from workspace.config import Config, Policy

FILLER = "The buyer gave notice of the defect and the seller did not cure it within the time the agreement allows. "
LONG = "# Demand\n\n" + "\n\n".join(
    FILLER * (12 if i == 17 else 3)  # one paragraph taller than the view at 80x24
    + ("Calder was paid $52,000 (HPP-000004)." if i in (2, 17) else "The price was $84,000 (HPP-000001).")
    for i in range(20)
)


def config() -> Config:
    return Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))


async def test_every_flag_is_marked_and_n_brings_each_into_view(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db, LONG)
    app = app_with(config(), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        # Streamed first, as a run does: the view follows the stream's end (anchored to the bottom).
        for i in range(0, len(LONG), 40):
            screen.on_pipeline_event(DraftDelta(1, LONG[i : i + 40], i))
        while screen.stream.drawing:
            await pilot.pause(0.05)
        screen.stream.end()
        screen.show_run(run_id)
        await settle(screen)
        await pilot.pause()
        flags = screen.flags
        assert len([f for f in flags if "52,000" in f.text]) == 2, flags
        shown = str(screen.marked.render()).split("\n")
        # The whole draft is shown, a gutter of two cells on each line, a letter on each flagged one.
        assert [line[2:] for line in shown] == LONG.split("\n")
        for flag in flags:
            line = LONG[: flag.start].count("\n")
            assert shown[line][0] in "BWRr" and shown[line][1] == "▌", (flag, shown[line])
            assert flag.text in shown[line]

        scroll = screen.query_one("#ws-draft-scroll", VerticalScroll)
        scrolled, tall = 0.0, 0
        for step, key in enumerate(["n"] * len(flags) + ["N"]):
            await pilot.press(key)
            await pilot.pause()
            expected = step % len(flags) if key == "n" else len(flags) - 2
            assert screen.current == expected
            # The flag's line is in view, all of it; a line taller than the view, the flag's own rows.
            flag = flags[expected]
            height = scroll.scrollable_content_region.height
            first, rows = screen.marked.rows_of_line(LONG[: flag.start].count("\n"))
            if rows > height:
                first, rows = screen.marked.rows_of_span(flag.start, flag.end)
                tall += 1
            top = screen.marked.virtual_region.y + first
            visible = range(round(scroll.scroll_y), round(scroll.scroll_y) + height)
            assert top in visible and top + rows - 1 in visible, (key, expected, top, rows, scroll.scroll_y)
            on_screen = [screen.marked.render_line(y - screen.marked.virtual_region.y).text for y in visible]
            assert any(flag.text.split()[0] in row for row in on_screen), (flag, on_screen)
            scrolled = max(scrolled, scroll.scroll_y)
        assert scrolled > 0 and tall  # the jumps did scroll it, once to a paragraph taller than the view

        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FlagScreen)


async def test_the_heap_stays_frozen_a_while_after_a_stream_and_is_then_released(
    db: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tui_app, "RELEASE_AFTER_S", 0.2)
    app = app_with(config(), db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        assert gc.get_freeze_count() == 0
        screen.on_pipeline_event(DraftDelta(1, "First stream. ", 1))
        await pilot.pause()  # the stream's Started reaches the app's policy
        assert gc.get_freeze_count() > 0
        screen.stream.end()
        await pilot.pause(0.05)
        assert gc.get_freeze_count() > 0  # the finished draft is drawn before the collector walks it all

        # A stream that starts before the release is due keeps the heap frozen past it.
        screen.on_pipeline_event(DraftDelta(1, "Second stream. ", 2))
        await pilot.pause(0.4)
        assert gc.get_freeze_count() > 0
        screen.stream.end()
        for _ in range(100):
            if gc.get_freeze_count() == 0:
                break
            await pilot.pause(0.05)
        assert gc.get_freeze_count() == 0


async def test_the_marked_draft_draws_the_rows_a_static_would_draw_also_after_a_jump() -> None:
    """Drawn a row at a time from rows wrapped once, the marked draft must look exactly as the whole
    text in a Static: the same characters, colours and attributes on every row, at an odd width."""
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from drafting.flags import FlagView
    from tui.drafting.flags import MarkedDraft
    from tui.drafting.view import marked_text

    flags = [
        FlagView(i, i + len(word), "verifier", severity, "amount", word, "not in the record")
        for word, severity in (("$52,000", "block"), ("$84,000", "warn"))
        for i in range(len(LONG))
        if LONG.startswith(word, i)
    ]
    across = LONG.index("(HPP-000004).") + 5  # a reviewer's finding that runs on over a paragraph break
    flags.append(
        FlagView(across, across + 60, "reviewer", "medium", "review", LONG[across : across + 60], "why")
    )
    flags.sort(key=lambda f: f.start)
    spanning = next(i for i, f in enumerate(flags) if "\n" in f.text)

    class Side(App[None]):
        CSS = "Static, MarkedDraft { width: 37; height: auto; }"

        def compose(self) -> ComposeResult:
            yield MarkedDraft(id="marked")
            yield Static(Text(""), id="static")

    def rows(widget: Any) -> list[list[tuple[str, Any]]]:
        return [
            [(seg.text, seg.style) for seg in widget.render_line(y) if seg.text]
            for y in range(widget.size.height)
        ]

    app = Side()
    async with app.run_test(size=(80, 400)) as pilot:
        marked = app.query_one(MarkedDraft)
        static = app.query_one("#static", Static)
        marked.flags = flags
        marked.show(LONG)
        static.update(marked_text(LONG, flags, None))
        await pilot.pause()
        assert marked.size.height == static.size.height > len(LONG.split("\n"))
        assert rows(marked) == rows(static)
        for current in (3, spanning, 0, spanning, len(flags) - 1):
            marked.current = current
            static.update(marked_text(LONG, flags, current))
            await pilot.pause()
            assert rows(marked) == rows(static), current
