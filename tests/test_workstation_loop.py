"""The whole drafting loop on the real llama-server, by keys; and a server that dies mid-draft.

The tiny test model (SmolLM2-135M) writes fluent nonsense that seldom cites anything, so the
flag in the loop is one the attorney types into the real draft: an unsupported figure with a
Bates number. Everything after that is the real verifier, the real redline and the real
corrections store, driven through the screen's keys.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Static, TextArea

from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess
from corrections.store import get_pair
from drafting.events import PipelineEvent
from drafting.store import RunStore
from tests.support.drafting_screen_setup import VERIFIED, heard
from tests.support.pipeline_setup import demo_database, role_config
from tests.test_workstation_drafting import app_with, open_drafting, planted_run, settle
from tests.test_workstation_editing import replace_in_editor, until
from tui.drafting.screen import DraftingScreen
from tui.widgets.screens import ErrorScreen
from workspace.config import Config, Policy, Sampling

TYPED = "Summarise what the supply agreement says about delay."
PLANTED = "Calder was paid $52,000 (HPP-000004)."  # the record says $84,000 (HPP-000001); 000004 says other


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


def status(screen: DraftingScreen) -> str:
    return str(screen.query_one("#ws-status", Static).render())


async def test_ask_stream_flag_jump_fix_redline_accept(db: Path, llama_server: LlamaServerProcess) -> None:
    app, hear = app_with(role_config({}, llama_server.url), db), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        screen = await open_drafting(pilot)
        # A summary is routed, drafted and verified: the tiny model's gate and review verdicts are not under test.
        screen.query_one("#ws-task").value = "summary"  # type: ignore[attr-defined]
        instructions = screen.query_one("#ws-instructions", TextArea)
        instructions.focus()
        await pilot.press(*TYPED)
        assert instructions.text == TYPED

        # Ask: the draft streams into the screen and is the stored draft.
        streamed: list[str] = []
        real = screen.on_pipeline_event

        def counting(event: PipelineEvent) -> None:
            streamed.append(type(event).__name__)
            real(event)

        screen.on_pipeline_event = counting  # type: ignore[method-assign]
        await pilot.press("ctrl+g")
        await settle(screen)  # the run, then its loading again
        await pilot.pause()
        run = screen.run_record
        assert run is not None and run.status == "completed", status(screen)
        assert run.instructions == TYPED and streamed.count("DraftDelta") > 1
        assert screen.workspace.text == run.draft and run.draft.strip()

        # The attorney adds a sentence; the verifier flags its figure.
        await pilot.press("ctrl+t")
        editor = screen.query_one("#ws-editor", TextArea)
        assert app.focused is editor
        editor.move_cursor(editor.document.end)
        await pilot.press("enter", "enter", *PLANTED)
        await pilot.press("f6")
        await until(lambda: any(f.text == "$52,000" and f.blocking for f in screen.flag_pane.flags), pilot)

        # n jumps from flag to flag until it reaches that one, and the marked draft shows it.
        await pilot.press("ctrl+t")
        for _ in screen.flag_pane.flags:
            await pilot.press("n")
            assert screen.flag_pane.current is not None and "Flag" in status(screen)
            if screen.flag_pane.flags[screen.flag_pane.current].text == "$52,000":
                break
        assert (
            screen.flag_pane.current is not None
            and screen.flag_pane.flags[screen.flag_pane.current].text == "$52,000"
        )
        lines = str(screen.workspace.marked.render()).split("\n")
        assert any(line.startswith("B▌") and "$52,000" in line for line in lines), lines

        # An edit fixes it.
        await pilot.press("ctrl+t")
        await replace_in_editor(pilot, screen, "$52,000", "$84,000")
        await pilot.press("f6")
        await until(
            lambda: "$84,000 (HPP-000004)" in screen.workspace.text and hear.count(VERIFIED) >= 2, pilot
        )
        await until(lambda: not any(f.text == "$52,000" for f in screen.flag_pane.flags), pilot)

        # The redline shows the added sentence, against the model's draft.
        await pilot.press("f7")
        await until(lambda: screen.query_one("#ws-redline").display, pilot)
        red = str(screen.query_one("#ws-redline").render())
        assert "{+" in red and "Calder was paid $84,000 (HPP-000004)." in red and "$52,000" not in red

        # Accept: the pair of the model's draft and the attorney's text is stored.
        await pilot.press("f8")
        await until(lambda: screen.finish_bar.accepted_pair is not None, pilot)
        pair = await asyncio.to_thread(get_pair, db, screen.finish_bar.accepted_pair)  # type: ignore[arg-type]
        assert pair.draft == run.draft and pair.final == screen.workspace.text
        assert pair.final.endswith("Calder was paid $84,000 (HPP-000004).")


async def test_a_server_dying_mid_draft_keeps_the_partial_draft_and_says_so(
    db: Path, llama_server: LlamaServerProcess, llama_server_binary: Path, demo_model: Path, tmp_path: Path
) -> None:
    # The drafter gets a server of its own, told to ignore end-of-stream so that the draft is still
    # coming when it is killed (the router stays on the shared one: its JSON grammar needs an end).
    drafter = LlamaServerProcess(
        llama_server_binary,
        demo_model,
        extra_args=(*TEST_SERVER_ARGS, "--ignore-eos"),
        log_file=tmp_path / "s.log",
    )
    drafter.start()
    try:
        config = role_config({"drafter": drafter.url}, llama_server.url)
        long_draft = Sampling(seed=1, max_tokens=4000)
        backends = tuple(
            replace(b, sampling=long_draft) if b.name == "drafter" else b for b in config.backends
        )
        app = app_with(replace(config, backends=backends), db)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_drafting(pilot)
            screen.query_one("#ws-task").value = "summary"  # type: ignore[attr-defined]
            screen.query_one("#ws-instructions", TextArea).text = TYPED
            await pilot.press("ctrl+g")
            await until(
                lambda: len(screen.workspace.text) > 40 or isinstance(app.screen, ErrorScreen), pilot, 120
            )
            assert len(screen.workspace.text) > 40, status(screen)
            drafter.kill()
            await until(lambda: isinstance(app.screen, ErrorScreen), pilot, seconds=60)
            error = app.screen
            assert isinstance(error, ErrorScreen)
            assert "drafter" in error.error_message, error.error_message
            await pilot.press("escape")
            await settle(screen)  # the run winds up, and is loaded again
            await pilot.pause()
            # The screen keeps the partial draft and says so; the stored run has it too.
            run = await asyncio.to_thread(RunStore(db).load, screen.run_id)  # type: ignore[arg-type]
            assert run.status != "completed" and len(run.draft) > 40, (run.status, run.draft)
            assert screen.workspace.text.startswith(run.draft[:40])
            assert "partial draft is kept" in status(screen), status(screen)
    finally:
        drafter.stop()


async def test_the_strip_shows_a_long_prompt_being_read(db: Path) -> None:
    from drafting.events import StageProgress, StageStarted

    app = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        screen.on_pipeline_event(
            StageStarted(1, "gate", "The gate", "gate", "gatekeeper", "http://127.0.0.1:9")
        )
        screen.on_pipeline_event(StageProgress(1, "gate", 0.77, 2650))
        await pilot.pause()
        assert "reading 2,650 tok: 77%" in str(screen.query_one("#ws-strip", Static).render())


async def test_the_redline_opens_at_the_first_change_of_a_long_draft(db: Path) -> None:
    long_draft = "\n\n".join(f"Paragraph {i} says nothing of note about the freezer." for i in range(60))
    run_id = await asyncio.to_thread(planted_run, db, long_draft)
    app, hear = app_with(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        screen = await open_drafting(pilot)
        screen.show_run(run_id)
        await settle(screen)
        await pilot.press("ctrl+t")
        await replace_in_editor(pilot, screen, "Paragraph 50 says nothing", "Paragraph 50 says much")
        await hear.until(VERIFIED, pilot)  # his pause is verified first: its status line comes before F7's
        await pilot.press("f7")
        await until(lambda: screen.query_one("#ws-redline").display, pilot)
        await pilot.pause()
        scroll = screen.query_one("#ws-draft-scroll")
        # The change is some 100 rows down; the view has moved there, so it is on screen.
        assert scroll.scroll_y > 80, scroll.scroll_y
        assert "from your first change" in status(screen)
