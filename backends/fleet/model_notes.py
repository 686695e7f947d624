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
from backends.fleet.requant_proof import proof_rows, sides_from_stored
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
    per_layer = len(report.layers[0].counts) if report.layers else 0
    first, *rest = report.most_concentrated()
    layers = ", ".join(
        [f"{first.layer} ({first.effective_experts:.1f}/{per_layer} effective)"]
        + [f"{x.layer} ({x.effective_experts:.1f})" for x in rest]
    )
    return [
        f"experts measured on {Path(stored.corpus).name}, {stored.measured_at[:10]}:",
        f"top {tops}% of experts take {shares}% of routed calls",
        f"most concentrated layers: {layers}",
        f"never woken by his text: {stored.never_woken} of {report.n_experts} experts",
    ]


def requant_lines(stored: StoredRequant) -> list[str]:
    lines = [
        f"requant of {Path(stored.source_file).name}, {stored.made_at[:10]}:",
        f"{stored.hot_tensors} of {stored.tensors} tensors {stored.hot_type}, the rest {stored.cold_type}: "
        f"{stored.planned_bytes / GIB:.4f} of {stored.budget_bytes / GIB:.4f} GiB",
    ]
    if stored.proof is None:
        return [
            *lines,
            f"wrote {Path(stored.output_file).name}; no before/after proof (it ran with --no-proof)",
        ]
    before, after = sides_from_stored(stored.proof)
    reference = Path(before.agreement.reference)
    against = "the source" if str(reference) == stored.source_file else reference.name
    lines += [
        f"before: {Path(before.path).name}",
        f"after:  {Path(after.path).name} (agreement with {against})",
    ]
    return lines + ["  " + row for row in proof_rows(before, after)]


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
