"""`chambers config` checks the launch profiles too, and `evidence context` exits 3 when the policy
refuses the drafter, as the exit-code table says. Real config files, a real matter, the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_evidence_ingest import rows
from tui.cli import exit_codes
from tui.cli.main import main
from workspace.paths import Paths

BOARDS = '[[boards]]\nname = "board-a"\nhost = "localhost"\ngpus = [0, 1]\n'
BACKEND = '[[backends]]\nname = "{name}"\nkind = "llamacpp"\nurl = "{url}"\nroles = ["drafter"]\n'


def _write(text: str) -> Path:
    config = Paths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")
    return config


def test_a_profile_naming_an_unknown_board_fails_config(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backend = BACKEND.format(name="local", url="http://127.0.0.1:8080")
    good = '[[profiles]]\nname = "w"\nmodel = "/m/x.gguf"\nboard = "board-a"\n'
    _write(BOARDS + backend + good)
    assert main(["config"]) == exit_codes.CLEAN
    capsys.readouterr()
    _write(BOARDS + backend + good.replace("board-a", "board-z"))
    assert main(["config"]) == exit_codes.USAGE
    err = capsys.readouterr().err
    assert "profiles[0].board" in err and "board-z" in err and "board-a" in err, err


def test_evidence_context_exits_3_when_the_policy_refuses_the_drafter(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = tmp_path / "src"
    sources.mkdir()
    (sources / "note.txt").write_text("The invoice was paid on March 3, 2024.\n", encoding="utf-8")
    _write(BACKEND.format(name="cloud", url="http://8.8.8.8:8080"))
    assert main(["matter", "new", "m", "--sources", str(sources)]) == 0
    assert main(["evidence", "ingest", "m"]) == 0
    capsys.readouterr()
    assert main(["evidence", "context", "m", "Was the invoice paid?"]) == exit_codes.BACKEND
    captured = capsys.readouterr()
    assert "cloud" in captured.err and "local-only" in captured.err, captured.err
    assert "invoice was paid" not in captured.out  # nothing was built for a drafter that is refused
    database = Paths.from_environment().database_file
    assert rows(database, "SELECT count(*) FROM evidence_contexts")[0][0] == 0
