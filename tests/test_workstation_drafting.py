"""The drafting screen (F4), driven with Pilot: the real pipeline on the real llama-server, and flags.

The streaming test runs every stage on the real server (SmolLM2-135M) through the screen's keys.
The flags test plants a draft with one fabricated figure in a real run (a run whose plan is only
draft and verify, so the verifier, which is code, is the only judge) and drives n/N and Enter.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich.markdown import Markdown as RichMarkdown
from textual.message import Message
from textual.widgets import OptionList, Static, TextArea

from backends.local_server import LlamaServerProcess
from drafting.pipeline import Pipeline
from drafting.runs import COMPLETED
from drafting.store import RunStore
from drafting.wiring import wire
from evidence.sample_matter import SAMPLE_MATTER
from tests.conftest import make_backend
from tests.support.pipeline_setup import INSTRUCTIONS, OPTIONS, demo_database, role_config
from tui.app import ChambersApp, create_app
from tui.drafting.dialogs import FlagScreen
from tui.drafting.screen import DraftingScreen
from tui.drafting.stream import DraftStream
from workspace.config import Config, Policy

PLANTED = (
    "# Demand\n\nThe price was $84,000 (HPP-000001), payable under the agreement of January 10, 2024.\n\n"
    'Calder was paid $52,000 (HPP-000004).\n\nThe agreement says that for each day of delay "the Seller shall '
    'pay the Buyer $300 as liquidated damages" (HPP-000002).\n\nWe ask for payment within 14 days.\n'
)


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


def app_with(config: Config, db: Path) -> ChambersApp:
    app = create_app(config, db, start_on_dashboard=False)
    app.pipeline_options = OPTIONS
    return app


async def settle(screen: Any) -> None:
    """Wait for the screen's workers (a worker may start another, so loop until none runs)."""
    for _ in range(20):
        running = [w for w in screen.workers if w.is_running]
        if not running:
            return
        await asyncio.gather(*(w.wait() for w in running), return_exceptions=True)


async def open_drafting(pilot: Any) -> DraftingScreen:
    """F4, and the drafting screen with its matters loaded and its last run (if any) reopened."""
    await pilot.press("f4")
    screen = pilot.app.screen
    assert isinstance(screen, DraftingScreen)
    await settle(screen)
    return screen


def planted_run(db: Path, draft: str = PLANTED) -> int:
    """A run whose draft is ``draft``, verified by the real verifier (no model involved)."""
    store = RunStore(db)
    run = store.create(SAMPLE_MATTER, "demand_letter", "Demand payment.", "drafter", ["draft", "verify"])
    record = store.start_stage(run.id, "draft", "drafter", "drafter", "http://127.0.0.1:9", "planted", [])
    record.output, record.status, record.result = draft, COMPLETED, {"chars": len(draft)}
    store.finish_stage(record)
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())
    asyncio.run(Pipeline(wire(config, db, options=OPTIONS)).execute(run.id))
    return run.id


async def test_f4_drafts_on_the_real_server_streaming_into_the_screen(
    db: Path, llama_server: LlamaServerProcess
) -> None:
    app = app_with(role_config({}, llama_server.url), db)
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        await settle(screen)
        await pilot.pause()
        assert screen.query_one("#ws-matter").value == SAMPLE_MATTER  # type: ignore[attr-defined]
        # A summary (route, draft, verify): the tiny model's gate and review verdicts are not under test.
        screen.query_one("#ws-task").value = "summary"  # type: ignore[attr-defined]
        screen.query_one("#ws-instructions", TextArea).text = INSTRUCTIONS
        await pilot.press("ctrl+g")
        await settle(screen)
        await pilot.pause()
        run = screen.run_record
        assert run is not None
        assert run.status == "completed", [(s.stage, s.status, s.error) for s in run.stages]
        assert [s.stage for s in run.stages] == ["route", "draft", "verify"]
        # The streamed text reached the screen, and it is the stored draft.
        assert screen.workspace.text == run.draft and run.draft.strip()
        strip = str(screen.query_one("#ws-strip", Static).render())
        assert "Drafting" in strip and "drafter" in strip and "TG" in strip and "✓" in strip
        assert "done" in str(screen.query_one("#ws-status", Static).render())

        # The context inspector shows the drafter's exact messages and every chunk with its provenance.
        await pilot.press("ctrl+n")
        from tui.drafting.context_inspector import ContextScreen

        assert isinstance(app.screen, ContextScreen)
        shown = str(app.screen.query_one("#context-text", Static).render())
        draft_stage = run.completed("draft")
        assert draft_stage is not None
        assert "Primary share" in shown and "100%" in shown
        assert str(draft_stage.messages[-1]["content"]).strip()[:60] in shown
        assert all(f"[{s.label}] {s.path}" in shown for s in run.sources) and run.sources
        await pilot.press("escape")
        assert isinstance(app.screen, DraftingScreen)


