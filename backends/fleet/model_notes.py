"""What chambers has measured about one model file, as lines for the board detail and ``bench``.

The expert routing its last ``chambers experts`` run stored (the coverage curve, the most
concentrated layers, the experts his text never woke) and the last requantization it took part in,
as source or as result, with the before/after table that run proved on his text.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from backends.fleet.experts import experts_report
from backends.fleet.requant_plan import GIB
from backends.fleet.requant_proof import format_proof, sides_from_stored
from backends.fleet.store import StoredExperts, StoredRequant

T = TypeVar("T")


def find_stored(stored: dict[str, T], name: str) -> T | None:
    """``name`` as a server reports it: a path, a file name, or the file's stem when served under it."""
    name = Path(name).name
    if name in stored:
        return stored[name]
    return next((v for k, v in stored.items() if Path(k).stem == name), None)


def experts_lines(stored: StoredExperts) -> list[str]:
    report = experts_report(stored.counts)
    curve = stored.curve or report.curve
    tops = "/".join(f"{f * 100:.0f}" for f, _, _ in curve)
    shares = "/".join(f"{s * 100:.1f}" for _, _, s in curve)
    layers = ", ".join(
        f"{layer.layer} ({layer.effective_experts:.1f} of {len(layer.counts)})"
        for layer in report.most_concentrated()
    )
    return [
        f"experts on {Path(stored.corpus).name}, {stored.measured_at[:10]}: "
        f"the top {tops}% take {shares}% of routed calls",
        f"most concentrated layers (effective experts): {layers}",
        f"never woken by his text: {stored.never_woken} of {report.n_experts} experts",
    ]


def requant_lines(stored: StoredRequant) -> list[str]:
    lines = [
        f"requant {Path(stored.source_file).name} -> {Path(stored.output_file).name} "
        f"({stored.made_at[:10]}): {stored.hot_tensors} of {stored.tensors} tensors {stored.hot_type}, "
        f"the rest {stored.cold_type}; {stored.planned_bytes / GIB:.4f} of {stored.budget_bytes / GIB:.4f} GiB"
    ]
    if stored.proof is None:
        lines.append("  no before/after proof stored (it ran with --no-proof)")
    else:
        lines += ["  " + line for line in format_proof(*sides_from_stored(stored.proof)).splitlines()]
    return lines


def model_notes(
    name: str, experts: dict[str, StoredExperts], requants: dict[str, StoredRequant]
) -> list[str]:
    """Every stored line about model file ``name``; empty when nothing was measured."""
    lines = []
    found = find_stored(experts, name)
    if found is not None:
        lines += experts_lines(found)
    requant = find_stored(requants, name)
    if requant is not None:
        lines += requant_lines(requant)
    return lines
