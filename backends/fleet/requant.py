"""Write the GGUF of a requantization plan with ``llama-quantize --imatrix --tensor-type-file``.

``--pure`` keeps llama-quantize from substituting its own per-tensor mixture, and the plan names every
quantizable tensor, so each gets exactly the type the plan gave it. The written file is checked
against the budget before it takes its name; one over budget is removed, never left looking finished.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from backends.fleet.requant_plan import GIB, Plan, RequantError


@dataclass(frozen=True)
class Written:
    path: Path
    size: int
    quantize_s: float
    command: str


def write_requant(tool: Path, plan: Plan, imatrix: Path, target: Path, threads: int | None = None) -> Written:
    target.parent.mkdir(parents=True, exist_ok=True)
    plan_file = target.with_name(f"{target.name}.tensor-types.txt")
    # An input llama-quantize reads at once and each run writes anew: renamed into place whole, but
    # without the fsync that a file meant to outlast a crash pays for (the output is what is checked).
    typed = plan_file.with_name(f".{plan_file.name}.partial")
    typed.write_bytes(plan.type_file().encode("ascii"))
    os.replace(typed, plan_file)
    partial = target.with_name(f".{target.name}.partial")
    requantize = plan.source_quantized
    cmd = [
        str(tool),
        "--pure",
        *(["--allow-requantize"] if requantize else []),
        "--imatrix",
        str(imatrix),
        "--tensor-type-file",
        str(plan_file),
        str(plan.source),
        str(partial),
        plan.cold,
        str(threads or max(1, os.cpu_count() or 2)),
    ]
    started = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-6:])
        raise RequantError(f"llama-quantize could not write {target.name}:\n{tail}")
    size = partial.stat().st_size
    if size > plan.budget:
        partial.unlink(missing_ok=True)
        raise RequantError(
            f"llama-quantize wrote {size / GIB:.4f} GiB, over the {plan.budget / GIB:.4f} GiB budget the plan "
            f"was made for ({plan.planned / GIB:.4f} GiB planned); nothing was kept. Give a larger --budget-gib."
        )
    os.replace(partial, target)
    return Written(target, size, seconds, " ".join(cmd))
