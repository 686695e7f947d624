"""Hot and cold experts for real: the tiny MoE made here, llama-imatrix on it, a requantization within budget.

The model is ``backends/fleet/tiny_moe.py``'s (a Mixtral of 3 layers x 8 experts, trained a little so
its routing is uneven); the tools are llama.cpp's own, built from the pinned source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gguf import GGUFReader

from backends.fleet.tiny_moe import ensure_tiny_moe
from tui.cli.main import main
from workspace.database import session

MIB = 1 << 20
CORPUS = (
    "The tenant's counsel moved to compel production of the lease ledger, and the landlord opposed, citing "
    "privilege. We write to confirm that the deposition of the property manager is set for March 3 at 10:00, "
    "and that the exhibits listed in Schedule B, pages 14 through 22, will be produced in advance. Invoice 88 "
    "lists 14 hours at 310.00, a total of 4,340.00, and the retainer balance is 1,660.00 after this charge. "
) * 24


@pytest.fixture(scope="module")
def tiny_moe() -> Path:
    return ensure_tiny_moe(print)


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "his-letters.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


def _stored(isolated_home: Path, table: str) -> list[dict[str, Any]]:
    with session(isolated_home / "data" / "chambers.sqlite3", readonly=True) as db:
        return [dict(r) for r in db.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()]


def test_experts_prints_the_coverage_curve_of_the_imatrix_file(
    tiny_moe: Path, corpus_file: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["experts", str(tiny_moe), "--corpus", str(corpus_file)]) == 0
    out = capsys.readouterr().out
    (row,) = _stored(isolated_home, "expert_results")
    assert row["model_file"] == str(tiny_moe) and row["corpus"] == str(corpus_file)
    # An independent count, straight from the imatrix GGUF: the routed calls of each layer's up_exps.
    tensors = {t.name: np.asarray(t.data).reshape(-1) for t in GGUFReader(str(row["imatrix_file"])).tensors}
    counts = np.concatenate([tensors[f"blk.{n}.ffn_up_exps.weight.counts"] for n in range(3)])
    assert counts.size == 24 and counts.max() > 2 * counts.mean()  # trained: routing is far from uniform
    ranked = np.sort(counts)[::-1]
    shares = [ranked[:k].sum() / ranked.sum() * 100 for k in (2, 6, 10)]  # 10/25/40% of 24, rounded
    expected = "/".join(f"{s:.1f}" for s in shares)
    assert f"the top 10/25/40% of experts take {expected}% of routed calls" in out
    zeros = int((counts == 0).sum())
    assert row["never_woken"] == zeros
    assert (f"never woken by this text ({zeros} of 24" in out) if zeros else ("every one of the 24" in out)


def test_requant_keeps_its_budget_and_a_larger_budget_agrees_better(
    tiny_moe: Path, corpus_file: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = tmp_path / tiny_moe.name
    source.symlink_to(tiny_moe)
    # Below the all-cold size: refused, the size shown, nothing written.
    assert (
        main(
            [
                "requant",
                str(source),
                "--to",
                "tiny-low",
                "--budget-gib",
                str(1 / 1024),
                "--hot",
                "Q8_0",
                "--cold",
                "Q4_0",
                "--corpus",
                str(corpus_file),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "below the all-Q4_0 size" in err and not (tmp_path / "tiny-low.gguf").exists()
    budgets = {"tiny-small": 3.75 * MIB, "tiny-large": 6 * MIB}
    for name, budget in budgets.items():  # the proof (agreement and speed, both files) for the larger one
        proof = ["--no-proof"] if name == "tiny-small" else []
        assert (
            main(
                [
                    "requant",
                    str(source),
                    "--to",
                    name,
                    "--budget-gib",
                    str(budget / (1 << 30)),
                    *proof,
                    "--hot",
                    "Q8_0",
                    "--cold",
                    "Q4_0",
                    "--corpus",
                    str(corpus_file),
                ]
            )
            == 0
        )
    out = capsys.readouterr().out
    assert "the line: this tensor plan serves" in out and "per-expert mix" in out
    plans = _stored(isolated_home, "requant_plans")
    assert [Path(str(p["output_file"])).name for p in plans] == ["tiny-small.gguf", "tiny-large.gguf"]

    for plan in plans:
        written = Path(str(plan["output_file"]))
        assert int(plan["planned_bytes"]) <= int(plan["budget_bytes"])
        assert written.stat().st_size <= int(plan["budget_bytes"])
        types = {t.name: t.tensor_type.name for t in GGUFReader(str(written)).tensors}
        assert all(types[t["name"]] == t["qtype"] for t in json.loads(str(plan["plan_json"])))
    hot = [sum(t["qtype"] == "Q8_0" for t in json.loads(str(p["plan_json"]))) for p in plans]
    assert 0 < hot[0] < hot[1]
    # The proof the larger run ended with: the all-cold file and the new one scored against the source,
    # both served and timed. All-cold is the smallest budget there is: the larger must agree at least as well.
    assert out.count("same top-1 %") == 1 and out.count("generation tok/s") == 1
    assert plans[0]["proof_json"] is None
    proof = json.loads(str(plans[1]["proof_json"]))
    assert Path(proof["before"]["path"]).name == f"{tiny_moe.stem}.all-Q4_0.gguf"
    assert proof["before"]["speed"]["generation_tps"] > 0 and proof["after"]["speed"]["generation_tps"] > 0
    cold, large = proof["before"]["agreement"], proof["after"]["agreement"]
    print(
        f"tiny MoE vs its F16: all-Q4_0 KLD {cold['mean_kld']:.5f} top1 {cold['same_top1_pct']:.2f}%; "
        f"{budgets['tiny-large'] / MIB:.2f} MiB budget KLD {large['mean_kld']:.5f} top1 {large['same_top1_pct']:.2f}%"
    )
    assert large["mean_kld"] <= cold["mean_kld"] and large["same_top1_pct"] >= cold["same_top1_pct"]
    assert proof["after"]["size"] > proof["before"]["size"]
    stored = {Path(r["candidate_file"]).name for r in _stored(isolated_home, "agreement_results")}
    assert stored == {"tiny-large.gguf", f"{tiny_moe.stem}.all-Q4_0.gguf"}


def test_requant_refuses_a_dense_model_before_running_anything(
    demo_model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["requant", str(demo_model), "--to", "nope", "--budget-gib", "1"]) == 2
    err = capsys.readouterr().err
    assert "is a dense model" in err and "no expert tensors" in err
