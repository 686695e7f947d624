"""``chambers verify``: exit codes, JSON, the HTML report, overrides with reasons, and bad input."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from evidence.sample_matter import SAMPLE_MATTER
from tests.support.verify_fixtures import build_demo_matter
from tui.cli.main import main
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
    assert "CONTRADICTED   bates" in out and "'RTX 3060'" in out and "Final export: stopped." in out
    html = report.read_text()
    assert "RTX 3060" in html and "HPP-000004" in html and "<table>" in html
    assert 'class="contradicted"' in html and " contradicted, " in html and " unverifiable, " in html

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


def test_unverifiable_items_are_counted_apart_exit_4_and_are_acknowledged_with_who_and_when(
    home_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "Delay damages are enforceable. Northgate Foods, Inc. v. Arctic Coil Co., 512 F.3d 210, 211 (9th Cir. 2008). "
        "So is a fixed sum. Kessler Dairy v. Frostline Corp., 611 F.3d 77, 80 (2d Cir. 2010).\n"
    )
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["verified"] == 1 and data["counts"]["unverifiable"] == 1
    assert data["counts"]["contradicted"] == 0
    (flag,) = [f for f in data["flags"] if f["verdict"] == "unverifiable"]
    assert flag["text"] == "611 F.3d 77" and flag["reason"] == "not-in-library"
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER]) == 4
    out = capsys.readouterr().out
    assert "UNVERIFIABLE" in out and f"--acknowledge {flag['key']}" in out and "Final export: stopped." in out
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--acknowledge", flag["key"]]) == 0
    assert "ACKNOWLEDGED" in capsys.readouterr().out
    db = sqlite3.connect(home_db)
    ((reason, by, at),) = db.execute("SELECT reason, by, at FROM verify_overrides").fetchall()
    assert reason.startswith("acknowledged as unverifiable: the opinion is not in the library") and by and at
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["acknowledged"] == 1


def test_a_contradicted_item_exits_1_and_cannot_be_acknowledged(
    home_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "Delay damages. Northgate Foods, Inc. v. Arctic Coil Co., 512 F.3d 210, 240 (9th Cir. 2008).\n"
    )
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--json"]) == 1
    (flag,) = json.loads(capsys.readouterr().out)["flags"]
    assert flag["verdict"] == "contradicted" and "page 240 is not in it" in flag["message"]
    assert main(["verify", str(draft), "--matter", SAMPLE_MATTER, "--acknowledge", flag["key"]]) == 2
    assert "override it with a written reason" in capsys.readouterr().err


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


def test_the_flag_list_names_each_verdict_and_counts_them_apart() -> None:
    from drafting.flags import flags_from_marks, verdict_counts
    from drafting.review import merge_marks
    from drafting.verify.model import Flag, Report
    from tui.drafting.dialogs import describe

    missing = "Unverifiable: not in your library."
    flags = [
        Flag(0, 5, "case", "block", "1 F.3d 1", "Wrong pin.", verdict="contradicted"),
        Flag(9, 20, "case", "block", "2 F.3d 2", missing, verdict="unverifiable", reason="not-in-library"),
    ]
    report = Report("draft.md", "0" * 64, SAMPLE_MATTER, None, flags)
    marks = merge_marks("1 F.3d 1 / 2 F.3d 2", flags, [])
    contradicted, unverifiable = flags_from_marks(marks, report)
    assert verdict_counts([contradicted, unverifiable]) == "1 contradicted · 1 unverifiable"
    assert "unverifiable case" in unverifiable.label() and "unverifiable" not in contradicted.label()
    assert describe(unverifiable).startswith("UNVERIFIABLE (the opinion is not in the library)")
    assert "chambers authorities add FILE" in describe(unverifiable)
    assert describe(contradicted).startswith("CONTRADICTED")


async def test_the_flag_dialog_offers_to_add_the_opinion_of_an_unverifiable_item() -> None:
    from textual.app import App
    from textual.widgets import Static

    from drafting.flags import FlagView
    from tui.drafting.dialogs import FlagScreen

    missing = FlagView(
        0,
        11,
        "verifier",
        "block",
        "case",
        "611 F.3d 77",
        "Unverifiable: not in the library.",
        key="k",
        verdict="unverifiable",
        reason="not-in-library",
    )
    wrong = FlagView(
        0, 11, "verifier", "block", "case", "512 F.3d 210", "Wrong pin.", key="j", verdict="contradicted"
    )
    answers: list[str | None] = []

    class Host(App[None]):
        pass

    app = Host()
    async with app.run_test() as pilot:
        await app.push_screen(FlagScreen(missing), answers.append)
        await pilot.pause()
        assert "a adds the opinion" in str(app.screen.query_one("#flag-foot", Static).render())
        await pilot.press("a")
        await pilot.pause()
        await app.push_screen(FlagScreen(wrong), answers.append)
        await pilot.pause()
        assert "a adds the opinion" not in str(app.screen.query_one("#flag-foot", Static).render())
        await pilot.press("a")  # a contradiction is not settled by adding anything
        await pilot.press("escape")
        await pilot.pause()
    assert answers == ["add", None]
