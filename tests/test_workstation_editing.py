"""Editing the draft on the drafting screen: re-verify after typing, undo, autosave, restore, and SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import TextArea

from drafting.drafts import store as drafts
from tests.conftest import make_backend
from tests.support.drafting_screen_setup import SAVED, VERIFIED, heard
from tests.support.pipeline_setup import demo_database
from tests.test_workstation_drafting import app_with, planted_run, settle
from tui.drafting.editor import DEBOUNCE_S
from tui.drafting.screen import DraftingScreen
from workspace.config import Config, Policy

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


def config() -> Config:
    return Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))


async def until(condition: object, pilot: object, seconds: float = 20.0) -> None:
    """Wait for ``condition``, then for what was posted meanwhile (a part's status line) to arrive."""
    for _ in range(int(seconds / 0.05)):
        if condition():  # type: ignore[operator]
            await pilot.pause()  # type: ignore[attr-defined]
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError("timed out")


async def test_an_edit_fixes_a_flag_undo_brings_it_back_and_reopening_restores_it(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    app, hear = app_with(config(), db), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        screen.show_run(run_id)
        await settle(screen)
        await pilot.pause()
        assert any(f.text == "$52,000" for f in screen.flag_pane.flags)
        await pilot.press("ctrl+t")
        editor = screen.query_one("#ws-editor", TextArea)
        assert app.focused is editor
        start = screen.workspace.text.index("$52,000")
        row = screen.workspace.text.count("\n", 0, start)
        col = start - (screen.workspace.text.rfind("\n", 0, start) + 1)
        editor.move_cursor((row, col))
        await pilot.press(*["delete"] * len("$52,000"), *"$84,000")
        await until(
            lambda: (
                hear.count(SAVED) >= 1 and hear.count(VERIFIED) >= 1 and "$84,000 (HPP-000004)" in editor.text
            ),
            pilot,
        )
        await until(lambda: not any(f.text == "$52,000" for f in screen.flag_pane.flags), pilot)
        assert not any(f.text == "$84,000" and f.severity == "block" for f in screen.flag_pane.flags)
        saved = drafts.load(db, run_id)
        assert saved is not None and "Calder was paid $84,000" in saved.text
        cursor = editor.cursor_location

        # Undo walks back to the model's text; redo forward again.
        await pilot.press("ctrl+z")
        assert "Calder was paid $84,000" not in editor.text
        await pilot.press("ctrl+y")
        assert "Calder was paid $84,000" in editor.text

    # Reopening (a new app on the same database) restores the run, the edited text, the cursor and the flags.
    again, hear = app_with(config(), db), heard()
    async with again.run_test(size=(80, 24), message_hook=hear) as pilot:
        await pilot.press("f4")
        screen = again.screen
        assert isinstance(screen, DraftingScreen)
        await hear.until(VERIFIED, pilot)
        assert screen.run_id == run_id and "Calder was paid $84,000" in screen.workspace.text
        editor = screen.query_one("#ws-editor", TextArea)
        assert editor.display and editor.cursor_location == cursor
        assert any(f.kind == "quotation" for f in screen.flag_pane.flags)
        assert not any(f.text == "$52,000" for f in screen.flag_pane.flags)


def _child(db: Path, run_id: int, wait_s: float, until_line: str) -> str:
    """Run the workstation in a child process, SIGKILL it once it prints ``until_line``; the saved text."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.workstation_child", str(db), str(run_id), str(wait_s)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() == until_line:
                break
        else:
            raise AssertionError(f"the child ended early: {proc.stderr.read() if proc.stderr else ''}")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    saved = drafts.load(db, run_id)
    assert saved is not None
    return saved.text


def test_sigkill_loses_at_most_the_last_two_seconds(db: Path) -> None:
    run_id = planted_run(db)
    # Killed right after typing: what was saved before survives; the last keystrokes may be lost.
    text = _child(db, run_id, 0.0, "TYPED")
    assert text.startswith(" FIRST") and "SECOND" not in text[len(" FIRST ") :]
    # Killed 2 s after the last keystroke: nothing is lost.
    text = _child(db, run_id, DEBOUNCE_S, "WAITED")
    assert "FIRST SECOND" in text.split("#")[0]


async def replace_in_editor(pilot: object, screen: DraftingScreen, old: str, new: str) -> None:
    editor = screen.query_one("#ws-editor", TextArea)
    start = screen.workspace.text.index(old)
    row = screen.workspace.text.count("\n", 0, start)
    editor.move_cursor((row, start - (screen.workspace.text.rfind("\n", 0, start) + 1)))
    await pilot.press(*["delete"] * len(old), *new)  # type: ignore[attr-defined]


async def test_redline_export_refused_until_blocks_are_fixed_or_overridden_then_accept(db: Path) -> None:
    from corrections.store import get_pair
    from tui.drafting.dialogs import FlagScreen, ReasonScreen

    run_id = await asyncio.to_thread(planted_run, db)
    app, hear = app_with(config(), db), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        screen.show_run(run_id)
        await settle(screen)
        await pilot.pause()
        await pilot.press("ctrl+t")
        await replace_in_editor(pilot, screen, "$52,000", "$84,000")
        await pilot.press("f6")
        await until(
            lambda: (
                not any(f.text == "$52,000" for f in screen.flag_pane.flags) and hear.count(VERIFIED) >= 1
            ),
            pilot,
        )

        # The redline shows the edit, word level.
        await pilot.press("f7")
        await settle(screen)
        await pilot.pause()
        red = str(screen.query_one("#ws-redline").render())
        assert "[- $52,000-]{+ $84,000+}" in red, red

        # Export is refused while the misquotation and the $300 block.
        await pilot.press("f9")
        assert screen.finish_bar.exported is None and "Export refused: 2 blocking" in str(
            screen.query_one("#ws-status").render()
        )
        # Override the quotation with a reason; the $300 still blocks.
        await pilot.press("f7")  # back to the marked draft
        quoted = next(i for i, f in enumerate(screen.flag_pane.flags) if f.kind == "quotation")
        screen.query_one("#ws-flags").focus()
        screen.query_one("#ws-flags").highlighted = quoted  # type: ignore[attr-defined]
        await pilot.press("enter")
        assert isinstance(app.screen, FlagScreen)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, ReasonScreen)
        await pilot.press(*"the figure is argued from the invoice, see brief", "enter")
        await until(
            lambda: any(f.kind == "quotation" and f.overridden for f in screen.flag_pane.flags), pilot
        )
        await pilot.press("f9")
        assert screen.finish_bar.exported is None and "1 blocking" in str(
            screen.query_one("#ws-status").render()
        )

        # Fix the $300 by editing: nothing blocks, export goes through, accept stores the pair.
        await pilot.press("ctrl+t")
        await replace_in_editor(pilot, screen, "$300", "$200")
        await pilot.press("f6")
        await until(
            lambda: (
                not screen.flag_pane.blocking()
                and "$200 as" in screen.workspace.text
                and hear.count(VERIFIED) >= 3
            ),
            pilot,
        )
        await pilot.press("f9")
        await until(lambda: screen.finish_bar.exported is not None, pilot)
        assert (
            screen.finish_bar.exported is not None
            and "Calder was paid $84,000" in screen.finish_bar.exported.read_text()
        )
        assert (
            screen.finish_bar.exports is not None
            and screen.finish_bar.exports.docx.is_file()
            and screen.finish_bar.exports.redline.is_file()
        )
        assert screen.finish_bar.exports.redline.name in str(screen.query_one("#ws-status").render())
        await pilot.press("f8")
        await until(lambda: screen.finish_bar.accepted_pair is not None, pilot)
        pair = get_pair(db, screen.finish_bar.accepted_pair)  # type: ignore[arg-type]
        assert "Calder was paid $52,000" in pair.draft and "Calder was paid $84,000" in pair.final
