"""A per-tensor requantization plan that follows his routed traffic, within a memory budget.

Mainline llama.cpp gives each tensor one type, and a layer's experts share one 3-D tensor, so the
plan's unit is the tensor: every quantizable weight starts at the cold type, and tensors are raised
to the hot type in order of the output error they are expected to save per byte spent, until the
budget is used. A tensor's expected saving is its measured input energy (the imatrix's summed
squared inputs) times its output rows: the quantization error of a weight reaches the output in
proportion to the energy of the inputs it multiplies.

What a per-expert mix would reach at the same budget (``expert_line``) is computed too: the same
extra bytes spent on single experts, most called first. llama.cpp cannot load such a mix; the figure
says what a llama.cpp that splits expert tensors would gain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from backends.fleet.experts import LayerRouting, ranked_experts
from backends.fleet.gguf_tensors import read_tensor_table
from backends.fleet.imatrix import ExpertsError, Imatrix

_EXPS = re.compile(r"^blk\.(\d+)\.ffn_(gate|up|down)_exps\.weight$")
GIB = 1 << 30
ALIGN = 32  # GGUF pads each tensor's data to this many bytes


class RequantError(ExpertsError):
    title = "The requantization could not be planned"


@dataclass(frozen=True)
class PlannedTensor:
    name: str
    shape: tuple[int, ...]  # ggml order: row length first
    qtype: str
    size: int
    mass_share: float  # share of his activation energy over the planned tensors
    calls_share: float | None  # expert tensors: share of all routed calls; None for dense tensors


@dataclass(frozen=True)
class Plan:
    source: Path
    hot: str
    cold: str
    budget: int
    fixed: int  # bytes the plan does not touch: metadata, norms, router, unquantized tensors
    all_cold: int
    tensors: tuple[PlannedTensor, ...]
    source_quantized: bool = False  # llama-quantize then needs --allow-requantize

    @property
    def planned(self) -> int:
        return self.fixed + sum(t.size for t in self.tensors)

    def hot_routed_share(self) -> float:
        """Share of the routed calls (over all expert tensors) served by expert tensors at the hot type."""
        exps = [t for t in self.tensors if t.calls_share is not None]
        total = sum(t.calls_share or 0.0 for t in exps)
        return sum(t.calls_share or 0.0 for t in exps if t.qtype == self.hot) / total if total else 0.0

    def type_file(self) -> str:
        """The ``--tensor-type-file`` text: one anchored pattern per tensor, so nothing else matches."""
        return "".join(f"^{re.escape(t.name)}$={t.qtype.lower()}\n" for t in self.tensors)


def type_size(qtype: str, shape: tuple[int, ...]) -> int:
    """Bytes of a tensor of ``shape`` at ``qtype``; refuses a type whose blocks do not divide its rows."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    try:
        block, nbytes = GGML_QUANT_SIZES[GGMLQuantizationType[qtype.upper()]]
    except KeyError:
        raise RequantError(
            f"'{qtype}' is not a GGML quantization type (e.g. Q4_K, Q2_K, Q8_0, Q4_0)."
        ) from None
    if shape[0] % block:
        raise RequantError(
            f"{qtype} packs rows in blocks of {block}, and this model's rows are {shape[0]} long. "
            "Choose types with smaller blocks (Q8_0, Q5_0, Q4_0 use 32)."
        )
    n = 1
    for d in shape:
        n *= d
    return n // block * nbytes


def quantizable(name: str, shape: tuple[int, ...]) -> bool:
    """The tensors llama-quantize quantizes: 2-D and larger weights, except norms and the router."""
    return name.endswith(".weight") and len(shape) >= 2 and "norm" not in name and "ffn_gate_inp" not in name


