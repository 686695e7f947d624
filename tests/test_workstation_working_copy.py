"""The attorney's working copy on the drafting screen is never mixed with another run's text, and never lost.

A new run empties the pane first (and saves his edits under their own run); while it runs, the keys
that act on a draft wait; the editor keeps its own text and undo history across Ctrl+T and screen
switches; every save keeps a short version history that Ctrl+R puts back; an autosave that empties
the text says so; Ctrl+T on an editor reopened after a crash edits instead of closing it; F9 asks
before exporting an empty or unfinished draft and never overwrites an earlier export.

The new run is drafted by the slow drafter of ``tests/support/drafting_screen_setup.py`` (a model's stand-in
only where its pace matters).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import TextArea

from drafting.drafts import store as drafts
from tests.support.drafting_screen_setup import (
    SAVED,
    VERIFIED,
    demo_db,  # noqa: F401 (the db fixture)
    drafter_config,
    heard,
    open_run,
    slow_drafter,
    status,
)
from tests.test_workstation_drafting import app_with, planted_run, settle
from tests.test_workstation_editing import until
from tui.drafting.dialogs import ConfirmScreen
from tui.drafting.screen import DraftingScreen
from tui.drafting.versions import VersionsScreen
from workspace.config import Config, Policy


def said(screen: DraftingScreen) -> list[str]:
    """Every status line the screen shows from now on (a later one, a verify's say, may replace it at once)."""
    lines: list[str] = []
    real = screen.set_status

    def spy(text: str) -> None:
        lines.append(text)
        real(text)

    screen.set_status = spy  # type: ignore[method-assign]
    return lines


async def test_a_new_run_clears_the_pane_and_keeps_the_old_edits_under_their_own_run(db: Path) -> None:
    first = await asyncio.to_thread(planted_run, db)
    with slow_drafter() as url:
        app = app_with(drafter_config(url), db)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_run(pilot, first)
            await pilot.press("ctrl+t", "end", *" EDITED-IN-RUN-ONE")
            await pilot.press("f7")  # his redline is on show when he asks for a new run
            await until(lambda: screen.query_one("#ws-redline").display, pilot)
            screen.query_one("#ws-task").value = "summary"  # type: ignore[attr-defined]
            await pilot.press("ctrl+g")
            await until(lambda: screen.run_id != first and "sentence 3" in screen.workspace.text, pilot)
            # One pane, one run: the redline and the editor are gone, the stream is what shows.
            assert not screen.query_one("#ws-redline").display
            assert not screen.query_one("#ws-editor").display
            assert screen.query_one("#ws-stream").display
            assert "EDITED-IN-RUN-ONE" not in screen.workspace.text
            # While it runs, the keys that read or change a draft wait, instead of mixing the two runs.
            lines = said(screen)
            for key in ("f7", "ctrl+t", "f8", "f9", "f6", "ctrl+r"):
                lines.clear()
                await pilot.press(key)
                assert screen.running() and any("A run is writing the draft" in line for line in lines), key
                assert (
                    not screen.query_one("#ws-redline").display and not screen.query_one("#ws-editor").display
                )
            await settle(screen)
            await until(lambda: screen.run_record is not None and screen.run_record.id != first, pilot)
            second = screen.run_id
            assert second is not None and second != first
            assert (
                screen.workspace.text.startswith("Dear Mr. Calder") and "EDITED" not in screen.workspace.text
            )
            # His edits of the first run were saved under the first run, and nothing under the second.
            saved = drafts.load(db, first)
            assert saved is not None and "# Demand EDITED-IN-RUN-ONE" in saved.text
            assert drafts.load(db, second) is None
            # F7 with no edits says so rather than marking the whole draft inserted.
            lines.clear()
            await pilot.press("f7")
            assert any("No changes yet" in line for line in lines), lines
            assert not screen.query_one("#ws-redline").display


async def test_the_working_copy_survives_delete_undo_toggles_and_screen_switches(db: Path) -> None:
    """The sequence that once emptied the editor: select all, delete, F6, F9, Ctrl+Z, Ctrl+T, F2, F2, Ctrl+T."""
    run_id = await asyncio.to_thread(planted_run, db)
    app, hear = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("ctrl+t")
        editor = screen.query_one("#ws-editor", TextArea)
        original = editor.text
        lines = said(screen)
        editor.select_all()
        await pilot.press("delete")
        await hear.until(SAVED, pilot)
        # The autosave emptied the copy: it says so, and the text before is kept as a version.
        assert any("now empty" in line and "Ctrl+R" in line for line in lines), lines
        await pilot.press("f6")
        await settle(screen)
        await pilot.press("f9")  # an empty text: it asks first
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, DraftingScreen) and screen.finish_bar.exports is None
        assert not (db.parent / "exports").exists()  # nothing was written
        await pilot.press("ctrl+z")
        assert editor.text == original
        await pilot.press("ctrl+t", "f2", "f2", "ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, DraftingScreen) and editor.display
        assert editor.text == original and screen.workspace.text == original
        await pilot.press("ctrl+y")  # the undo history survived the round trip too: redo empties it again
        assert editor.text == ""
        await pilot.press("ctrl+z")
        assert editor.text == original


async def test_versions_are_kept_and_ctrl_r_puts_one_back(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    app, hear = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("ctrl+t", "end", *" ALPHA")
        await hear.until(SAVED, pilot)
        editor = screen.query_one("#ws-editor", TextArea)
        with_alpha = editor.text
        editor.select_all()
        await pilot.press("delete", *"BETA")
        await until(lambda: drafts.load(db, run_id).text == "BETA", pilot)  # type: ignore[union-attr]
        kept = [v.text for v in drafts.versions(db, run_id)]
        assert kept[0] == "BETA" and with_alpha in kept  # the deletion started a new version
        await pilot.press("ctrl+r")
        await until(lambda: isinstance(app.screen, VersionsScreen), pilot)
        versions = app.screen
        assert isinstance(versions, VersionsScreen)
        labels = [c.label for c in versions.listed]
        assert "1 words" in labels[0] and labels[-1].startswith("the model's draft")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, DraftingScreen) and editor.text == with_alpha
        await until(lambda: drafts.load(db, run_id).text == with_alpha, pilot)  # type: ignore[union-attr]
        # Putting a version back keeps the state it replaced among the versions, and Ctrl+Z takes it back.
        assert "BETA" in [v.text for v in drafts.versions(db, run_id)]
        await pilot.press("ctrl+z")
        assert editor.text == "BETA"


def test_the_history_is_short_and_an_emptying_save_is_reported(db: Path) -> None:
    run_id = planted_run(db)
    assert drafts.save(db, run_id, "one two three four", (0, 0), previous="the model's draft") is None
    assert drafts.save(db, run_id, "one two three four five", (0, 0)) is None
    assert [v.text for v in drafts.versions(db, run_id)] == ["one two three four five"]  # typed on: updated
    replaced = drafts.save(db, run_id, "", (0, 0))
    assert replaced == "one two three four five"
    assert [v.text for v in drafts.versions(db, run_id)] == ["", "one two three four five"]
    for i in range(drafts.VERSIONS_KEPT + 5):
        drafts.save(db, run_id, f"text {i}", (0, 0), new_version=True)
    assert len(drafts.versions(db, run_id)) == drafts.VERSIONS_KEPT


async def test_ctrl_t_on_the_editor_reopened_after_a_crash_edits_it(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    await asyncio.to_thread(drafts.save, db, run_id, "RESTORED TEXT", (0, 8))
    app, hear = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        await hear.until(VERIFIED, pilot)
        editor = screen.query_one("#ws-editor", TextArea)
        assert editor.display and editor.text == "RESTORED TEXT"
        await pilot.press("ctrl+t", *" MORE")
        assert editor.display and editor.text == "RESTORED MORE TEXT"
        await pilot.press("ctrl+t")  # from now on Ctrl+T toggles as usual
        assert not editor.display


async def test_a_second_export_is_a_new_version_of_the_files(db: Path) -> None:
    from drafting.session import export_files

    run_id = await asyncio.to_thread(planted_run, db, "# Demand\n\nWe ask for payment within 14 days.\n")
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("f9")
        await until(lambda: screen.finish_bar.exports is not None, pilot)
        first = screen.finish_bar.exports
        assert first is not None and first.docx.name == f"run-{run_id}-demand_letter.docx"
        screen.finish_bar.exports = None
        await pilot.press("f9")
        await until(lambda: screen.finish_bar.exports is not None, pilot)
        second = screen.finish_bar.exports
        assert second is not None and second.docx.name == f"run-{run_id}-demand_letter-v2.docx"
        assert second.redline.name == f"run-{run_id}-demand_letter-v2-redline.docx"
        assert first.docx.is_file() and second.docx.is_file() and "-v2" in status(screen)
        assert export_files(first.docx.parent, f"run-{run_id}-demand_letter").docx.name.endswith("-v3.docx")
