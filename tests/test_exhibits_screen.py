"""The exhibits screen, driven with Pilot over a real ingested matter; snapshots at 80x24 and 120x40."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pymupdf
from textual.widgets import DataTable, Input, ProgressBar, Static

from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from tests.conftest import make_backend
from tests.support.exhibits_files import text_pdf
from tests.support.screen_host import ScreenHost
from tui.app import ChambersApp, create_app
from tui.exhibits.screen import ExhibitsScreen
from tui.widgets.screens import ErrorScreen
from workspace.config import Config, Policy


def seeded_app(home: Path, sources: Path) -> ChambersApp:
    """The workstation over a matter with three indexed PDFs (the backend is a closed port: no server)."""
    text_pdf(sources / "01-contract.pdf", ["Supply agreement.", "Price and completion.", "Signatures."])
    text_pdf(sources / "02-invoice.pdf", ["Invoice INV-1041."])
    text_pdf(sources / "03-letter.pdf", ["Letter of June 13.", "Second page."])
    db_file = home / "data" / "chambers.sqlite3"
    create_matter(db_file, "harbor", [sources])
    ingest_matter(db_file, "harbor", tessdata=None)
    config = Config(
        file="config.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),)
    )
    return create_app(config, db_file, start_on_dashboard=False)


async def settle(pilot: Any) -> None:
    """Wait for the workers, and on the exhibits screen for its document list to be shown."""
    for _ in range(400):  # bounded: a broken screen fails the test instead of hanging it
        await asyncio.gather(*(w.wait() for w in pilot.app.workers), return_exceptions=True)
        await asyncio.gather(*(w.wait() for w in pilot.app.screen.workers), return_exceptions=True)
        await pilot.pause()
        screen = pilot.app.screen
        shown = not isinstance(screen, ExhibitsScreen) or screen.documents_shown
        if shown and not any(w.is_running for w in [*pilot.app.workers, *screen.workers]):
            return
    raise AssertionError("the exhibits screen never showed its documents")


async def open_exhibits(pilot: Any) -> ExhibitsScreen:
    await pilot.press("f3")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ExhibitsScreen)
    return screen


async def test_pick_order_preview_and_run_a_production(isolated_home: Path, tmp_path: Path) -> None:
    app = seeded_app(isolated_home, tmp_path / "sources")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_exhibits(pilot)
        docs = screen.query_one("#exhibits-documents", DataTable)
        assert docs.row_count == 3
        docs.focus()
        await pilot.press("a", "down", "down", "a", "up", "a")  # contract, letter, invoice
        assert [d.path.name for d in screen.chosen] == ["01-contract.pdf", "03-letter.pdf", "02-invoice.pdf"]
        screen.query_one("#exhibits-chosen", DataTable).focus()
        await pilot.press("down", "down", "[")  # the invoice moves up, before the letter
        assert [d.path.name for d in screen.chosen] == ["01-contract.pdf", "02-invoice.pdf", "03-letter.pdf"]
        await pilot.press("x")  # the letter (highlighted after the move? no: the invoice) goes
        assert len(screen.chosen) == 2
        prefix = screen.query_one("#exhibits-prefix", Input)
        prefix.focus()
        await pilot.press(*"hpp")
        assert prefix.value == "hpp", "letters typed in the prefix box are not taken as keys"
        await pilot.press("p")
        assert prefix.value == "hppp"
        prefix.value = "HPP"
        screen.query_one("#exhibits-chosen", DataTable).focus()
        await pilot.press("p")
        await settle(pilot)
        plan = str(screen.query_one("#exhibits-plan", Static).render())
        assert "HPP-000001..HPP-00000" in plan and "Production for matter 'harbor'" in plan
        out_root = isolated_home / "data" / "exhibits"
        assert not out_root.exists(), "the preview writes nothing"
        await pilot.press("ctrl+g")
        await settle(pilot)
        bar = screen.query_one("#exhibits-progress", ProgressBar)
        assert bar.total == sum(d.pages for d in screen.chosen) and bar.progress == bar.total
        written = sorted(out_root.rglob("*.pdf"))
        assert len(written) == 2
        assert "HPP-000001" in pymupdf.open(next(p for p in written if "contract" in p.name))[0].get_text()
        await pilot.press("escape")
        assert not isinstance(app.screen, ExhibitsScreen)


async def test_errors_reach_the_error_modal(isolated_home: Path, tmp_path: Path) -> None:
    app = seeded_app(isolated_home, tmp_path / "sources")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_exhibits(pilot)
        screen.query_one("#exhibits-documents", DataTable).focus()
        await pilot.press("a")
        screen.query_one("#exhibits-prefix", Input).value = "H"  # one letter: not a usable prefix
        screen.query_one("#exhibits-chosen", DataTable).focus()
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "Bates prefix not usable" in str(app.screen.query_one("#error-title", Static).render())


def host(home: Path, sources: Path) -> ScreenHost:
    database_file = seeded_app(home, sources).audit.database_file
    return ScreenHost(lambda: ExhibitsScreen(database_file))


def test_exhibits_screen_snapshot_80x24(snap_compare: Any, isolated_home: Path, tmp_path: Path) -> None:
    assert snap_compare(host(isolated_home, tmp_path / "sources"), terminal_size=(80, 24), run_before=settle)


def test_exhibits_screen_snapshot_120x40(snap_compare: Any, isolated_home: Path, tmp_path: Path) -> None:
    async def choose(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.screen.query_one("#exhibits-documents", DataTable).focus()
        await pilot.press("a", "down", "a")
        await settle(pilot)

    assert snap_compare(host(isolated_home, tmp_path / "sources"), terminal_size=(120, 40), run_before=choose)
