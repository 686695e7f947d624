"""The attorney's working copy on the drafting screen is never mixed with another run's text, and never lost.

A new run empties the pane first (and saves his edits under their own run); while it runs, the keys
that act on a draft wait; the editor keeps its own text and undo history across Ctrl+T and screen
switches; every save keeps a short version history that Ctrl+R puts back; an autosave that empties
the text says so; Ctrl+T on an editor reopened after a crash edits instead of closing it; F9 asks
before exporting an empty or unfinished draft and never overwrites an earlier export.

The slow drafter below replaces a model only where its pace matters (a run must still be going
when the keys are pressed); it is reached over real HTTP and SSE framed as llama-server frames them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static, TextArea

from drafting.drafts import store as drafts
from tests.fakes import chunk, fake_server, send_json, send_sse
from tests.pipeline_setup import INSTRUCTIONS, demo_database
from tests.test_workstation_drafting import app_with, planted_run, settle
from tests.test_workstation_editing import until
from tui.drafting_dialogs import ConfirmScreen
from tui.drafting_screen import DraftingScreen
from tui.drafting_versions import VersionsScreen
from workspace.config import Backend, Config, Policy, Sampling

SLOW_DRAFT = ["Dear Mr. Calder,\n\n"] + [f"sentence {i} of the second run. " for i in range(60)]


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


@contextmanager
def slow_drafter(delay: float = 0.3) -> Iterator[str]:
    """A drafter that streams SLOW_DRAFT one piece every ``delay`` seconds (about 18 s in all)."""

    def props(handler: BaseHTTPRequestHandler) -> None:
        send_json(handler, 200, {"build_info": "b9999-slow", "model_alias": "slow",
                                 "default_generation_settings": {"n_ctx": 4096}, "total_slots": 1})  # fmt: skip

    def chat(handler: BaseHTTPRequestHandler) -> None:
        timings = {"prompt_n": 10, "prompt_ms": 5.0, "predicted_n": len(SLOW_DRAFT), "predicted_ms": 6000.0,
                   "predicted_per_second": 10.0}  # fmt: skip
        frames = [chunk(piece) for piece in SLOW_DRAFT]
        frames += [chunk(finish="stop", timings=timings), "data: [DONE]\n\n"]
        send_sse(handler, frames, delay=delay)

    with fake_server({("GET", "/props"): props, ("POST", "/v1/chat/completions"): chat}) as url:
        yield url


def drafter_config(url: str) -> Config:
    backend = Backend(name="drafter", kind="llamacpp", url=url, roles=("drafter", "heavy", "extractor"),
                      sampling=Sampling(temperature=0.0, seed=1, max_tokens=200))  # fmt: skip
    return Config(file="c.toml", policy=Policy(), boards=(), backends=(backend,))


def status(screen: DraftingScreen) -> str:
    return str(screen.query_one("#ws-status", Static).render())


def said(screen: DraftingScreen) -> list[str]:
    """Every status line the screen shows from now on (a later one, a verify's say, may replace it at once)."""
    lines: list[str] = []
    real = screen.set_status

    def spy(text: str) -> None:
        lines.append(text)
        real(text)

    screen.set_status = spy  # type: ignore[method-assign]
    return lines


async def open_run(pilot: Any, run_id: int) -> DraftingScreen:
    await pilot.press("f4")
    screen = pilot.app.screen
    assert isinstance(screen, DraftingScreen)
    await settle(screen)
    screen.show_run(run_id)
    await settle(screen)
    await pilot.pause()
    return screen


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
            await until(lambda: screen.run_id != first and "sentence 3" in screen.draft_text, pilot)
            # One pane, one run: the redline and the editor are gone, the stream is what shows.
            assert not screen.query_one("#ws-redline").display
            assert not screen.query_one("#ws-editor").display
            assert screen.query_one("#ws-stream").display
            assert "EDITED-IN-RUN-ONE" not in screen.draft_text
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
            assert screen.draft_text.startswith("Dear Mr. Calder") and "EDITED" not in screen.draft_text
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
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("ctrl+t")
        editor = screen.query_one("#ws-editor", TextArea)
        original = editor.text
        lines = said(screen)
        editor.select_all()
        await pilot.press("delete")
        await until(lambda: screen.saves >= 1, pilot)
        # The autosave emptied the copy: it says so, and the text before is kept as a version.
        assert any("now empty" in line and "Ctrl+R" in line for line in lines), lines
        await pilot.press("f6")
        await settle(screen)
        await pilot.press("f9")  # an empty text: it asks first
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, DraftingScreen) and screen.exports is None
        assert not (db.parent / "exports").exists()  # nothing was written
        await pilot.press("ctrl+z")
        assert editor.text == original
        await pilot.press("ctrl+t", "f2", "f2", "ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, DraftingScreen) and editor.display
        assert editor.text == original and screen.draft_text == original
        await pilot.press("ctrl+y")  # the undo history survived the round trip too: redo empties it again
        assert editor.text == ""
        await pilot.press("ctrl+z")
        assert editor.text == original


async def test_versions_are_kept_and_ctrl_r_puts_one_back(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("ctrl+t", "end", *" ALPHA")
        await until(lambda: screen.saves >= 1, pilot)
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
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        await until(lambda: screen.verifies >= 1, pilot)
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
        await until(lambda: screen.exports is not None, pilot)
        first = screen.exports
        assert first is not None and first.docx.name == f"run-{run_id}-demand_letter.docx"
        screen.exports = None
        await pilot.press("f9")
        await until(lambda: screen.exports is not None, pilot)
        second = screen.exports
        assert second is not None and second.docx.name == f"run-{run_id}-demand_letter-v2.docx"
        assert second.redline.name == f"run-{run_id}-demand_letter-v2-redline.docx"
        assert first.docx.is_file() and second.docx.is_file() and "-v2" in status(screen)
        assert export_files(first.docx.parent, f"run-{run_id}-demand_letter").docx.name.endswith("-v3.docx")


async def test_the_editor_has_document_and_paragraph_motions_listed_in_f1(db: Path) -> None:
    from tui.screens import HelpScreen

    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        await pilot.press("ctrl+t")
        editor = screen.query_one("#ws-editor", TextArea)
        await pilot.press("ctrl+end")
        assert editor.cursor_location == editor.document.end
        await pilot.press("ctrl+home")
        assert editor.cursor_location == (0, 0)
        await pilot.press("ctrl+down")
        assert editor.cursor_location == (2, 0) and editor.document.lines[2].startswith("The price")
        await pilot.press("ctrl+down", "ctrl+up")
        assert editor.cursor_location == (2, 0)
        await pilot.press("ctrl+shift+end")
        assert editor.selected_text == editor.text[editor.text.index("The price") :]
        # An undo that leaves fewer lines than the cursor's row (a long paste taken back) keeps the app up.
        await pilot.press("ctrl+end", "enter", "enter", "enter", *"pasted", "ctrl+z")
        assert "pasted" not in editor.text and editor.cursor_location[0] < len(editor.document.lines)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        keys = str(app.screen.query_one("#help-keys", Static).render())
        assert "ctrl+home" in keys and "ctrl+end" in keys and "ctrl+up" in keys and "ctrl+left/right" in keys


async def test_help_starts_with_the_screens_keys_and_footers_keep_them_at_80_columns(db: Path) -> None:
    from tui.screens import HelpScreen

    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        footer = [b.binding.key for b in screen.active_bindings.values() if b.binding.show]
        # The drafting keys come first in the footer, then F1 and Esc; Esc says Back, not Cancel.
        assert footer[:8] == ["ctrl+g", "ctrl+t", "f6", "f7", "f8", "f9", "f1", "escape"], footer
        escape = next(b.binding for b in screen.active_bindings.values() if b.binding.key == "escape")
        assert escape.description == "Back"
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        first_section, first_rows = app.screen.sections[0]
        assert first_section == "This screen: Drafting" and first_rows[0][0] == "ctrl+g"
        assert {"ctrl+t", "f6", "f7", "f8", "f9", "n", "N", "ctrl+r"} <= {k for k, _ in first_rows}
        assert not app.screen.rows[0][1].startswith("Stop the answer")
        everywhere = dict(app.screen.sections[-1][1])
        assert everywhere["escape"].startswith("Back to the screen before") and "ctrl+p" in everywhere
        await pilot.press("pagedown")  # the list scrolls
        assert app.screen.query_one("#help-scroll").scroll_y > 0
        await pilot.press("escape")
        assert isinstance(app.screen, DraftingScreen)


async def test_the_flag_dialog_opens_its_evidence_page_in_the_reader(db: Path) -> None:
    from tui.drafting_dialogs import FlagScreen, shorten
    from tui.evidence_views import ReadingScreen

    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        quoted = next(i for i, f in enumerate(screen.flags) if f.kind == "quotation")
        screen.query_one("#ws-flags").highlighted = quoted  # type: ignore[attr-defined]
        await pilot.press("enter")
        assert isinstance(app.screen, FlagScreen)
        assert "r reads the page" in str(app.screen.query_one("#flag-foot", Static).render())
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ReadingScreen), pilot)
        reader = app.screen
        assert isinstance(reader, ReadingScreen)
        assert "HPP-000002" in reader.heading and "page 2" in reader.heading
        assert "Seller" in str(reader.body)  # the page as ingested, in its own case
        await pilot.press("escape")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, FlagScreen) and bool(app.screen.passages), pilot)
        detail = str(app.screen.query_one("#flag-detail", Static).render())
        # The passage in its page's case, not the verifier's lower case; and where the verifier looked.
        assert "the Seller shall pay the Buyer $200" in detail, detail
        assert "Searched: " in detail and "01-supply-agreement.pdf" in detail and "notes.pdf" not in detail
    assert shorten("word " * 100, 30) == "word word word word word word…"


