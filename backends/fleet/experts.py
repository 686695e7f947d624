"""Which experts his text wakes: the coverage curve, the most concentrated layers, the experts never used.

Everything here is arithmetic on the per-expert routed-call counts of one imatrix file
(``backends/fleet/imatrix.py``); nothing is estimated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

CURVE_FRACTIONS = (0.10, 0.25, 0.40)


@dataclass(frozen=True)
class LayerRouting:
    layer: int
    counts: tuple[float, ...]

    @property
    def effective_experts(self) -> float:
        """exp(entropy) of the layer's routing: n_experts when uniform, 1 when one expert takes all."""
        total = sum(self.counts)
        if total <= 0:
            return 0.0
        shares = [c / total for c in self.counts if c > 0]
        return math.exp(-sum(p * math.log(p) for p in shares))


@dataclass(frozen=True)
class ExpertsReport:
    layers: tuple[LayerRouting, ...]
    curve: tuple[tuple[float, int, float], ...] = field(default=())  # (fraction, experts, share of calls)

    @property
    def n_experts(self) -> int:
        return sum(len(layer.counts) for layer in self.layers)

    @property
    def total_calls(self) -> float:
        return sum(sum(layer.counts) for layer in self.layers)

    def never_woken(self) -> list[tuple[int, int]]:
        return [(layer.layer, e) for layer in self.layers for e, c in enumerate(layer.counts) if c == 0]

    def most_concentrated(self, n: int = 3) -> list[LayerRouting]:
        return sorted(self.layers, key=lambda layer: (layer.effective_experts, layer.layer))[:n]


def ranked_experts(layers: tuple[LayerRouting, ...]) -> list[tuple[int, int, float]]:
    """Every (layer, expert, calls), most called first (ties: lower layer, lower expert)."""
    pairs = [(layer.layer, e, c) for layer in layers for e, c in enumerate(layer.counts)]
    return sorted(pairs, key=lambda p: (-p[2], p[0], p[1]))


def top_share(layers: tuple[LayerRouting, ...], k: int) -> float:
    """Share of all routed calls taken by the ``k`` most called experts of the whole model."""
    ranked = ranked_experts(layers)
    total = sum(c for _, _, c in ranked)
    return sum(c for _, _, c in ranked[:k]) / total if total > 0 else 0.0


def experts_report(counts: dict[int, tuple[float, ...]]) -> ExpertsReport:
    layers = tuple(LayerRouting(layer, tuple(c)) for layer, c in sorted(counts.items()))
    n = sum(len(layer.counts) for layer in layers)
    curve = tuple((f, max(1, round(f * n)), top_share(layers, max(1, round(f * n)))) for f in CURVE_FRACTIONS)
    return ExpertsReport(layers, curve)


def format_report(report: ExpertsReport, model: str, corpus: str) -> str:
    n_per_layer = len(report.layers[0].counts) if report.layers else 0
    lines = [
        f"{model} on {corpus}: {len(report.layers)} MoE layers x {n_per_layer} experts, "
        f"{report.total_calls:.0f} routed calls",
        "the top "
        + "/".join(f"{f * 100:.0f}" for f, _, _ in report.curve)
        + "% of experts take "
        + "/".join(f"{s * 100:.1f}" for _, _, s in report.curve)
        + "% of routed calls",
        "most concentrated layers (effective experts = exp(entropy) of the routing):",
    ]
    for layer in report.most_concentrated():
        total = sum(layer.counts) or 1.0
        top = sorted(range(len(layer.counts)), key=lambda e: -layer.counts[e])[:2]
        busiest = ", ".join(f"expert {e} {layer.counts[e] / total * 100:.0f}%" for e in top)
        lines.append(
            f"  layer {layer.layer}: {layer.effective_experts:.2f} of {len(layer.counts)} effective ({busiest})"
        )
    never = report.never_woken()
    if never:
        shown = ", ".join(f"{layer}.{e}" for layer, e in never[:20])
        more = f" and {len(never) - 20} more" if len(never) > 20 else ""
        lines.append(
            f"never woken by this text ({len(never)} of {report.n_experts}, layer.expert): {shown}{more}"
        )
    else:
        lines.append(f"every one of the {report.n_experts} experts was woken at least once")
    return "\n".join(lines)