def make_plan(source: Path, imatrix: Imatrix, hot: str, cold: str, budget: int) -> Plan:
    table = read_tensor_table(source)
    tensors = [(t.name, t.shape, t.n_bytes) for t in table]
    if not any(_EXPS.match(name) for name, _, _ in tensors):
        raise RequantError(
            f"{source.name} is a dense model: it has no expert tensors (blk.N.ffn_*_exps), so there is no "
            "routing to follow. Requantize it with chambers' ordinary quantized copies instead."
        )
    chosen = [(n, s) for n, s, _ in tensors if quantizable(n, s)]
    fixed = source.stat().st_size - sum(b for n, s, b in tensors if quantizable(n, s)) + ALIGN * len(tensors)
    mass = {n: imatrix.tensors[n].mass if n in imatrix.tensors else 0.0 for n, _ in chosen}
    total_mass = sum(mass.values()) or 1.0
    calls = {n: imatrix.tensors[n].calls for n, _ in chosen if _EXPS.match(n) and n in imatrix.tensors}
    total_calls = sum(calls.values()) or 1.0
    cold_size = {n: type_size(cold, s) for n, s in chosen}
    hot_size = {n: type_size(hot, s) for n, s in chosen}
    all_cold = fixed + sum(cold_size.values())
    if budget < all_cold:
        raise RequantError(
            f"A budget of {budget / GIB:.4f} GiB is below the all-{cold} size of {source.name}, "
            f"{all_cold / GIB:.4f} GiB ({all_cold} bytes). Give --budget-gib at least that, or a colder --cold type."
        )

    # Expected output-error saving per byte: input energy x output rows, over the bytes the upgrade costs.
    def score(item: tuple[str, tuple[int, ...]]) -> float:
        name, shape = item
        extra = hot_size[name] - cold_size[name]
        return mass[name] * shape[1] / extra if extra > 0 else 0.0

    room = budget - all_cold
    raised = set()
    for name, _shape in sorted(chosen, key=lambda item: (-score(item), item[0])):
        extra = hot_size[name] - cold_size[name]
        if mass[name] > 0 and 0 < extra <= room:
            raised.add(name)
            room -= extra
    planned = tuple(
        PlannedTensor(
            n,
            s,
            hot if n in raised else cold,
            hot_size[n] if n in raised else cold_size[n],
            mass[n] / total_mass,
            calls[n] / total_calls if n in calls else None,
        )
        for n, s in chosen
    )
    quantized_source = any(t.type_name not in ("F32", "F16", "BF16") for t in table)
    return Plan(source, hot, cold, budget, fixed, all_cold, planned, quantized_source)


@dataclass(frozen=True)
class ExpertLine:
    raised: int  # experts a per-expert mix would raise to the hot type
    total: int
    coverage: float  # share of routed calls they take
    tensor_coverage: float  # share the tensor plan's hot expert tensors take


def expert_line(plan: Plan, counts: dict[int, tuple[float, ...]]) -> ExpertLine:
    """The same extra bytes spent expert by expert, most called first: what a split-tensor llama.cpp would reach."""
    cost: dict[int, int] = {}
    for t in plan.tensors:
        match = _EXPS.match(t.name)
        if match:
            layer, n_exp = int(match.group(1)), t.shape[-1]
            extra = type_size(plan.hot, t.shape) - type_size(plan.cold, t.shape)
            cost[layer] = cost.get(layer, 0) + extra // n_exp
    layers = tuple(LayerRouting(layer, c) for layer, c in sorted(counts.items()))
    room, raised, taken = plan.budget - plan.all_cold, 0, 0.0
    ranked = ranked_experts(layers)
    total = sum(c for _, _, c in ranked) or 1.0
    for layer, _, calls in ranked:
        if cost.get(layer, 0) <= room:
            room -= cost.get(layer, 0)
            raised += 1
            taken += calls
    return ExpertLine(raised, len(ranked), taken / total, plan.hot_routed_share())


def format_plan(plan: Plan, line: ExpertLine) -> str:
    head = f"{'tensor':<28} {'type':<6} {'size MiB':>9} {'energy':>7} {'routed':>7}"
    rows = [head, "-" * len(head)]
    for t in sorted(plan.tensors, key=lambda t: (t.qtype != plan.hot, -t.mass_share, t.name)):
        routed = "-" if t.calls_share is None else f"{t.calls_share * 100:.1f}%"
        rows.append(
            f"{t.name[:28]:<28} {t.qtype:<6} {t.size / (1 << 20):>9.3f} {t.mass_share * 100:>6.1f}% {routed:>7}"
        )
    n_hot = sum(t.qtype == plan.hot for t in plan.tensors)
    rows.append(
        f"{n_hot} of {len(plan.tensors)} tensors at {plan.hot}, the rest {plan.cold}: planned "
        f"{plan.planned / GIB:.4f} GiB of a {plan.budget / GIB:.4f} GiB budget (all-{plan.cold} "
        f"{plan.all_cold / GIB:.4f} GiB)"
    )
    rows.append(
        f"the line: this tensor plan serves {line.tensor_coverage * 100:.1f}% of routed calls at {plan.hot}; a "
        f"per-expert mix at the same budget would raise {line.raised} of {line.total} experts, taking "
        f"{line.coverage * 100:.1f}% of routed calls. Mainline llama.cpp gives a whole expert tensor one "
        "type, so chambers cannot serve that mix today."
    )
    return "\n".join(rows)
