"""What ``chambers experts`` and ``requant`` stored, shown where he looks: the board's detail and ``bench``.

The tiny MoE (``backends/fleet/tiny_moe.py``) is measured and requantized for real, with the proof
run (llama-perplexity and llama-server); the dashboard reads those stored rows from the real SQLite
file, and ``chambers bench`` runs against a real llama-server serving the requantized file.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gguf import GGUFReader

from backends.fleet.tiny_moe import ensure_tiny_moe
from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess
from tests.conftest import make_backend
from tests.support.dashboard_config import mission_config
from tests.test_fleet_experts import CORPUS, MIB, _stored
from tests.test_fleet_servers import write_config
from tui.app import create_app
from tui.cli.main import main
from tui.fleet.dashboard import DashboardScreen
from tui.fleet.detail import DetailScreen


@pytest.fixture(scope="module")
def tiny_moe() -> Path:
    return ensure_tiny_moe(print)


async def _detail_text(config: Any, database: Path) -> str:
    """Open the dashboard, wait for its stored results, open the first card (pair-01)'s detail."""
    app = create_app(config, database, start_on_dashboard=True)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            if isinstance(app.screen, DashboardScreen) and app.screen.ready():
                break
            await pilot.pause(0.05)
        screen = app.screen
        assert isinstance(screen, DashboardScreen)
        await asyncio.gather(*(w.wait() for w in screen.workers if w.group == "fleet-bench"))
        await pilot.pause()
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen)
        return app.screen.text


def test_board_detail_and_bench_show_the_stored_experts_and_requant(
    tiny_moe: Path,
    isolated_home: Path,
    tmp_path: Path,
    llama_server_binary: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    corpus = tmp_path / "his-letters.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    source = tmp_path / tiny_moe.name
    source.symlink_to(tiny_moe)
    budget = str(6 * MIB / (1 << 30))
    args = ["--budget-gib", budget, "--hot", "Q8_0", "--cold", "Q4_0", "--corpus", str(corpus)]
    assert main(["requant", str(source), "--to", "tiny-shown", *args]) == 0
    capsys.readouterr()
    (experts,) = _stored(isolated_home, "expert_results")
    (plan,) = _stored(isolated_home, "requant_plans")
    proof = json.loads(str(plan["proof_json"]))

    # Expected lines, counted independently from the imatrix file the run kept.
    tensors = {
        t.name: np.asarray(t.data).reshape(-1) for t in GGUFReader(str(experts["imatrix_file"])).tensors
    }
    layers = [tensors[f"blk.{n}.ffn_up_exps.weight.counts"] for n in range(3)]
    ranked = np.sort(np.concatenate(layers))[::-1]
    shares = "/".join(f"{ranked[:k].sum() / ranked.sum() * 100:.1f}" for k in (2, 6, 10))

    def effective(c: np.ndarray) -> float:
        p = c[c > 0] / c.sum()
        return math.exp(-float((p * np.log(p)).sum()))

    by_concentration = sorted(range(3), key=lambda n: (effective(layers[n]), n))
    first, *rest = by_concentration
    concentrated = ", ".join(
        [f"{first} ({effective(layers[first]):.1f}/8 effective)"]
        + [f"{n} ({effective(layers[n]):.1f})" for n in rest]
    )
    never = int((np.concatenate(layers) == 0).sum())
    before, after = (proof[s]["agreement"]["same_top1_pct"] for s in ("before", "after"))
    top1 = f"{'same top-1 %':<22} {before:>14.2f} -> {after:.2f}"
    expected = [
        f"Model {tiny_moe.name}",
        f"top 10/25/40% of experts take {shares}% of routed calls",
        f"most concentrated layers: {concentrated}",
        f"never woken by his text: {never} of 24 experts",
        f"requant of {tiny_moe.name}, ",
        f"before: {tiny_moe.stem}.all-Q4_0.gguf",
        "after:  tiny-shown.gguf (agreement with the source)",
        top1,
    ]

    # The board whose profile serves the measured file shows all of it; a board serving nothing measured
    # shows no model section.
    profile = {"name": "tiny", "model": str(source), "board": "pair-01"}
    text = asyncio.run(
        _detail_text(
            replace(mission_config(), profiles=(profile,)), isolated_home / "data" / "chambers.sqlite3"
        )
    )
    missing = [line for line in expected if line not in text]
    assert not missing, f"{missing} not in the detail:\n{text}"
    bare = asyncio.run(_detail_text(mission_config(), isolated_home / "data" / "chambers.sqlite3"))
    assert "Model " not in bare and "routed calls" not in bare

    # bench against a server that reports the requantized file under its stem: the table's model has it.
    target = tmp_path / "tiny-shown.gguf"
    log = tmp_path / "tiny-shown.log"
    with LlamaServerProcess(
        llama_server_binary, target, extra_args=TEST_SERVER_ARGS, alias="tiny-shown", log_file=log
    ) as server:
        write_config(isolated_home, make_backend(server.url, name="tiny", board="pair-01"))
        assert main(["bench", "--lengths", "48", "--runs", "1", "--warmup", "0", "--max-tokens", "4"]) == 0
    out = capsys.readouterr().out
    assert "tiny-shown:" in out and f"requant of {tiny_moe.name}" in out and top1 in out