def test_a_cached_prompt_reads_cached_and_no_rate_is_given_over_no_time() -> None:
    from tui.drafting_view import pp_tg

    cached = {"cache_n": 2650, "prompt_n": 1, "prompt_ms": 0.0, "predicted_n": 1, "predicted_ms": 0.4}
    assert pp_tg(cached) == "cached 2,650 tok"
    fresh = {"cache_n": 0, "prompt_n": 3100, "prompt_ms": 7500.0, "predicted_n": 120, "predicted_ms": 2650.0}
    assert pp_tg(fresh) == "PP 413 TG 45 tok/s"
    both = {**fresh, "cache_n": 2650}
    assert pp_tg(both) == "cached 2,650 tok, PP 413 TG 45 tok/s"


async def test_the_gate_counts_its_tokens_and_its_no_is_explained_in_the_dialog(db: Path) -> None:
    """The scripted gate (tests/scripted_server.py) stands in for a model's "no", which the tiny model cannot give on demand."""
    from drafting.events import StageTokens
    from tests.scripted_server import scripted_server
    from tui.drafting_dialogs import ReasonScreen

    no = {
        "basis": "no",
        "reasons": ["Nothing in the record shows a demand was ever owed."],
        "evidence": ["S1"],
    }
    with scripted_server(no) as (gate_url, _):
        gate = Backend(name="gate", kind="llamacpp", url=gate_url, roles=("gate",),
                       sampling=Sampling(temperature=0.0, seed=1, max_tokens=200))  # fmt: skip
        config = Config(
            file="c.toml", policy=Policy(), boards=(), backends=(gate, *drafter_config(gate_url).backends)
        )
        app = app_with(config, db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f4")
            screen = app.screen
            assert isinstance(screen, DraftingScreen)
            await settle(screen)
            shown: list[str] = []
            real = screen.on_pipeline_event

            def watch(event: Any) -> None:
                real(event)
                if isinstance(event, StageTokens):
                    shown.append(str(screen.query_one("#ws-strip", Static).render()))

            screen.on_pipeline_event = watch  # type: ignore[method-assign]
            screen.query_one("#ws-task").value = "demand_letter"  # type: ignore[attr-defined]
            screen.query_one("#ws-instructions", TextArea).text = INSTRUCTIONS
            await pilot.press("ctrl+g")
            await settle(screen)
            await until(
                lambda: screen.run_record is not None and screen.run_record.status == "stopped", pilot
            )
            assert shown and "running    1 tok" in shown[0], shown
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert isinstance(app.screen, ReasonScreen)
            question = str(app.screen.query_one("#reason-title", Static).render())
            assert "NO basis" in question and "Nothing in the record shows a demand" in question
            label, cited = "S1", screen.run_record.sources[0]  # type: ignore[union-attr]
            assert cited.label == label and f"[S1] {cited.path}, page {cited.page_no}" in question


def test_a_passage_is_shown_as_its_page_has_it_in_whole_words() -> None:
    from tui.drafting_dialogs import original_passage

    page = "Section 4. Upon Completion, the Seller shall pay the Buyer $200 as liquidated damages."
    assert (
        original_passage("pletion the seller shall pay the bu", page)
        == "Completion, the Seller shall pay the Buyer"
    )
    assert original_passage("nothing like it", page) is None


async def test_draft_text_in_lists_is_shown_as_written_not_read_as_markup(db: Path) -> None:
    from textual.widgets import OptionList

    from tui.drafting_versions import Choice

    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(VersionsScreen([Choice("[S2] file: report [/b] page", "[S2] file")]))
        await pilot.pause()
        listing = app.screen.query_one("#versions-list", OptionList)
        assert str(listing.get_option_at_index(0).prompt) == "[S2] file: report [/b] page"