async def test_a_run_refused_by_a_server_that_is_down_opens_one_error_modal_and_says_so(db: Path) -> None:
    """The drafting screen's failed run is shown as every screen shows a failed worker: one error
    modal, and a status line that still says why once it is closed."""
    from tui.widgets.screens import ErrorScreen

    app = app_with(role_config({}, "http://127.0.0.1:9"), db)  # nothing listens on port 9
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_drafting(pilot)
        screen.query_one("#ws-instructions", TextArea).text = INSTRUCTIONS
        await pilot.press("ctrl+g")
        await settle(screen)
        await pilot.pause()
        errors = [s for s in app.screen_stack if isinstance(s, ErrorScreen)]
        assert len(errors) == 1 and app.screen is errors[0]
        assert errors[0].error_title == "A step cannot run locally"
        assert "127.0.0.1:9" in errors[0].error_message
        await pilot.press("escape")
        assert app.screen is screen
        status = str(screen.query_one("#ws-status", Static).render())
        assert status == "Stopped: A step cannot run locally.", status
        assert not screen.running() and screen.check_action("cancel_run", ()) is False  # Stop has gone


async def test_streamed_text_is_appended_per_frame_not_per_token(db: Path) -> None:
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))
    app = app_with(config, db)
    frames: dict[int, str] = {}  # each frame's message once, however far it bubbles

    def counting(message: Message) -> None:
        if isinstance(message, DraftStream.Appended):
            frames[id(message)] = message.text

    async with app.run_test(size=(80, 24), message_hook=counting) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        from drafting.events import DraftDelta

        for i in range(500):
            screen.on_pipeline_event(DraftDelta(1, f"word{i} ", i))
        await pilot.pause(0.2)
        text = "".join(f"word{i} " for i in range(500))
        appended = list(frames.values())
        assert "".join(appended) == text
        assert len(appended) <= 3  # one append per frame, not 500
        # An unfinished paragraph is shown as Markdown in the tail, parsed once per frame.
        tail = screen.query_one("#ws-draft", Static).content
        assert isinstance(tail, RichMarkdown) and tail.markup == text


async def test_flags_listed_marked_jumped_and_opened_with_their_evidence(db: Path) -> None:
    run_id = await asyncio.to_thread(planted_run, db)
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))
    app = app_with(config, db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        screen.show_run(run_id)
        await settle(screen)
        await pilot.pause()
        flags = screen.flag_pane.flags
        blocks = [f for f in flags if f.severity == "block"]
        assert blocks and any("HPP-000004" in f.text or "52,000" in f.text for f in blocks), flags
        options = screen.query_one("#ws-flags", OptionList)
        assert options.option_count == len(flags) and app.focused is options
        # The draft is shown marked; the flagged line carries the gutter letter.
        lines = str(screen.workspace.marked.render()).split("\n")
        assert any(line.startswith("B▌") and "52,000" in line for line in lines), lines

        await pilot.press("n")
        assert screen.flag_pane.current == 0 and "Flag 1/" in str(
            screen.query_one("#ws-status", Static).render()
        )
        await pilot.press("N")
        assert screen.flag_pane.current == len(flags) - 1
        quoted = next(i for i, f in enumerate(flags) if f.kind == "quotation")
        options.highlighted = quoted
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FlagScreen)
        detail = str(app.screen.query_one("#flag-detail", Static).render())
        assert "CONTRADICTED" in detail and "01-supply-agreement.pdf, page 2, Bates HPP-000002" in detail, (
            detail
        )
        assert "$200 as liquidated damages" in detail
        await pilot.press("escape")
        assert isinstance(app.screen, DraftingScreen)


