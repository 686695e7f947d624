"""The verifier knows a matter's Bates productions only as the issued ranges its caller passes in.

A real production (PyMuPDF stamps, the exhibits registry, a real SQLite file) issues ACME-000001..2;
a second range, ACME-000003..10, is only reserved (pending: its files are not written, and a crash
would roll it back). A number in the pending range is past the end of what was produced; once that
production is finished, the same number is inside an issued range.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting.verify import load_matter_index, verify_with
from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from evidence.store import require_matter
from exhibits import schema as exhibits_schema
from exhibits.numbering import bates_format
from exhibits.registry import issued_productions, record_done, reserve_range
from exhibits.stamp import plan_production, run_production
from tests.support.exhibits_files import text_pdf
from tui.cli.main import main
from workspace.database import connect
from workspace.paths import Paths

DRAFT = "The invoice was produced as ACME-000008.\n"


@pytest.fixture
def matter(isolated_home: Path, tmp_path: Path) -> Path:
    db_path = Paths.from_environment().database_file
    source = text_pdf(tmp_path / "src" / "invoice.pdf", ["Invoice INV-1102", "Total due $52,000"])
    create_matter(db_path, "acme", [tmp_path / "src"])
    plan = plan_production(db_path, "acme", [source], bates_format("ACME", 6), tmp_path / "out" / "vol1")
    run_production(db_path, plan)
    ingest_matter(db_path, "acme")
    return db_path


def reserve_pending(db_path: Path, out: Path) -> int:
    db = connect(db_path, exhibits_schema.SCHEMA)
    try:
        return reserve_range(
            db, require_matter(db, "acme").id, "production", bates_format("ACME", 6), out, 3, 10, []
        )
    finally:
        db.close()


def bates_message(db_path: Path) -> str:
    index = load_matter_index(db_path, "acme", productions=issued_productions(db_path, "acme"))
    (flag,) = [f for f in verify_with(db_path, DRAFT, "draft.md", index).flags if f.kind == "bates"]
    assert flag.severity == "block"
    return flag.message


def test_a_pending_production_is_not_issued_but_a_finished_one_is(matter: Path, tmp_path: Path) -> None:
    production = reserve_pending(matter, tmp_path / "out" / "vol2")
    assert issued_productions(matter, "acme") == [("ACME", 1, 2)]
    assert "past the end of the production: the last page is ACME-000002" in bates_message(matter)

    db = connect(matter, exhibits_schema.SCHEMA)
    try:
        record_done(db, production)
    finally:
        db.close()
    assert issued_productions(matter, "acme") == [("ACME", 1, 2), ("ACME", 3, 10)]
    message = bates_message(matter)
    assert "past the end" not in message and "No page of the matter is stamped ACME-000008" in message


def test_the_verify_command_passes_the_issued_ranges(
    matter: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reserve_pending(matter, tmp_path / "out" / "vol2")
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT)
    assert main(["verify", str(draft), "--matter", "acme", "--json"]) == 1
    (flag,) = [f for f in json.loads(capsys.readouterr().out)["flags"] if f["kind"] == "bates"]
    assert "the last page is ACME-000002" in flag["message"]
