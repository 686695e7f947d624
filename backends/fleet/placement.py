"""Which expert tensors stay on the GPUs when a model is larger than the board's memory.

llama-server puts a weight in the CPU's memory when an ``-ot``/``--override-tensor`` rule
``REGEX=CPU`` matches its name: the loader tries each rule with ``std::regex_search`` and the first
match wins, and the flag's value is split at commas, so no pattern here contains one. ``CPU`` is the
CPU's buffer type in every build (a CUDA build adds ``CUDA0``, ``CUDA1``, ...).

Every tensor that is not an expert tensor stays on the GPUs: attention, embeddings, norms and the
routers serve every token. Expert tensors (``blk.N.ffn_{gate,up,down}_exps.weight``, one per layer
and kind, all of a layer's experts in it) are kept on the GPUs in order of the routed calls his text
sends them, then of their activation energy, while they fit the VRAM budget; the rest get rules. The
budget counts weights only: the KV cache and compute buffers need room of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

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
    calls_share: float  # share of the routed calls over all expert tensors
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

    def gpu_traffic(self) -> float:
        total = sum(t.calls_share for t in self.tensors)
        return sum(t.calls_share for t in self.tensors if t.on_gpu) / total if total else 0.0

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
    stats = imatrix.tensors
    total = sum(stats[t.name].calls for t, _ in found if t.name in stats) or 1.0

    def used(item: tuple[TensorInfo, re.Match[str]]) -> tuple[float, float, int, str]:
        t, m = item
        s = stats.get(t.name)
        return (-(s.calls if s else 0.0), -(s.mass if s else 0.0), int(m.group(1)), t.name)

    room = budget - dense
    placed = []
    for t, m in sorted(found, key=used):
        keep = t.n_bytes <= room
        room -= t.n_bytes if keep else 0
        share = stats[t.name].calls / total if t.name in stats else 0.0
        placed.append(PlacedTensor(t.name, int(m.group(1)), m.group(2), t.n_bytes, share, keep))
    return Placement(model, budget, dense, tuple(placed))


def format_placement(p: Placement) -> str:
    on_gpu = [t for t in p.tensors if t.on_gpu]
    head = f"{'expert tensor':<28} {'MiB':>9} {'routed':>7}  where"
    rows = [
        f"{p.model.name} in {p.budget / GIB:.4f} GiB of VRAM (weights only; the KV cache and compute buffers "
        "need room of their own)",
        head,
        "-" * len(head),
    ]
    rows += [
        f"{t.name[:28]:<28} {t.size / (1 << 20):>9.3f} {t.calls_share * 100:>6.1f}%  {'GPU' if t.on_gpu else 'CPU'}"
        for t in p.tensors
    ]
    rows.append(
        f"on the GPUs: the non-expert tensors ({p.dense / GIB:.4f} GiB) and {len(on_gpu)} of {len(p.tensors)} "
        f"expert tensors, {p.gpu_bytes / GIB:.4f} GiB in all, serving {p.gpu_traffic() * 100:.1f}% of routed "
        f"calls; on the CPU: {p.cpu_bytes / GIB:.4f} GiB"
    )
    rules = p.rules()
    rows.append("-ot rules:" if rules else "the whole model fits: no -ot rules are needed")
    rows += [f"  {rule}" for rule in rules]
    return "\n".join(rows)
