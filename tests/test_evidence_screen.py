"""The evidence screen (F12), driven with Pilot over the real demo matter; snapshots at 80x24 and 120x40."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, OptionList, Select, Static

from evidence import schema as evidence_schema
from tests.conftest import make_backend
from tests.support.pipeline_setup import demo_database
from tests.support.screen_host import ScreenHost
from tui.app import ChambersApp, create_app
from tui.evidence.screen import EvidenceScreen
from tui.widgets.evidence_views import ReadingScreen
from tui.widgets.screens import ErrorScreen, HelpScreen
from workspace.config import Config, Policy
from workspace.database import connect


@pytest.fixture
def demo_db(tmp_path_factory: pytest.TempPathFactory, isolated_home: Path) -> Path:
    """A private copy of the ingested Harbor Point matter, where the app keeps its database."""
    root = tmp_path_factory.getbasetemp() / "evidence-demo"
    return demo_database(root, isolated_home / "data" / "chambers.sqlite3")


def workstation(database_file: Path) -> ChambersApp:
    config = Config(
        file="config.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),)
    )
    return create_app(config, database_file, start_on_dashboard=False)


async def settle(pilot: Any) -> None:
    """Wait for every worker, until the messages they left start no other: the evidence screen's
    matters are listed, and the documents of the matter they chose (or its no-matters line)."""
    for _ in range(400):  # bounded: a broken screen fails the test instead of hanging it
        await asyncio.gather(*(w.wait() for w in pilot.app.workers), return_exceptions=True)
        await pilot.pause()
        if not any(w.is_running for w in pilot.app.workers):
            return
    raise AssertionError("the evidence screen never settled")


async def open_evidence(pilot: Any) -> EvidenceScreen:
    await pilot.press("f12")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, EvidenceScreen)
    return screen


async def search_for(pilot: Any, screen: EvidenceScreen, text: str) -> str:
    """Type ``text`` in the search box, press Enter, and return the status line once answered."""
    box = screen.query_one("#evidence-query", Input)
    box.value = ""
    box.focus()
    await pilot.press(*text, "enter")
    await settle(pilot)
    assert status(screen) != "Searching ...", "the search was answered"
    return status(screen)


def status(screen: EvidenceScreen) -> str:
    return str(screen.query_one("#evidence-status", Static).render())


def options(screen: EvidenceScreen, selector: str) -> list[str]:
    listing = screen.query_one(selector, OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_f12_search_and_read_a_page_with_its_bates(demo_db: Path) -> None:
    app = workstation(demo_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_evidence(pilot)
        assert screen.query_one("#evidence-matter", Select).value == "harbor-point"
        documents = options(screen, "#evidence-documents")
        assert (
            len(documents) == 11
            and "01-supply-agreement.pdf\n3 pages, HPP-000001..HPP-000003" in documents[4]
        )
        assert documents[-1].startswith(
            "notes.pdf\nQUARANTINED: 97% of its text matches text chambers generated"
        )
        assert "harbor-point: 10 documents, 13 pages indexed, 1 quarantined" in status(screen)

        said = await search_for(pilot, screen, "freezer")
        assert said.startswith(f"{len(screen.hits)} pages match freezer") and len(screen.hits) >= 5
        shown = options(screen, "#evidence-results")
        assert any(
            line.startswith("HPP-000001  Equipment Supply and Installation Agreement  2024-01-10\n")
            for line in shown
        )
        assert all("freezer" in line.lower() for line in shown)
        # The matched words are marked in the snippet (the markers never reach the screen).
        first = screen.query_one("#evidence-results", OptionList).get_option_at_index(0).prompt
        assert "\x01" not in str(first) and any("reverse" in str(span.style) for span in first.spans)

        stamped = next(i for i, hit in enumerate(screen.hits) if hit.bates)
        results = screen.query_one("#evidence-results", OptionList)
        assert app.focused is results, "after a search the results have the keys"
        await pilot.press(*["down"] * stamped, "enter")
        await settle(pilot)
        page = app.screen
        assert isinstance(page, ReadingScreen)
        hit = screen.hits[stamped]
        heading = str(page.query_one("#reading-title", Static).render())
        assert heading == f"{hit.bates}  {Path(hit.path).name}, page {hit.page_no} of 1", (
            "inside the matter folder"
        )
        body = str(page.query_one("#reading-body", Static).render())
        assert "freezer" in body.lower() and hit.bates in body, "the whole page, stamp included"
        subtitle = str(page.query_one("#reading-subtitle", Static).render())
        assert subtitle.endswith(f"(found {stamped + 1} of {len(screen.hits)})")

        # n reads the next page found without going back to the list; p before the first says so.
        await pilot.press("n")
        await settle(pilot)
        following = app.screen
        assert isinstance(following, ReadingScreen) and following is not page
        heading = str(following.query_one("#reading-title", Static).render())
        assert Path(screen.hits[stamped + 1].path).name in heading
        assert results.highlighted == stamped + 1, "the list follows the page being read"
        await pilot.press("escape")
        assert app.screen is screen
        results.highlighted = 0
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert app.screen is screen and status(screen) == "That was the first page found."
        await pilot.press("f12")
        assert not isinstance(app.screen, EvidenceScreen), "F12 again returns to the workstation"


async def test_filters_narrow_the_results(demo_db: Path) -> None:
    app = workstation(demo_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_evidence(pilot)
        await search_for(pilot, screen, "freezer")
        everything = len(screen.hits)
        await search_for(pilot, screen, "freezer bates:HPP-000001..HPP-000004")
        assert 0 < len(screen.hits) < everything
        assert {hit.bates for hit in screen.hits} <= {"HPP-000001", "HPP-000002", "HPP-000003", "HPP-000004"}
        await search_for(pilot, screen, "freezer doc:invoice")
        assert screen.hits and all("invoice" in hit.path for hit in screen.hits)
        await search_for(pilot, screen, "freezer from:2024-06-01")
        assert screen.hits and all((hit.doc_date or "") >= "2024-06-01" for hit in screen.hits)
        assert len(screen.hits) < everything

        # Enter on a document narrows the search to it.
        listing = screen.query_one("#evidence-documents", OptionList)
        listing.focus()
        listing.highlighted = 4  # the supply agreement
        await pilot.press("enter")
        await settle(pilot)
        assert (
            screen.query_one("#evidence-query", Input).value
            == 'freezer from:2024-06-01 doc:"01-supply-agreement.pdf"'
        )
        assert "No pages match" in status(screen), "the agreement predates June 2024"


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("!!!", "has no words to search for"),
        ("freezer from:June", "'June' is not a date. Write dates as YYYY-MM-DD."),
        ("doc:invoice", "there is nothing to search for"),
        ("xylophone", "No pages match xylophone."),
    ],
)
async def test_a_bad_search_says_why_in_the_status_line(demo_db: Path, typed: str, says: str) -> None:
    app = workstation(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_evidence(pilot)
        assert says in await search_for(pilot, screen, typed)
        assert app.screen is screen, "no error modal for a mistyped search"
        assert not screen.hits


async def test_the_audit_key_shows_the_provenance_audit(demo_db: Path) -> None:
    app = workstation(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_evidence(pilot)
        await pilot.press("ctrl+t")  # from the search box: the key is not typed into it
        await settle(pilot)
        audit = app.screen
        assert isinstance(audit, ReadingScreen)
        assert str(audit.query_one("#reading-title", Static).render()) == "Provenance audit: harbor-point"
        body = str(audit.query_one("#reading-body", Static).render())
        assert (
            "Matter harbor-point: 10 documents, 13 pages" in body
            and "Primary: 100.0% of indexed text" in body
        )
        assert "Quarantined: 1 file(s)" in body and "notes.pdf was quarantined" in body
        await pilot.press("escape")
        assert screen.query_one("#evidence-query", Input).value == ""
        assert "Audit of harbor-point: 100.0% of the indexed text is primary." in status(screen)


async def test_ingest_from_the_screen_reads_only_what_changed(demo_db: Path) -> None:
    app = workstation(demo_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_evidence(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert "Ingested harbor-point: 0 file(s) read (0 pages), 10 unchanged" in status(screen)


@pytest.mark.parametrize("database", ["missing", "empty"])
async def test_no_matters_says_how_to_make_one(isolated_home: Path, database: str) -> None:
    database_file = isolated_home / "data" / "chambers.sqlite3"
    if database == "empty":
        connect(database_file, evidence_schema.SCHEMA).close()
    app = workstation(database_file)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_evidence(pilot)
        assert "chambers matter new" in status(screen) and "chambers demo" in status(screen)
        await pilot.press(*"freezer", "enter")
        assert "chambers matter new" in status(screen)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.screen is screen and "chambers matter new" in status(screen)
        assert database_file.exists() == (database == "empty"), "looking creates no database"


async def test_another_matter_shows_its_own_documents(demo_db: Path) -> None:
    app = workstation(demo_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_evidence(pilot)
        await search_for(pilot, screen, "freezer")
        assert screen.hits
        screen.query_one("#evidence-matter", Select).value = "harbor-point-authorities"
        await settle(pilot)
        assert options(screen, "#evidence-documents") == ["bayview.pdf\n1 page", "northgate.pdf\n2 pages"]
        assert not screen.hits and not options(screen, "#evidence-results"), (
            "the other matter's hits are gone"
        )
        await search_for(pilot, screen, "penalty")
        assert [Path(hit.path).name for hit in screen.hits] == ["northgate.pdf"]


async def test_help_and_the_command_palette_know_the_screen(demo_db: Path) -> None:
    app = workstation(demo_db)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"evidence search")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, EvidenceScreen), "the palette's 'Evidence: search the matter' opens it"
        await pilot.press("f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        keys = "\n".join(f"{key} {text}" for key, text in help_screen.rows)
        assert "f12 Evidence: search a matter's pages" in keys and "ctrl+t The provenance audit" in keys
        assert not isinstance(app.screen, ErrorScreen)


async def searched(pilot: Any) -> None:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, EvidenceScreen)
    await search_for(pilot, screen, "freezer")


async def page_open(pilot: Any) -> None:
    await searched(pilot)
    await pilot.press("down", "down", "enter")  # the invoice: a stamped page
    await settle(pilot)
    assert isinstance(pilot.app.screen, ReadingScreen)


def test_evidence_screen_snapshot_80x24(snap_compare: Any, demo_db: Path) -> None:
    assert snap_compare(
        ScreenHost(lambda: EvidenceScreen(demo_db)), terminal_size=(80, 24), run_before=searched
    )


def test_evidence_screen_snapshot_120x40(snap_compare: Any, demo_db: Path) -> None:
    assert snap_compare(
        ScreenHost(lambda: EvidenceScreen(demo_db)), terminal_size=(120, 40), run_before=page_open
    )
