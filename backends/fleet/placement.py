"""Which expert tensors stay on the GPUs when a model is larger than the board's memory.

llama-server puts a weight in the CPU's memory when an ``-ot``/``--override-tensor`` rule
``REGEX=CPU`` matches its name: the loader tries each rule with ``std::regex_search`` and the first
match wins, and the flag's value is split at commas, so no pattern here contains one. ``CPU`` is the
CPU's buffer type in every build (a CUDA build adds ``CUDA0``, ``CUDA1``, ...).

Every tensor that is not an expert tensor stays on the GPUs: attention, embeddings, norms and the
routers serve every token. An expert tensor (``blk.N.ffn_{gate,up,down}_exps.weight``) holds all of
a layer's experts, and every token is routed to the same number of them in every layer, so at this
granularity the routed calls cannot tell tensors apart. What his routing does tell apart is how much
of a tensor his text reads: a layer whose tokens go to two of its eight experts reads a quarter of its
weights, and a batch of his text touches few of them, which the CPU serves from its caches; a layer
that spreads his tokens over all eight reads all of them. So tensors are kept on the GPUs in order
of the effective experts of their layer's routing (exp of its entropy), then of their activation
energy, while they fit the VRAM budget; the rest get rules. The budget counts weights only: the KV
cache and compute buffers need room of their own.

The line, as for requant: a llama.cpp that splits expert tensors could keep single experts, the
busiest first, in the same room; ``expert_coverage`` says what share of routed calls those would be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from backends.fleet.experts import LayerRouting, ranked_experts
from backends.fleet.gguf_tensors import TensorInfo, read_tensor_table
from backends.fleet.imatrix import ExpertsError, Imatrix
from backends.fleet.requant_plan import GIB

_EXPS = re.compile(r"^blk\.(\d+)\.ffn_(gate|up|down)_exps\.weight$")
CPU_BUFFER = "CPU"


class PlacementError(ExpertsError):
    title = "The experts could not be placed"


@dataclass(frozen=True)
class PlacedTensor:
    name: str
    layer: int
    kind: str  # gate, up or down
    size: int
    effective: float  # effective experts of its layer's routing (exp of the entropy), of n_experts
    n_experts: int
    on_gpu: bool


@dataclass(frozen=True)
class Placement:
    model: Path
    budget: int
    dense: int  # bytes that stay on the GPUs whatever the plan: every non-expert tensor and the metadata
    tensors: tuple[PlacedTensor, ...]  # expert tensors, most used first

    @property
    def gpu_bytes(self) -> int:
        return self.dense + sum(t.size for t in self.tensors if t.on_gpu)

    @property
    def cpu_bytes(self) -> int:
        return sum(t.size for t in self.tensors if not t.on_gpu)

    def gpu_read_share(self) -> float:
        """Share of the expert weights his routing reads (tensor bytes x effective/n) that sit on the GPUs."""
        read = {t.name: t.size * t.effective / t.n_experts for t in self.tensors}
        total = sum(read.values())
        return sum(read[t.name] for t in self.tensors if t.on_gpu) / total if total else 0.0

    def rules(self) -> tuple[str, ...]:
        """The ``-ot`` rules sending the CPU's tensors there: layers that send the same kinds share one."""
        kinds: dict[int, list[str]] = {}
        for t in sorted(self.tensors, key=lambda t: (t.layer, ("gate", "up", "down").index(t.kind))):
            if not t.on_gpu:
                kinds.setdefault(t.layer, []).append(t.kind)
        groups: dict[tuple[str, ...], list[int]] = {}
        for layer, names in kinds.items():
            groups.setdefault(tuple(names), []).append(layer)
        return tuple(
            rf"^blk\.{_alt([str(x) for x in layers])}\.ffn_{_alt(list(names))}_exps\.weight$={CPU_BUFFER}"
            for names, layers in sorted(groups.items(), key=lambda g: g[1][0])
        )


def layers_for_budget(p: Placement) -> int:
    """The smallest K for which llama.cpp's own ``--n-cpu-moe K`` (the first K layers' experts on the
    CPU) fits the same budget: the by-layer offload to compare the traffic-ranked rules against."""
    layers = sorted({t.layer for t in p.tensors})
    for k in range(len(layers) + 1):
        if p.dense + sum(t.size for t in p.tensors if t.layer >= k) <= p.budget:
            return k
    return len(layers)


def offload_variants(p: Placement) -> list[str]:
    """The lines of a ``--vary offload=@FILE`` file: these rules, then llama.cpp's own flags at the same budget."""
    rules = p.rules()
    own = [f"ot:{' '.join(rules)}"] if rules else ["gpu"]
    return [*own, "cpu-moe", f"n-cpu-moe:{layers_for_budget(p)}"]


