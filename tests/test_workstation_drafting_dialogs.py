"""The drafting screen's keys, dialogs and lists: the editor's motions and F1, the footers at 80
columns, the flag dialog and the page it opens, the gate's "no" explained, the pipeline strip's
rates, and draft text shown as written wherever it is listed.

The gate's "no" comes from the scripted gate of ``tests/support/scripted_server.py`` (a model's stand-in:
the tiny model cannot say no on demand); everything else runs on a planted run, verified by the
real verifier against the demo matter.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import Static, TextArea

from tests.support.drafting_screen_setup import demo_db, drafter_config, open_run  # noqa: F401 (demo_db: the db fixture)
from tests.support.pipeline_setup import INSTRUCTIONS
from tests.test_workstation_drafting import app_with, open_drafting, planted_run, settle
from tests.test_workstation_editing import until
from tui.drafting.screen import DraftingScreen
from tui.drafting.versions import VersionsScreen
from workspace.config import Backend, Config, Policy, Sampling


async def test_the_editor_has_document_and_paragraph_motions_listed_in_f1(db: Path) -> None:
    from tui.widgets.screens import HelpScreen

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
    from tui.widgets.screens import HelpScreen

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
    from tui.drafting.dialogs import FlagScreen, shorten
    from tui.widgets.evidence_views import ReadingScreen

    run_id = await asyncio.to_thread(planted_run, db)
    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot, run_id)
        quoted = next(i for i, f in enumerate(screen.flag_pane.flags) if f.kind == "quotation")
        screen.query_one("#ws-flags").highlighted = quoted  # type: ignore[attr-defined]
        await pilot.press("enter")
        assert isinstance(app.screen, FlagScreen)
        assert "r reads the page" in str(app.screen.query_one("#flag-foot", Static).render())
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ReadingScreen), pilot)
        reader = app.screen
        assert isinstance(reader, ReadingScreen)
        assert "HPP-000002" in reader.heading and "page 2" in reader.heading
        # Named inside the matter's folder, as the evidence screen names it: it fits 80 columns.
        assert reader.heading == "HPP-000002  01-supply-agreement.pdf, page 2 of 3", reader.heading
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
    from tui.drafting.view import pp_tg

    cached = {"cache_n": 2650, "prompt_n": 1, "prompt_ms": 0.0, "predicted_n": 1, "predicted_ms": 0.4}
    assert pp_tg(cached) == "cached 2,650 tok"
    fresh = {"cache_n": 0, "prompt_n": 3100, "prompt_ms": 7500.0, "predicted_n": 120, "predicted_ms": 2650.0}
    assert pp_tg(fresh) == "PP 413 TG 45 tok/s"
    both = {**fresh, "cache_n": 2650}
    assert pp_tg(both) == "PP 413 TG 45 tok/s, cached 2,650 tok"  # the rates first: TG is never cut


async def test_the_gate_counts_its_tokens_and_its_no_is_explained_in_the_dialog(db: Path) -> None:
    """The scripted gate (tests/support/scripted_server.py) stands in for a model's "no", which the tiny model cannot give on demand."""
    from drafting.events import StageTokens
    from tests.support.scripted_server import scripted_server
    from tui.drafting.dialogs import ReasonScreen

    no = {
        "basis": "no",
        "reasons": ["Nothing in the record shows a demand was ever owed."],
        "evidence": ["S1"],
    }
    with scripted_server(no) as (gate_url, _):
        gate = Backend(
            name="gate",
            kind="llamacpp",
            url=gate_url,
            roles=("gate",),
            sampling=Sampling(temperature=0.0, seed=1, max_tokens=200),
        )
        config = Config(
            file="c.toml", policy=Policy(), boards=(), backends=(gate, *drafter_config(gate_url).backends)
        )
        app = app_with(config, db)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_drafting(pilot)
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
            assert cited.label == label and f"[S1] {Path(cited.path).name}, page {cited.page_no}" in question


def test_a_passage_is_shown_as_its_page_has_it_in_whole_words() -> None:
    from tui.drafting.dialogs import original_passage

    page = "Section 4. Upon Completion, the Seller shall pay the Buyer $200 as liquidated damages."
    assert (
        original_passage("pletion the seller shall pay the bu", page)
        == "Completion, the Seller shall pay the Buyer"
    )
    assert original_passage("nothing like it", page) is None


async def test_draft_text_in_lists_is_shown_as_written_not_read_as_markup(db: Path) -> None:
    from textual.widgets import OptionList

    from tui.drafting.versions import Choice

    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(VersionsScreen([Choice("[S2] file: report [/b] page", "[S2] file")]))
        await pilot.pause()
        listing = app.screen.query_one("#versions-list", OptionList)
        assert str(listing.get_option_at_index(0).prompt) == "[S2] file: report [/b] page"
