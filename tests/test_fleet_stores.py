"""Where sweeps and agreement land: the finals corpus, the stored rows, and the dashboard's best variant per board.

The bench figures here are made up in the test (the real sweep and agreement
runs are in test_fleet_runs_real.py); what is tested is the storage and what
the dashboard makes of it. GPUs come from the recorded stand-ins
(backends/fleet/recorded_source.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from backends.fleet.agree import Agreement, finals_corpus, parse_kld_output, pick_ctx
from backends.fleet.bench import LengthResult, RunResult
from backends.fleet.store import best_per_board, latest_by_model_file, save_agreement, save_sweep
from backends.fleet.sweep import SweepRow
from corrections import schema as corrections_schema
from corrections.store import accepted_finals
from tests.support.dashboard_config import mission_config
from tui.app import create_app
from tui.cli.fleet_tables import sweep_notes, sweep_table
from tui.cli.tables import render
from tui.fleet.cards import BoardCard
from tui.fleet.dashboard import DashboardScreen
from workspace.database import connect


def pair(db: Any, n: int, final: str, excluded: int = 0) -> None:
    db.execute(
        "INSERT INTO corrections_pairs (pair_sha256, task_type, instructions, messages_json, sources_json, draft, "
        "final, trigger, accepted_at, captured_at, draft_words, final_words, words_added, words_removed, "
        "edit_ratio, excluded) VALUES (?, 'letter', '', '[]', '[]', 'draft', ?, 'accept', ?, ?, 1, 1, 0, 0, 0, ?)",
        (f"sha{n}", final, f"2026-01-0{n}", f"2026-01-0{n}", excluded),
    )


def test_finals_corpus_is_his_accepted_text_without_the_excluded(tmp_path: Path) -> None:
    db = connect(tmp_path / "db.sqlite3", corrections_schema.SCHEMA)
    with db:
        pair(db, 2, "Second final text.")
        pair(db, 1, "First final text.")
        pair(db, 3, "Excluded text.", excluded=1)
    db.close()
    finals = accepted_finals(tmp_path / "db.sqlite3")
    assert finals == ["First final text.", "Second final text."]
    assert finals_corpus(finals) == "First final text.\n\nSecond final text."


def test_kld_output_and_context_choice() -> None:
    out = (
        "kl_divergence: computing over 12 chunks, n_ctx=256, batch_size=256, n_seq=1\n"
        "Mean    KLD:   0.012345 ±   0.000400\nMaximum KLD:   1.5\n99.9%   KLD:   0.9\n"
        "99.0%   KLD:   0.201000\nSame top p: 96.123 ±  0.321 %\n"
    )
    assert parse_kld_output(out) == (0.012345, 0.201, 96.123, 12 * 127)
    assert (
        pick_ctx("x" * 100_000, None) == 512
        and pick_ctx("x" * 1000, None) == 64
        and pick_ctx("x", 300) == 300
    )


def run(tg: float, pp: float) -> RunResult:
    return RunResult(prompt_n=100, cache_n=0, pp_tok_s=pp, predicted_n=16, tg_tok_s=tg, seconds=1.0)


def row(variant: str, tgs: list[float], error: str | None = None) -> SweepRow:
    results = []
    for length, tg in zip((500, 4000), tgs, strict=False):
        r = LengthResult("w", "http://x", "m", "b1", length, 1, 2)
        r.runs = [run(tg, 900.0), run(tg + 2, 1000.0)]
        results.append(r)
    return SweepRow(
        "heavy-b",
        variant,
        f"llama-server --n-cpu-moe {variant}",
        {"CUDA_VISIBLE_DEVICES": "6,7"},
        "gpt-oss-120b-Q4_K_M.gguf",
        error,
        results,
    )


def test_sweep_table_store_and_best_variant(tmp_path: Path) -> None:
    rows = [
        row("n-cpu-moe=20", [44.0, 38.0]),
        row("n-cpu-moe=24", [47.0, 42.0]),
        row("n-cpu-moe=28", [], error="cudaMalloc failed: out of memory"),
    ]
    table = render(sweep_table(rows)) + "\n".join(sweep_notes(rows))
    assert "n-cpu-moe=28 FAILED: cudaMalloc failed: out of memory" in table
    assert table.count("BELOW") == 1 and "[n-cpu-moe=24] CUDA_VISIBLE_DEVICES=6,7 llama-server" in table
    database = tmp_path / "db.sqlite3"
    assert save_sweep(database, "s1", "board-b", rows) == 5
    best = best_per_board(database)["board-b"]
    assert (best.variant, best.tg_median) == ("n-cpu-moe=24", 43.0)  # judged at its slowest prompt length


async def test_dashboard_shows_the_best_variant_with_its_agreement(isolated_home: Path) -> None:
    database = isolated_home / "db.sqlite3"
    save_sweep(
        database, "s1", "board-b", [row("n-cpu-moe=20", [44.0, 38.0]), row("n-cpu-moe=24", [47.0, 42.0])]
    )
    agreement = Agreement(
        "ref.F16.gguf",
        "/models/gpt-oss-120b-Q4_K_M.gguf",
        "finals",
        "0" * 64,
        256,
        0.0123,
        0.2,
        96.4,
        3000,
        10.0,
        10.2,
        ("llama-perplexity ...",),
    )
    save_agreement(database, agreement, "2026-01-01T00:00:00+00:00", changed=8, total=513)
    assert (
        latest_by_model_file(database)["gpt-oss-120b-Q4_K_M.gguf"].short()
        == "KLD 0.0123 top1 96% MC 8/513 changed"
    )
    app = create_app(mission_config(), database, start_on_dashboard=True)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            if isinstance(app.screen, DashboardScreen) and app.screen.ready():
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        cards = {c.board.name: c for c in app.screen.query(BoardCard)}
        note = cards["board-b"].query_one(".card-best")
        assert note.display and str(note.render()) == (
            "best heavy-b [n-cpu-moe=24] TG 43 PP 950 · KLD 0.0123 top1 96% MC 8/513 changed"
        )
        assert not cards["board-a"].query_one(".card-best").display
