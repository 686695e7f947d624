"""The evidence commands, end to end through ``chambers`` (real files, real database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.provenance import register_output
from tests.support.evidence_files import make_pdf
from tui.cli.main import main
from workspace.paths import Paths


def test_matter_new_ingest_search_and_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    make_pdf(src / "contract.pdf", ["The freezer must hold minus twenty degrees."], bates=["HPP-000001"])
    draft = "Our earlier draft says the freezer never held its temperature and the buyer may reject it. " * 3
    register_output(Paths.from_environment().database_file, draft, "draft")
    make_pdf(src / "notes.pdf", [draft])

    assert main(["matter", "new", "harbor", "--sources", str(src)]) == 0
    assert main(["evidence", "ingest", "harbor"]) == 0
    out = capsys.readouterr().out
    assert "1 file(s) read (1 pages)" in out and "1 quarantined" in out and "[quarantined]" in out

    assert main(["evidence", "search", "harbor", "twenty", "degrees", "--bates", "HPP-000001"]) == 0
    out = capsys.readouterr().out
    assert "HPP-000001" in out and "contract.pdf p.1" in out

    assert main(["evidence", "audit", "harbor"]) == 0
    out = capsys.readouterr().out
    assert "Primary: 100.0% of indexed text" in out and "notes.pdf was quarantined" in out


def test_errors_name_the_matter_and_the_next_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evidence", "audit", "nope"]) == 2
    assert "chambers matter new nope --sources DIR" in capsys.readouterr().err
    assert main(["matter", "new", "x", "--sources", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_matter_new_library_marks_a_library_whatever_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evidence.matters import get_matter

    opinions = tmp_path / "opinions"
    opinions.mkdir()
    assert main(["matter", "new", "caselaw", "--sources", str(opinions), "--library"]) == 0
    assert "Library 'caselaw' created" in capsys.readouterr().out
    assert main(["matter", "new", "harbor", "--sources", str(opinions)]) == 0
    assert "Matter 'harbor' created" in capsys.readouterr().out
    database = Paths.from_environment().database_file
    assert get_matter(database, "caselaw").kind == "library"
    assert get_matter(database, "harbor").kind == "record"
