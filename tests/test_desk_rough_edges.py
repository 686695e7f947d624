"""Rough edges of the rooms, each as the attorney met it: where the focus starts, what an error tells him
to do, names and Bates numbers that fit, a search that survives leaving the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.coordinate import Coordinate
from textual.widgets import DataTable, Input, Static

from tests.support.exhibits_files import text_pdf
from tests.test_exhibits_screen import open_exhibits, seeded_app, settle
from tui.widgets.screens import ErrorScreen


async def test_exhibits_focus_starts_on_the_documents_and_a_restamp_error_speaks_of_this_screen(
    isolated_home: Path, tmp_path: Path
) -> None:
    app = seeded_app(isolated_home, tmp_path / "sources")
    # A document that already carries a Bates stamp in its foot margin.
    stamped = tmp_path / "sources" / "04-stamped.pdf"
    text_pdf(stamped, ["Already produced."])
    import pymupdf

    doc = pymupdf.open(stamped)
    page = doc[0]
    page.insert_text((page.rect.width - 120, page.rect.height - 20), "HPP-000007", fontsize=10)
    doc.saveIncr()
    doc.close()
    from evidence.ingest import ingest_matter

    ingest_matter(app.audit.database_file, "harbor", tessdata=None)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_exhibits(pilot)
        docs = screen.query_one("#exhibits-documents", DataTable)
        assert app.focused is docs
        await pilot.press("down")  # moves in the list; no drop-down opens
        assert app.focused is docs and docs.cursor_row == 1
        # Every column is wide enough for what it holds at 120 columns.
        names = [str(docs.get_cell_at(Coordinate(r, 0))) for r in range(docs.row_count)]
        widths = [c.width for c in docs.columns.values()]
        assert all(len(n) <= widths[0] for n in names), (names, widths)
        assert widths[2] > len("HPP-000001")  # a cell shows one character less than its width
        row = next(r for r, n in enumerate(names) if n.startswith("04-stamped"))
        docs.move_cursor(row=row)
        await pilot.press("a")
        screen.query_one("#exhibits-prefix", Input).value = "HPP"
        screen.query_one("#exhibits-chosen", DataTable).focus()
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        message = str(app.screen.query_one("#error-message", Static).render())
        assert "pass --restamp" not in message and "take this document off the list (x)" in message, message


async def test_f12_again_finds_the_search_where_he_left_it_and_a_bad_date_is_named(
    tmp_path_factory: Any, isolated_home: Path
) -> None:
    from tests.support.pipeline_setup import demo_database
    from tests.test_evidence_screen import open_evidence, search_for, status, workstation

    db = demo_database(
        tmp_path_factory.getbasetemp() / "evidence-demo", isolated_home / "data" / "chambers.sqlite3"
    )
    app = workstation(db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_evidence(pilot)
        said = await search_for(pilot, screen, "freezer from:2025-13-01")
        assert "'2025-13-01' is not a day of the calendar" in said, said
        said = await search_for(pilot, screen, "freezer")
        hits = list(screen.hits)
        assert hits
        await pilot.press("f12")  # away
        assert app.screen is not screen
        again = await open_evidence(pilot)
        assert again is screen and list(again.hits) == hits and status(again) == said
        assert again.query_one("#evidence-query", Input).value == "freezer"


async def test_corrections_stats_take_the_whole_width_and_one_pair_is_one_pair(isolated_home: Path) -> None:
    from textual.widgets import DataTable, Input

    from tests.test_corrections_screen import open_corrections, redline_text, seeded_app
    from tests.test_corrections_screen import settle as settle_corrections

    app = seeded_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_corrections(pilot)
        highest = max(p.edit_ratio for p in screen.pairs)
        assert sum(p.edit_ratio >= int(highest * 100) / 100 for p in screen.pairs) == 1
        screen.query_one("#corrections-min", Input).value = str(int(highest * 100))
        screen.query_one("#corrections-min", Input).focus()
        await pilot.press("enter")
        await settle_corrections(pilot)
        assert len(screen.pairs) == 1
        assert str(screen.query_one("#corrections-status", Static).render()).startswith("1 pair, ")
        screen.query_one("#corrections-list", DataTable).focus()
        await pilot.press("s")
        await settle_corrections(pilot)
        header = redline_text(screen).splitlines()[0]
        assert "n    mean  same  trend" in header  # the narrow form at 80 columns: the trend is never cut
        assert all(len(line) <= 76 for line in redline_text(screen).splitlines()), "nothing cut at 80 columns"
        assert not screen.query_one("#corrections-list").display
        assert (
            screen.query_one("#corrections-redline-scroll").size.width >= 76
        )  # the whole screen, not a pane
        await pilot.press("s")
        await settle_corrections(pilot)
        assert screen.query_one("#corrections-list").display and app.focused is screen.query_one(
            "#corrections-list"
        )


async def test_the_open_theme_list_does_not_cover_the_text_below(isolated_home: Path) -> None:
    from textual.widgets import Select

    from tests.conftest import make_backend
    from tui.app import create_app
    from workspace.config import Config, Policy

    config = Config(
        file=str(isolated_home / "c.toml"),
        policy=Policy(),
        boards=(),
        backends=(make_backend("http://127.0.0.1:9"),),
    )
    app = create_app(config, isolated_home / "db.sqlite3", start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f10")
        await pilot.pause()
        theme = app.screen.query_one("#settings-theme", Select)
        theme.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert theme.expanded
        listed = theme.query_one("SelectOverlay").region
        below = app.screen.query_one("#settings-file").region
        assert below.y >= listed.bottom, (listed, below)
