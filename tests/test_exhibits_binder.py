"""Binders from real generated PDFs: slip sheets, index, bookmarks, Bates of the whole binder, CSV."""

from __future__ import annotations

import csv
from pathlib import Path

import pymupdf
import pytest

from evidence.matters import create_matter
from exhibits.binder import Exhibit, plan_binder, run_binder
from exhibits.numbering import bates_format
from exhibits.stamp import Progress, plan_production, run_production
from tests.support.exhibits_files import A4, LETTER, scanned_pdf, text_pdf

MATTER = "acme"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "chambers.sqlite3"
    (tmp_path / "sources").mkdir()
    create_matter(path, MATTER, [tmp_path / "sources"])
    return path


def test_binder_has_slip_sheets_bookmarks_index_bates_and_a_list(db_path: Path, tmp_path: Path) -> None:
    contract = text_pdf(
        tmp_path / "sources" / "contract.pdf",
        ["Clause one.", "Clause two.", "Signatures."],
        sizes=[LETTER, A4],
        rotations=[0, 90],
    )
    scan = scanned_pdf(tmp_path / "sources" / "receipt.pdf", "DELIVERY RECEIPT")
    out = tmp_path / "binders" / "trial-exhibits.pdf"
    plan = plan_binder(
        db_path,
        MATTER,
        [Exhibit(contract, "Supply agreement of January 10, 2024"), Exhibit(scan, "Delivery receipt (scan)")],
        out,
        bates=bates_format("PX", 4),
    )
    assert plan.pages == 1 + 1 + 3 + 1 + 1
    events: list[Progress] = []
    run_binder(db_path, plan, events.append)
    assert events[-1].done == events[-1].total
    with pymupdf.open(out) as doc:
        assert doc.page_count == 7
        assert doc.get_toc() == [
            [1, "Index of exhibits", 1],
            [1, "Exhibit 1: Supply agreement of January 10, 2024", 2],
            [1, "Exhibit 2: Delivery receipt (scan)", 6],
        ]
        assert "EXHIBIT 1" in doc[1].get_text() and "Supply agreement" in doc[1].get_text()
        assert "Clause two." in doc[3].get_text() and doc[3].rotation == 90
        index = doc[0].get_text()
        assert "Exhibit 2" in index and "page 6" in index
        for number in range(7):
            assert f"PX-{number + 1:04d}" in doc[number].get_text()
    with open(plan.list_csv) as fh:
        rows = list(csv.DictReader(fh))
    assert [
        (r["exhibit"], r["first_page"], r["last_page"], r["bates_first"], r["bates_last"]) for r in rows
    ] == [
        ("1", "3", "5", "PX-0002", "PX-0005"),
        ("2", "7", "7", "PX-0006", "PX-0007"),
    ]
    # the binder's numbers are in the registry: the next production continues after them
    again = plan_production(db_path, MATTER, [contract], bates_format("PX", 4), tmp_path / "vol1")
    assert again.first == 8
    run_production(db_path, again)


def test_large_binder_reports_progress_in_steps(db_path: Path, tmp_path: Path) -> None:
    big = text_pdf(tmp_path / "sources" / "big.pdf", [f"Page {n}" for n in range(1, 241)])
    out = tmp_path / "out" / "binder.pdf"  # not beside the sources: its folder is marked as output
    plan = plan_binder(db_path, MATTER, [Exhibit(big, "Ledger"), Exhibit(big, "Ledger again")], out)
    events: list[Progress] = []
    run_binder(db_path, plan, events.append)
    assert len(events) >= 10 and [e.done for e in events] == sorted(e.done for e in events)
    assert events[-1].done == plan.pages == 1 + 2 * 241
    assert pymupdf.open(out).page_count == plan.pages