def _alt(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"({'|'.join(words)})"


def make_placement(model: Path, imatrix: Imatrix, budget: int) -> Placement:
    table = read_tensor_table(model)
    found = [(t, m) for t in table if (m := _EXPS.match(t.name))]
    if not found:
        raise PlacementError(
            f"{model.name} is a dense model: it has no expert tensors (blk.N.ffn_*_exps) to keep on the GPUs "
            "or send to the CPU. Offload a dense model by layers (n_gpu_layers) instead."
        )
    dense = model.stat().st_size - sum(t.n_bytes for t, _ in found)
    if dense > budget:
        raise PlacementError(
            f"The non-expert tensors of {model.name} alone take {dense / GIB:.4f} GiB, more than the "
            f"{budget / GIB:.4f} GiB given with --vram-gib. Give the weights more room, or keep layers on "
            "the CPU with n_gpu_layers."
        )
    routing = {n: LayerRouting(n, c) for n, c in imatrix.expert_counts().items()}

    def order(item: tuple[TensorInfo, re.Match[str]]) -> tuple[float, float, int, str]:
        t, m = item
        layer, s = routing.get(int(m.group(1))), imatrix.tensors.get(t.name)
        return (
            -(layer.effective_experts if layer else 0.0),
            -(s.mass if s else 0.0),
            int(m.group(1)),
            t.name,
        )

    room = budget - dense
    placed = []
    for t, m in sorted(found, key=order):
        keep = t.n_bytes <= room
        room -= t.n_bytes if keep else 0
        layer = routing.get(int(m.group(1)))
        effective, n = (layer.effective_experts, len(layer.counts)) if layer else (0.0, t.shape[-1])
        placed.append(PlacedTensor(t.name, int(m.group(1)), m.group(2), t.n_bytes, effective, n, keep))
    return Placement(model, budget, dense, tuple(placed))


def expert_coverage(p: Placement, imatrix: Imatrix) -> tuple[int, int, float]:
    """What a split-tensor llama.cpp could keep in the same room: (experts kept, experts, share of calls)."""
    per_expert: dict[int, int] = {}
    for t in p.tensors:  # one expert of a layer: its slice of the layer's gate, up and down tensors
        per_expert[t.layer] = per_expert.get(t.layer, 0) + t.size // t.n_experts
    ranked = ranked_experts(tuple(LayerRouting(n, c) for n, c in sorted(imatrix.expert_counts().items())))
    room, kept, calls = p.budget - p.dense, 0, 0.0
    for layer, _, c in ranked:
        if per_expert.get(layer, 0) <= room:
            room -= per_expert.get(layer, 0)
            kept, calls = kept + 1, calls + c
    total = sum(c for _, _, c in ranked)
    return kept, len(ranked), calls / total if total else 0.0


def format_placement(p: Placement, imatrix: Imatrix) -> str:
    on_gpu = [t for t in p.tensors if t.on_gpu]
    head = f"{'expert tensor':<28} {'MiB':>9} {'effective':>9}  where"
    rows = [
        f"{p.model.name} in {p.budget / GIB:.4f} GiB of VRAM (weights only; the KV cache and compute buffers "
        "need room of their own)",
        head,
        "-" * len(head),
    ]
    rows += [
        f"{t.name[:28]:<28} {t.size / (1 << 20):>9.3f} {f'{t.effective:.1f}/{t.n_experts}':>9}  "
        f"{'GPU' if t.on_gpu else 'CPU'}"
        for t in p.tensors
    ]
    kept, total, share = expert_coverage(p, imatrix)
    rows += [
        f"on the GPUs: the non-expert tensors ({p.dense / GIB:.4f} GiB) and {len(on_gpu)} of {len(p.tensors)} "
        f"expert tensors, {p.gpu_bytes / GIB:.4f} GiB in all, holding {p.gpu_read_share() * 100:.1f}% of the "
        f"expert weights his routing reads; on the CPU: {p.cpu_bytes / GIB:.4f} GiB",
        f"the line: every token takes the same number of experts in every layer, so whole tensors share his "
        f"routed calls evenly; a llama.cpp that splits expert tensors could keep his {kept} busiest of {total} "
        f"experts on the GPUs in this room, serving {share * 100:.1f}% of his routed calls there.",
    ]
    rules = p.rules()
    rows.append("-ot rules:" if rules else "the whole model fits: no -ot rules are needed")
    rows += [f"  {rule}" for rule in rules]
    return "\n".join(rows)
