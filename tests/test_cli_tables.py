"""The command line's tables: plain text wherever the output is not a terminal, a row kept on one
line when piped, cells folded to fit an 80-column terminal, and brackets printed as they are."""

from __future__ import annotations

from io import StringIO

from rich.table import Table

from tui.cli.tables import render, show, table

LONG = "edit ratio 0.412->0.201, chrF 61.2->74.9 on twelve held-out pairs of the demand letters"


def _listing() -> Table:
    out = table("adapter", "base model", "pairs", "evaluation", right=("pairs",), whole=("adapter",))
    out.add_row("demand-v1 [x]", "smollm2-135m-instruct-q8_0", "12", LONG)
    return out


def test_piped_a_row_stays_whole_on_one_line_in_plain_text() -> None:
    piped = StringIO()  # not a terminal, as a pipe or a file is
    show(_listing(), file=piped)
    lines = piped.getvalue().splitlines()
    assert "\x1b" not in piped.getvalue()  # no colour, no bold
    assert lines[0].split() == ["adapter", "base", "model", "pairs", "evaluation"]
    assert set(lines[1]) == {"-"}
    assert lines[2].startswith("demand-v1 [x]   smollm2-135m-instruct-q8_0      12   ") and lines[2].endswith(
        LONG
    )


def test_at_80_columns_the_long_cell_folds_and_the_whole_one_does_not() -> None:
    lines = render(_listing(), width=80).splitlines()
    assert all(len(line) <= 80 for line in lines) and len(lines) > 3
    assert lines[2].startswith("demand-v1 [x] ")
    assert " ".join(" ".join(line.split()) for line in lines[2:]).count("chrF 61.2->74.9") == 1
