"""An export to a place that cannot take it: a clear error naming the path and what to do next, from the
room, the command line and the same message in the workstation; never a file left half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from corrections.errors import CorrectionsError, ExportNotWritten
from corrections.export import export
from tests.support.corrections_data import store
from tests.test_workstation_settings_saves import read_only
from tui.cli.main import main


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "c.sqlite3"
    store(path)
    return path


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if "data" not in p.parts}


def refused(db: Path, out: Path, *look_for: str) -> ExportNotWritten:
    before = files_under(db.parent.parent)
    with pytest.raises(ExportNotWritten) as caught:
        export(db, out, "sft")
    error = caught.value
    assert isinstance(error, CorrectionsError) and "\n" not in error.title
    assert str(out) in error.message and "Nothing was written." in error.message, error.message
    for words in look_for:
        assert words in error.message, error.message
    assert files_under(db.parent.parent) == before  # no temporary file, no half of a dataset
    return error


def test_a_folder_is_no_file_and_the_message_offers_a_name_in_it(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    refused(db, folder, f"{folder} is a folder", f"for example {folder / 'corrections-sft.jsonl'}")


def test_a_file_where_a_folder_should_be(db: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("his notes")
    refused(db, notes / "deeper" / "sft.jsonl", f"{notes} is a file, not a folder")
    assert notes.read_text() == "his notes"


def test_a_folder_he_may_not_write_in(db: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    with read_only(locked):  # chmod, or chattr +i for root
        error = refused(db, locked / "sft.jsonl")
    assert "permission denied" in error.message or "read-only" in error.message, error.message
    assert list(locked.iterdir()) == []


@pytest.mark.skipif(
    not Path("/sys/kernel").is_dir(), reason="a Linux sysfs, which refuses new files to anyone"
)
def test_a_system_folder_that_takes_no_new_files(db: Path) -> None:
    error = refused(db, Path("/sys/sft.jsonl"), "/sys")
    assert "Choose a file in a folder you can write to" in error.message


def test_a_missing_folder_is_made_and_the_export_lands_there(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "new" / "folder" / "sft.jsonl"
    summary = export(db, out, "sft")
    assert summary.rows_written == 1 and out.read_text().count("\n") == 1


def test_the_command_line_names_the_path_and_writes_nothing(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store(isolated_home / "data" / "chambers.sqlite3")
    folder = tmp_path / "exports"
    folder.mkdir()
    assert main(["corrections", "export", "--format", "dpo", "--out", str(folder)]) != 0
    err = capsys.readouterr().err
    assert ExportNotWritten.title in err and f"{folder} is a folder" in err and "Traceback" not in err
    assert list(folder.iterdir()) == []
