"""An error printed to a terminal is word-wrapped to its width; into a pipe it is written as it is."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tui.cli.main import main


class Terminal(io.StringIO):
    """stderr as a terminal shows it: the one thing checked of a terminal here is ``isatty``."""

    def isatty(self) -> bool:
        return True


def missing_instructions(tmp_path: Path) -> list[str]:
    (tmp_path / "home").mkdir()
    return ["draft", "--matter", "m", "--task", "demand-letter", "--instructions", str(tmp_path / "none.txt")]


def test_an_error_on_a_terminal_is_wrapped_at_its_words_to_80_columns(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(missing_instructions(tmp_path)) != 0
    shown = terminal.getvalue().splitlines()
    monkeypatch.undo()
    assert len(shown) > 2 and all(len(line) <= 80 for line in shown), shown
    words = " ".join(shown[1:]).split()
    assert "--instructions" in words and "FILE." in words  # whole words, none cut at the edge


def test_an_error_into_a_pipe_keeps_each_paragraph_on_one_line(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(missing_instructions(tmp_path)) != 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and len(err[1]) > 80, err
