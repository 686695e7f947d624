"""``chambers corrections import FILE.jsonl``: another tool's (prompt, draft, final) rows become pairs, each
with its origin, shown as imported wherever pairs are listed or counted; a bad line stores nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corrections.store import get_pair, list_pairs
from tui.cli.main import main
from workspace.paths import Paths

ROWS = [
    {
        "prompt": "Draft a demand for the late freezer.",
        "draft": "Dear Sir, please pay.",
        "final": "Calder Refrigeration: the freezer was due May 1. Pay within ten days.",
        "model": "gpt-x",
        "task_type": "demand_letter",
    },
    {
        "prompt": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Tell the client."},
        ],
        "draft": "Hello, the deposition happened.",
        "final": "Harbor Point team: the deposition went well.",
    },
]


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_imported_pairs_keep_their_origin_and_are_shown_as_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = Paths.from_environment().database_file
    bad = write_jsonl(tmp_path / "bad.jsonl", [ROWS[0], {"prompt": "x", "draft": "y"}])
    assert main(["corrections", "import", str(bad)]) != 0
    err = capsys.readouterr().err
    assert f"{bad} line 2" in err and '"final" is missing' in err
    assert not db.exists() or list_pairs(db) == []  # the good first line was not stored either

    good = write_jsonl(tmp_path / "other-tool.jsonl", ROWS)
    assert main(["corrections", "import", str(good)]) == 0
    assert "Imported 2 pair(s)" in capsys.readouterr().out
    pairs = sorted(list_pairs(db), key=lambda p: p.id)
    assert [p.trigger for p in pairs] == ["import", "import"]
    assert (
        pairs[0].origin is not None
        and pairs[0].origin.endswith("line 1")
        and str(good.resolve()) in pairs[0].origin
    )
    assert get_pair(db, pairs[1].id).messages == ROWS[1]["prompt"]
    assert pairs[0].task_type == "demand_letter" and pairs[1].task_type == "imported"

    assert main(["corrections", "list"]) == 0
    listed = capsys.readouterr().out
    assert "gpt-x (imported)" in listed and "- (imported)" in listed
    assert main(["corrections", "show", str(pairs[0].id)]) == 0
    assert f"Imported from {pairs[0].origin}" in capsys.readouterr().out
    assert main(["corrections", "stats"]) == 0
    assert "gpt-x (imported)" in capsys.readouterr().out

    assert main(["corrections", "import", str(good)]) == 0  # the same rows again are stored once
    assert "Imported 0 pair(s)" in capsys.readouterr().out and len(list_pairs(db)) == 2
