"""What one real ``chambers requant`` run of the tiny MoE stored, replayed into a test's database.

The figures were copied from the rows a run of ``chambers requant`` on ``backends/fleet/tiny_moe.py``'s
model stored (budget 6 MiB, Q8_0 hot, Q4_0 cold, over ``tests/test_fleet_experts.CORPUS``, on two
CPU cores), with the paths moved to ``/models`` and the commands left out. A snapshot needs figures
that do not move between runs, and speeds measured on a loaded machine do; the rows are written
through the real store functions into a real SQLite file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from backends.fleet.store import save_experts, save_requant_plan

SOURCE = "/models/chambers-tiny-moe-8x.F16.gguf"
OUTPUT = "/models/tiny-shown.gguf"
CURVE = [(0.1, 2, 0.3333333333333333), (0.25, 6, 0.92734375), (0.4, 10, 0.9990885416666667)]
COUNTS: dict[int, tuple[float, ...]] = {
    0: (14.0, 61.0, 1572.0, 939.0, 0.0, 2432.0, 35.0, 67.0),
    1: (0.0, 0.0, 0.0, 2560.0, 0.0, 2560.0, 0.0, 0.0),
    2: (0.0, 2560.0, 0.0, 0.0, 0.0, 0.0, 2560.0, 0.0),
}
SHA = "b9f291e2f049350383c09d136bb424f4abb4d816f96441b9b203a0a504b9cfab"
TENSORS = ["token_embd.weight"] + [
    f"blk.{n}.{kind}.weight"
    for n in range(3)
    for kind in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate_exps", "ffn_down_exps", "ffn_up_exps")
]


def _side(
    path: str, size: int, kld: float, p99: float, seconds: float, pp: float, tg: float
) -> dict[str, Any]:
    agreement = {
        "reference": SOURCE,
        "candidate": path,
        "corpus": "his-letters.txt",
        "corpus_sha256": SHA,
        "n_ctx": 512,
        "mean_kld": kld,
        "p99_kld": p99,
        "same_top1_pct": 100.0,
        "tokens": 1275,
        "perplexity_s": seconds,
        "total_s": seconds,
        "commands": [],
    }
    speed = {"prefill_tps": pp, "generation_tps": tg}
    return {
        "path": path,
        "size": size,
        "agreement": agreement,
        "answers_changed": None,
        "answers_total": None,
        "speed": speed,
    }


PROOF: dict[str, object] = {
    "before": _side(
        "/models/chambers-tiny-moe-8x.F16.all-Q4_0.gguf", 3901504, 0.000151, 0.000234, 18.19, 1818.3, 17.7
    ),
    "after": _side(OUTPUT, 5787712, 0.000004, 0.000012, 7.47, 1435.0, 11.6),
}


def seed_measured(database: Path) -> None:
    """The run's expert measurement and its requantization, with the proof, as the real run stored them."""
    at = "2026-12-02T16:28:35+00:00"
    save_experts(
        database,
        at,
        SOURCE,
        "/home/attorney/his-letters.txt",
        SHA,
        "/data/experts/imatrix.gguf",
        CURVE,
        COUNTS,
        13,
    )
    plan: list[dict[str, object]] = [{"name": name, "qtype": "Q8_0"} for name in TENSORS]
    line: dict[str, object] = {"raised": 24, "total": 24, "coverage": 1.0, "tensor_coverage": 1.0}
    save_requant_plan(database, at, SOURCE, OUTPUT, 6291456, 5788448, "Q8_0", "Q4_0", plan, line, PROOF)
