"""Proof on his text that a requantization helped: agreement and speed, before and after.

"Before" is the same model with every quantizable tensor at the cold type (the plan's starting
point, written with the same imatrix), so the difference is the hot tensors alone. Both are scored
against the source with ``llama-perplexity`` (``AgreementRunner``), and both are served once by
llama-server for a few timed completions of his own text: prefill and generation tok/s are the
server's own ``timings``, the median of the runs.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backends.endpoint import Endpoint, sync_client
from backends.fleet.agree import Agreement, AgreementRunner
from backends.fleet.requant_plan import GIB
from backends.local_server import LlamaServerProcess
from workspace.config import Policy

SPEED_RUNS = 3
SPEED_TOKENS = 32


@dataclass(frozen=True)
class Speed:
    prefill_tps: float
    generation_tps: float


@dataclass(frozen=True)
class Side:
    path: str
    size: int
    agreement: Agreement
    answers_changed: int | None
    answers_total: int | None
    speed: Speed


def measure_speed(binary: Path, model: Path, prompt: str, log_dir: Path) -> Speed:
    server = LlamaServerProcess(
        binary,
        model,
        extra_args=("-np", "1", "-c", "2048"),
        alias=model.stem,
        log_file=log_dir / f"requant-speed-{model.stem}.log",
    )
    prefill, generation = [], []
    with server, sync_client(300) as client:
        # Through the policy's checked client: a server chambers started itself is loopback.
        checked = Endpoint(f"llama-server on port {server.port}", server.url, Policy()).check()
        for _ in range(SPEED_RUNS):
            reply = client.post(
                f"{server.url}/completion",
                json={"prompt": prompt, "n_predict": SPEED_TOKENS, "cache_prompt": False, "temperature": 0},
                extensions=checked.extensions(),
            )
            reply.raise_for_status()
            timings = reply.json()["timings"]
            prefill.append(float(timings["prompt_per_second"]))
            generation.append(float(timings["predicted_per_second"]))
    return Speed(statistics.median(prefill), statistics.median(generation))


def prove(
    runner: AgreementRunner,
    server_binary: Path,
    reference: Path,
    before: Path,
    after: Path,
    corpus_text: str,
    corpus_name: str,
    log_dir: Path,
    answers: dict[str, tuple[int, int]] | None = None,
) -> tuple[Side, Side]:
    prompt = corpus_text[:2000]
    sides = []
    for path in (before, after):
        agreement = runner.measure(reference, path, corpus_text, corpus_name)
        changed, total = (answers or {}).get(str(path), (None, None))
        speed = measure_speed(server_binary, path, prompt, log_dir)
        sides.append(Side(str(path), path.stat().st_size, agreement, changed, total, speed))
    return sides[0], sides[1]


def proof_rows(before: Side, after: Side) -> list[str]:
    """The seed's table, one row per figure: before -> after."""

    def row(label: str, a: str, b: str) -> str:
        return f"{label:<22} {a:>14} -> {b:<14}".rstrip()

    answers = "-"
    if before.answers_total:
        answers = f"{before.answers_changed}/{before.answers_total} -> {after.answers_changed}/{after.answers_total}"
    return [
        row("same top-1 %", f"{before.agreement.same_top1_pct:.2f}", f"{after.agreement.same_top1_pct:.2f}"),
        row("mean KLD", f"{before.agreement.mean_kld:.5f}", f"{after.agreement.mean_kld:.5f}"),
        row("p99 KLD", _opt(before.agreement.p99_kld), _opt(after.agreement.p99_kld)),
        f"{'answers changed':<22} {answers}",
        row("prefill tok/s", f"{before.speed.prefill_tps:.1f}", f"{after.speed.prefill_tps:.1f}"),
        row("generation tok/s", f"{before.speed.generation_tps:.1f}", f"{after.speed.generation_tps:.1f}"),
        row("size GiB", f"{before.size / GIB:.4f}", f"{after.size / GIB:.4f}"),
    ]


def format_proof(before: Side, after: Side) -> str:
    head = [
        f"before: {Path(before.path).name}   after: {Path(after.path).name}",
        f"against {Path(before.agreement.reference).name} on {before.agreement.corpus}",
    ]
    return "\n".join(head + proof_rows(before, after))


def sides_from_stored(proof: dict[str, Any]) -> tuple[Side, Side]:
    """The two sides of a proof as ``chambers requant`` stored them (``dataclasses.asdict`` of each)."""

    def side(raw: dict[str, Any]) -> Side:
        agreement = Agreement(**{**raw["agreement"], "commands": tuple(raw["agreement"]["commands"])})
        fields = {k: raw[k] for k in ("path", "size", "answers_changed", "answers_total")}
        return Side(**fields, agreement=agreement, speed=Speed(**raw["speed"]))

    return side(proof["before"]), side(proof["after"])


def _opt(value: float | None) -> str:
    return "-" if value is None else f"{value:.5f}"
