"""Statistics per model and task type, and the command line that prints them and exports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from corrections.stats import ALL_TASKS, compute_stats, stats_table
from tests.support.corrections_data import DRAFT, FINAL, store
from tui.cli.main import main


def fill(db: Path) -> None:
    store(db, accepted_at="2026-09-03T10:00:00+00:00")  # 35B, demand letter, edited
    store(db, accepted_at="2026-10-03T10:00:00+00:00", final=DRAFT)  # 35B, accepted as drafted
    store(db, accepted_at="2026-11-03T10:00:00+00:00", final=DRAFT.replace("soon", "today"))
    store(db, model="qwen3.5-122b-a10b", task_type="summary", final=DRAFT)
    store(db, model="qwen3.5-122b-a10b", task_type="summary", final=FINAL, accepted_at="2026-11-04T00:00:00")


def test_figures_per_model_and_task(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    fill(db)
    rows = {(r.model, r.task_type): r for r in compute_stats(db)}
    assert list(rows) == [
        ("qwen3.5-122b-a10b", "summary"),
        ("qwen3.5-122b-a10b", ALL_TASKS),
        ("qwen3.6-35b-a3b", "demand_letter"),
        ("qwen3.6-35b-a3b", ALL_TASKS),
    ]
    small = rows[("qwen3.6-35b-a3b", "demand_letter")]
    assert small.drafts == 3 and small.unedited_share == pytest.approx(1 / 3)
    big = rows[("qwen3.5-122b-a10b", "summary")]
    assert 0 < small.median_edit_ratio < small.mean_edit_ratio  # the median is the one-word edit
    assert big.drafts == 2 and big.unedited_share == 0.5 and big.median_edit_ratio == big.mean_edit_ratio
    assert [month for month, _ in small.trend] == ["2026-09", "2026-10", "2026-11"]
    assert small.direction == "fewer edits" and len(small.sparkline) == 3
    table = stats_table(compute_stats(db))
    assert table[0].split()[:3] == ["model", "task", "drafts"]
    assert any(line.split()[:3] == ["qwen3.6-35b-a3b", "demand_letter", "3"] for line in table)


def test_no_pairs_says_so(tmp_path: Path) -> None:
    assert stats_table(compute_stats(tmp_path / "c.sqlite3"))[0].startswith("No correction pairs yet")


def test_the_command_line(isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill(isolated_home / "data" / "chambers.sqlite3")
    assert main(["corrections", "stats"]) == 0
    assert "qwen3.5-122b-a10b" in capsys.readouterr().out
    out = tmp_path / "dpo.jsonl"
    assert (
        main(["corrections", "export", "--format", "dpo", "--out", str(out), "--model", "qwen3.6-35b-a3b"])
        == 0
    )
    printed = capsys.readouterr().out
    assert "Exported 2 of 5 pairs as 2 dpo rows" in printed and "model is not qwen3.6-35b-a3b" in printed
    assert all(
        set(json.loads(line)) == {"prompt", "chosen", "rejected"} for line in out.read_text().splitlines()
    )
    assert main(["corrections", "show", "1"]) == 0
    assert "{+ blast+}" in capsys.readouterr().out
    assert main(["corrections", "exclude", "1"]) == 0 and main(["corrections", "delete", "2"]) == 2
    assert "--yes" in capsys.readouterr().err
    assert main(["corrections", "delete", "2", "--yes"]) == 0
    assert main(["corrections", "list"]) == 0
    listing = capsys.readouterr().out
    assert listing.rstrip().endswith("excluded") and not re.search(r"^ *2 ", listing, re.MULTILINE)
    from evidence.matters import create_matter

    (tmp_path / "sources").mkdir()  # parties belong to a matter
    create_matter(isolated_home / "data" / "chambers.sqlite3", "harbor-point", [tmp_path / "sources"])
    assert main(["corrections", "parties", "harbor-point", "--add", "Harbor Point Provisions LLC"]) == 0
    assert re.search(r"\[PARTY-A\] +Harbor Point Provisions LLC", capsys.readouterr().out)


def test_a_table_too_wide_for_the_pane_keeps_its_trend() -> None:
    from corrections.stats import GroupStats, stats_table

    row = GroupStats(
        model="smollm2-135m-instruct",
        task_type="demand_letter",
        drafts=7,
        mean_edit_ratio=0.94,
        median_edit_ratio=0.947,
        unedited_share=0.0,
        trend=(("2026-10", 0.9), ("2026-11", 0.5)),
    )
    full = stats_table([row])
    assert "median" in full[0] and max(len(line) for line in full) > 76
    narrow = stats_table([row], width=76)
    assert max(len(line) for line in narrow) <= 76
    assert narrow[1].endswith("fewer edits") and "94.0%" in narrow[1]
