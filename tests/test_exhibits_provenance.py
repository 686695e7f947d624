"""Exhibit outputs are chambers' own files: evidence ingest must never index them as primary sources."""

from __future__ import annotations

import shutil
from pathlib import Path

import pymupdf
import pytest

from evidence.errors import WriteRefused
from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from exhibits.binder import Exhibit, plan_binder, run_binder
from exhibits.find import RedactionRequest
from exhibits.numbering import bates_format
from exhibits.patterns import patterns_named
from exhibits.redact import run_redaction
from exhibits.stamp import Progress, plan_production, run_production
from tests.support.exhibits_files import text_pdf


def test_outputs_copied_into_a_source_folder_are_quarantined_not_indexed(tmp_path: Path) -> None:
    sources, out = tmp_path / "matter", tmp_path / "out"
    letter = text_pdf(sources / "letter.pdf", ["Dear counsel, SSN 123-45-6789 on file.", "Regards."])
    db_path = tmp_path / "home" / "chambers.sqlite3"
    create_matter(db_path, "acme", [sources])
    with pytest.raises(WriteRefused):  # chambers itself never writes among the sources
        plan_production(db_path, "acme", [letter], bates_format("ACME", 6), sources / "production-1")
    plan = plan_production(db_path, "acme", [letter], bates_format("ACME", 6), out / "production-1")
    binder = plan_binder(db_path, "acme", [Exhibit(letter, "Letter")], out / "binder" / "exhibits.pdf")
    run_production(db_path, plan)
    run_binder(db_path, binder)
    run_redaction(
        db_path,
        "acme",
        [letter],
        out / "redacted",
        RedactionRequest(patterns=tuple(patterns_named(["ssn"]))),
    )
    for folder in ("production-1", "binder", "redacted"):  # the attorney copies them in by hand
        shutil.copytree(out / folder, sources / folder, ignore=shutil.ignore_patterns(".chambers-output"))
    report = ingest_matter(db_path, "acme", tessdata=None)
    assert report.ingested == [str(letter)]
    quarantined = {str(Path(n.path).relative_to(sources)) for n in report.quarantined}
    assert {"production-1/letter.pdf", "redacted/letter.pdf", "binder/exhibits.pdf"} <= quarantined


def test_two_thousand_page_binder_reports_progress_all_the_way(tmp_path: Path) -> None:
    part = text_pdf(tmp_path / "src" / "ledger.pdf", [f"Ledger page {n}" for n in range(1, 251)])
    db_path = tmp_path / "home" / "chambers.sqlite3"
    create_matter(db_path, "acme", [tmp_path / "src"])
    plan = plan_binder(
        db_path,
        "acme",
        [Exhibit(part, f"Ledger volume {n}") for n in range(1, 9)],
        tmp_path / "binder" / "ledgers.pdf",
        bates=bates_format("LDG", 6),
    )
    events: list[Progress] = []
    run_binder(db_path, plan, events.append)
    assert plan.pages == 1 + 8 * 251 and events[-1].done == events[-1].total
    assert len(events) > 40 and [e.done for e in events] == sorted(e.done for e in events)
    with pymupdf.open(plan.output) as doc:
        assert doc.page_count == plan.pages and len(doc.get_toc()) == 9
        assert "LDG-002009" in doc[-1].get_text()
