"""``chambers verify``: exit codes, JSON, the HTML report, overrides with reasons, and bad input."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from evidence.sample_matter import SAMPLE_MATTER
from tests.verify_fixtures import build_demo_matter
from tui.cli import main
from workspace.paths import Paths

CORPUS = Path(__file__).parent / "verify_corpus"


@pytest.fixture
def home_db(tmp_path: Path) -> Path:
    """The demo matter built in the isolated CHAMBERS_HOME, where the CLI looks for it."""
    paths = Paths.from_environment()
    demo = build_demo_matter(tmp_path / "matter")
    paths.database_file.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(demo.database_file)
    dst = sqlite3.connect(paths.database_file)
    src.backup(dst)
    src.close()
    dst.close()
    return paths.database_file


def test_verify_blocks_fabrications_prints_a_summary_and_writes_a_report(
    home_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "out.html"
    assert main(["verify", str(CORPUS / "facts.md"), "--matter", SAMPLE_MATTER, "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert "BLOCK      bates" in out and "'RTX 3060'" in out and "Final export: stopped." in out
    html = report.read_text()
    assert "RTX 3060" in html and "HPP-000004" in html and "<table>" in html

    good = tmp_path / "good.md"
    good.write_text("The price was $84,000 (HPP-000001), payable under the agreement of January 10, 2024.\n")
    assert main(["verify", str(good), "--matter", SAMPLE_MATTER, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["block"] == 0 and data["counts"]["ok"] == 3


def test_an_override_needs_a_reason_and_is_recorded(
    home_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text("Damages are $4,600 (23 days at the agreed rate).\n")
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--json"]) == 1
    (flag,) = [f for f in json.loads(capsys.readouterr().out)["flags"] if f["severity"] == "block"]
    assert (
        main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--override", flag["key"], "--reason", "ok"])
        == 2
    )
    assert "reason" in capsys.readouterr().err
    reason = "23 days from May 1 to May 24, 2024 at $200 a day (HPP-000002)."
    assert (
        main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--override", flag["key"], "--reason", reason])
        == 0
    )
    capsys.readouterr()
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["overridden"] == 1 and data["flags"][0]["override"]["reason"] == reason
    db = sqlite3.connect(home_db)
    assert db.execute("SELECT reason FROM verify_overrides").fetchall() == [(reason,)]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no draft file"),
        (b"", "is empty"),
        (b"\x00\x01PK\x03\x04", "binary file"),
        (b"\xff\xfe\xfa", "not UTF-8"),
    ],
)
def test_bad_drafts_are_named_with_what_to_do(
    home_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, message: str
) -> None:
    draft = tmp_path / "draft.md"
    if content is not None:
        draft.write_bytes(content)
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER]) == 2
    err = capsys.readouterr().err
    assert message in err and str(draft) in err


def test_an_unknown_matter_is_named(
    home_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text("Signed January 10, 2024.\n")
    assert main(["verify", str(draft), "--matter", "no-such-matter"]) == 2
    assert "no-such-matter" in capsys.readouterr().err


def test_an_override_survives_edits_elsewhere_but_not_a_changed_statement(
    home_db: Path, tmp_path: Path
) -> None:
    from drafting.verify import may_export_final, record_override, verify_draft

    draft = tmp_path / "draft.md"
    draft.write_text("Calder was paid $52,000 (HPP-000004).\n")
    report = verify_draft(home_db, draft, SAMPLE_MATTER)
    (flag,) = report.blocking
    allowed, why = may_export_final(report)
    assert not allowed and "$52,000" in why
    record_override(
        home_db, report, flag.key, "The figure comes from the client's ledger, produced next week."
    )

    draft.write_text("First, a new opening sentence.\n\nCalder was paid $52,000 (HPP-000004).\n")
    assert may_export_final(verify_draft(home_db, draft, SAMPLE_MATTER))[0]
    draft.write_text("Calder was paid $53,000 (HPP-000004).\n")
    assert not may_export_final(verify_draft(home_db, draft, SAMPLE_MATTER))[0]
