"""The workstation's prompt and backend list, driven with Pilot against the real llama-server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable, Input, Markdown, Static

from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess
from tests.conftest import make_backend
from tests.support.fakes import closed_port
from tui.app import ChambersApp, create_app
from tui.drafting.prompt_screen import PromptScreen
from tui.widgets.screens import ErrorScreen, HelpScreen
from workspace.audit import AuditLog
from workspace.config import Backend, Config, Policy, Sampling


def app_for(home: Path, *backends: Backend) -> ChambersApp:
    config = Config(file="test-config.toml", policy=Policy(), boards=(), backends=backends)
    return create_app(config, home / "chambers.sqlite3")


def first(app: ChambersApp) -> PromptScreen:
    """The screen under all others: the backend list, the prompt and its draft."""
    screen = app.screen_stack[0]
    assert isinstance(screen, PromptScreen)
    return screen


def status_text(app: ChambersApp) -> str:
    return str(app.query_one("#stream-status", Static).render())


async def wait_for_workers(app: ChambersApp) -> None:
    """Wait for every worker to end; a failed one is checked through the error modal instead."""
    await asyncio.gather(*(worker.wait() for worker in app.workers), return_exceptions=True)


async def type_prompt(pilot: object, app: ChambersApp, text: str) -> None:
    app.query_one("#prompt", Input).value = text
    await pilot.press("enter")  # type: ignore[attr-defined]


async def test_backends_listed_with_health_model_and_context(
    llama_backend: Backend, isolated_home: Path
) -> None:
    down = make_backend(f"http://127.0.0.1:{closed_port()}", name="asleep", kind="llamacpp")
    app = app_for(isolated_home, llama_backend, down)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(app)
        await pilot.pause()
        table = app.query_one("#backends", DataTable)
        assert table.get_cell("local", "health") == "ok"
        assert table.get_cell("local", "model") == "smollm2-135m-instruct"
        assert int(table.get_cell("local", "n_ctx")) > 0
        assert table.get_cell("asleep", "health") == "down"
        assert "connection refused" in (first(app).statuses["asleep"].problem or "")


async def test_prompt_streams_and_ends_with_pp_tg(llama_backend: Backend, isolated_home: Path) -> None:
    app = app_for(isolated_home, llama_backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_prompt(pilot, app, "Name one duty of a landlord.")
        await wait_for_workers(app)
        await pilot.pause()
        prompt = first(app)
        assert prompt.draft_text.strip()
        assert app.query_one("#draft", Markdown).source.strip()
        status = status_text(app)
        assert "PP" in status and "TG" in status and "tok/s" in status
    (row,) = AuditLog(isolated_home / "chambers.sqlite3").recent()
    assert row.outcome == "completed" and row.response_text == prompt.draft_text


async def test_empty_prompt_sends_nothing(llama_backend: Backend, isolated_home: Path) -> None:
    app = app_for(isolated_home, llama_backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_prompt(pilot, app, "   ")
        await pilot.pause()
        assert "prompt is empty" in status_text(app)
    assert AuditLog(isolated_home / "chambers.sqlite3").recent() == []


async def test_escape_cancels_and_keeps_the_text(llama_backend: Backend, isolated_home: Path) -> None:
    slow = make_backend(llama_backend.url, sampling=Sampling(max_tokens=4000))
    app = app_for(isolated_home, slow)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one("#prompt", Input).value = "Write a long letter to the tenant."
        # ignore_eos keeps the tiny model talking so that Esc lands mid-stream.
        first(app).request_extra = {"ignore_eos": True}
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.05)
            if len(first(app).draft_text) > 20:
                break
        await pilot.press("escape")
        await wait_for_workers(app)
        assert "Cancelled" in status_text(app)
        assert first(app).draft_text
    (row,) = AuditLog(isolated_home / "chambers.sqlite3").recent()
    assert row.outcome == "cancelled"


async def test_server_down_shows_plain_error(isolated_home: Path) -> None:
    down = make_backend(f"http://127.0.0.1:{closed_port()}", name="asleep")
    app = app_for(isolated_home, down)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_prompt(pilot, app, "Hello?")
        await wait_for_workers(app)
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.error_title == "Model server not reachable"
        assert "asleep" in app.screen.error_message
        await pilot.press("escape")
        assert not isinstance(app.screen, ErrorScreen)


async def test_server_killed_mid_stream_keeps_draft_marked_incomplete(
    llama_server_binary: Path, demo_model: Path, isolated_home: Path, tmp_path: Path
) -> None:
    server = LlamaServerProcess(
        llama_server_binary, demo_model, extra_args=TEST_SERVER_ARGS, log_file=tmp_path / "s.log"
    )
    server.start()
    try:
        app = app_for(isolated_home, make_backend(server.url, sampling=Sampling(max_tokens=4000)))
        async with app.run_test(size=(80, 24)) as pilot:
            first(app).request_extra = {"ignore_eos": True}
            await type_prompt(pilot, app, "Write a long letter.")
            for _ in range(200):
                await pilot.pause(0.05)
                if len(first(app).draft_text) > 20:
                    break
            server.kill()
            await wait_for_workers(app)
            await pilot.pause()
            assert isinstance(app.screen, ErrorScreen)
            assert "stopped mid-answer" in app.screen.error_title
            source = app.query_one("#draft", Markdown).source
            assert source.startswith(first(app).draft_text.rstrip()[:20]) and "Incomplete" in source
    finally:
        server.stop()


async def test_help_lists_every_binding(isolated_home: Path) -> None:
    app = app_for(isolated_home, make_backend(f"http://127.0.0.1:{closed_port()}"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        keys = " ".join(str(app.screen.query_one("#help-keys", Static).render()).split())  # long ones wrap
        for binding in [*PromptScreen.BINDINGS, *ChambersApp.BINDINGS]:
            assert binding.tooltip and binding.tooltip in keys  # type: ignore[union-attr]
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