async def test_a_flag_whose_passages_cannot_be_read_says_so_in_the_error_modal(tmp_path: Path) -> None:
    """The flag dialog reads the cited pages in a worker; a database it cannot read is shown, not
    left as a dialog that quietly never lists the passages."""
    from drafting.flags import FlagView
    from drafting.verify.model import Pointer
    from tui.widgets.screens import ErrorScreen

    damaged = tmp_path / "chambers.sqlite3"
    damaged.write_bytes(b"this is no SQLite database" * 100)
    flag = FlagView(
        0,
        7,
        "verifier",
        "block",
        "amount",
        "$84,000",
        "not in the evidence",
        evidence=(Pointer("01-supply-agreement.pdf", 1, snippet="84,000"),),
    )
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())
    app = create_app(config, tmp_path / "other.sqlite3", start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = FlagScreen(flag, damaged, SAMPLE_MATTER)
        app.push_screen(dialog)
        for _ in range(100):
            if isinstance(app.screen, ErrorScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, ErrorScreen) and app.screen_stack[-2] is dialog
        await pilot.press("escape")
        assert app.screen is dialog


async def test_a_long_stream_goes_into_pieces_cut_at_paragraph_breaks(db: Path) -> None:
    from tui.drafting.stream import CHUNK_CHARS, STREAM_PIECES_SHOWN

    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))
    app = app_with(config, db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        from drafting.events import DraftDelta

        paragraph = "word " * 60 + "\n\n"
        sent = ""
        created: set[int] = set()
        while len(sent) < CHUNK_CHARS * 4:
            screen.on_pipeline_event(DraftDelta(1, f"## Part {len(sent)}\n\n{paragraph}", len(sent)))
            sent += f"## Part {len(sent)}\n\n{paragraph}"
            await pilot.pause(0.05)
            created |= {id(w) for w in screen.query(".ws-draft-chunk")}
        screen.on_pipeline_event(DraftDelta(1, "the last words", len(sent)))
        sent += "the last words"
        await pilot.pause(0.2)
        assert screen.workspace.text == sent
        stream = screen.query_one("#ws-stream")
        pieces = list(stream.query_children(".ws-draft-chunk").results(Static))
        # Finished paragraphs went into pieces cut at paragraph breaks, and only the last pieces are kept
        # while streaming, so the widgets laid out each frame stay as few at the end as at the start.
        assert len(created) >= 3 and len(pieces) == STREAM_PIECES_SHOWN
        shown = [p.content for p in pieces]
        assert all(isinstance(md, RichMarkdown) for md in shown)
        sources = [md.markup for md in shown if isinstance(md, RichMarkdown)]
        assert all(s.startswith("## Part") and s.endswith("\n\n") for s in sources)
        assert all(len(s) <= CHUNK_CHARS + 2 * len(paragraph) for s in sources)  # bounded work per piece
        # The unfinished paragraph is the tail, after the pieces: together they are the end of the draft.
        tail = stream.children[-1]
        assert isinstance(tail, Static) and tail.id == "ws-draft"
        assert isinstance(tail.content, RichMarkdown) and tail.content.markup == "the last words"
        assert sent.endswith("".join(sources) + "the last words")
        # The dropped pieces are counted in a line at the top, so the attorney knows where the rest is.
        above = screen.query_one("#ws-stream-above", Static)
        dropped_words = len(sent[: len(sent) - len("".join(sources) + "the last words")].split())
        assert above.display and f"… {dropped_words:,} words above" in str(above.render())
