"""Pairs already stored under a model's file path (a server that reported its path) and under its name (the
demo's server) are one model: one row in the stats, one model for training, on the real demo GGUF."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.fleet.gguf_name import served_name
from corrections.capture import capture
from corrections.stats import ALL_TASKS, GroupStats, compute_stats
from corrections.store import PairFilters
from corrections.train_data import TrainingRefused, TrainingSelection, select_pairs
from tests.support.train_pairs import PAIRS, pair_input, store_pairs
from tui.corrections.model_names import stored_model_names
from tui.demo import DEMO_BACKEND, DEMO_MODEL, demo_config, demo_config_text
from workspace.paths import Paths


def models_in(rows: list[GroupStats]) -> set[str]:
    return {r.model for r in rows if r.task_type == ALL_TASKS}


def test_path_rows_and_name_rows_are_one_model_in_stats_and_training(
    tmp_path: Path, demo_model: Path
) -> None:
    db = tmp_path / "chambers.sqlite3"
    half = len(PAIRS) // 2
    store_pairs(db, half, model=str(demo_model), backend=DEMO_BACKEND)
    for i in range(half, len(PAIRS)):
        capture(db, pair_input(i, model=DEMO_MODEL, backend=DEMO_BACKEND))
    config = demo_config("http://127.0.0.1:41234", str(tmp_path / "config.toml"), weights=str(demo_model))

    assert models_in(compute_stats(db)) == {str(demo_model), DEMO_MODEL}, "as stored: two names"
    with pytest.raises(TrainingRefused, match="2 different models"):
        select_pairs(db, TrainingSelection(DEMO_BACKEND, PairFilters()))

    names = stored_model_names(config, db)
    assert names == {str(demo_model): DEMO_MODEL}
    (row,) = [r for r in compute_stats(db, names) if r.task_type == ALL_TASKS]
    assert (row.model, row.drafts) == (DEMO_MODEL, len(PAIRS))
    chosen = select_pairs(db, TrainingSelection(DEMO_BACKEND, PairFilters(), model_names=names))
    assert chosen.model == DEMO_MODEL
    assert len(chosen.train) + len(chosen.held_out) == len(PAIRS), "both names' pairs are chosen"
    by_path = TrainingSelection(DEMO_BACKEND, PairFilters(model=str(demo_model)), model_names=names)
    assert len(select_pairs(db, by_path).train) == len(chosen.train), "--model may give either name"


def test_without_a_config_the_path_rows_join_the_ggufs_own_name(tmp_path: Path, demo_model: Path) -> None:
    """A profile with no backend served the file under its general.name and size; older rows have its
    path. With nothing configured, the file itself says they are one model."""
    db = tmp_path / "chambers.sqlite3"
    own = served_name(demo_model)
    assert own is not None
    gone = str(tmp_path / "deleted" / "model.gguf")
    for i in range(len(PAIRS)):
        model = str(demo_model) if i % 2 else own
        capture(db, pair_input(i, model=gone if i == 0 else model, backend=DEMO_BACKEND))
    names = stored_model_names(None, db)
    assert names == {str(demo_model): own}, "a file that is gone identifies nothing: it keeps its name"
    assert models_in(compute_stats(db, names)) == {own, gone}


def test_corrections_stats_prints_one_row_for_the_demo_model(
    isolated_home: Path, demo_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli.main import main

    paths = Paths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.database_file.parent.mkdir(parents=True, exist_ok=True)
    config = demo_config("http://127.0.0.1:41234", str(paths.config_file), weights=str(demo_model))
    paths.config_file.write_text(demo_config_text(config), encoding="utf-8")
    for i in range(4):
        capture(
            paths.database_file,
            pair_input(i, model=str(demo_model) if i < 2 else DEMO_MODEL, backend=DEMO_BACKEND),
        )
    assert main(["corrections", "stats"]) == 0
    out = capsys.readouterr().out
    assert str(demo_model) not in out
    assert sum(1 for line in out.splitlines() if line.startswith(DEMO_MODEL) and ALL_TASKS in line) == 1
