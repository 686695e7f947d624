"""``chambers experts`` and ``requant`` against the bare ``llama-imatrix`` and ``llama-quantize`` runs they wrap.

On the tiny MoE model (``backends/fleet/tiny_moe.py``), over the same generated corpus, taken in turns.
The experts side is ``run_imatrix`` (corpus file, the tool, the log, reading the imatrix GGUF) plus the
report and its stored row; the bare side is the same ``llama-imatrix`` command. The requant side is
the plan (reading the model and imatrix), the line, its printout and ``write_requant`` (type file,
llama-quantize, the budget check); the bare side is the same ``llama-quantize`` command. Target: each
adds under 5% (ratio <= 1.05). Each chambers call's own time outside its tool, over that tool's time
in the same call, is printed too: it is the wrapper's cost without the noise between two separate
runs of a tool on a shared machine. The proof's agreement and speed runs are measured by benchmarks/agree.py.

    python -m benchmarks.experts [--runs N] [--words N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from backends.fleet.experts import experts_report, format_report
from backends.fleet.imatrix import run_imatrix
from backends.fleet.requant import write_requant
from backends.fleet.requant_plan import expert_line, format_plan, make_plan
from backends.fleet.store import save_experts
from backends.fleet.tiny_moe import ensure_tiny_moe
from backends.local_server import ensure_llama_tool
from benchmarks.agree import corpus
from benchmarks.common import mark, paired

TARGET = 1.05


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--words", type=int, default=1500)
    args = parser.parse_args()
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    imatrix_tool, quantize_tool = (
        ensure_llama_tool("llama-imatrix", say),
        ensure_llama_tool("llama-quantize", say),
    )
    model = ensure_tiny_moe(say)
    text = corpus(args.words)
    threads = 1  # one thread each: a shared 2-core machine measures contention with more
    with tempfile.TemporaryDirectory(prefix="chambers-experts-bench-") as tmp:
        root = Path(tmp)
        first = run_imatrix(imatrix_tool, model, text, "benchmark", root / "first", threads)
        bare_cmd = first.command.split(" ")  # the very command run_imatrix ran (paths have no spaces here)
        runs = iter(range(10_000))

        def bare_imatrix() -> None:
            subprocess.run(bare_cmd, capture_output=True, check=True)

        wrapper: dict[str, list[float]] = {"experts": [], "requant": []}

        def chambers_experts() -> None:
            started = time.perf_counter()
            run = run_imatrix(imatrix_tool, model, text, "benchmark", root / f"e-{next(runs)}", threads)
            report = experts_report(run.imatrix.expert_counts())
            format_report(report, model.name, "benchmark")
            save_experts(
                root / "db.sqlite3",
                "now",
                str(model),
                "benchmark",
                run.corpus_sha256,
                str(run.imatrix.path),
                list(report.curve),
                run.imatrix.expert_counts(),
                0,
            )
            wrapper["experts"].append((time.perf_counter() - started - run.tool_s) / run.tool_s)

        exp_bare, exp_chambers = paired(bare_imatrix, chambers_experts, args.runs)
        plan = make_plan(model, first.imatrix, "Q8_0", "Q4_0", 4 << 20)
        type_file = root / "types.txt"
        type_file.write_text(plan.type_file(), encoding="ascii")
        bare_q = [
            str(quantize_tool),
            "--pure",
            "--imatrix",
            str(first.imatrix.path),
            "--tensor-type-file",
            str(type_file),
            str(model),
            str(root / "bare.gguf"),
            "Q4_0",
            str(threads),
        ]

        def bare_quantize() -> None:
            subprocess.run(bare_q, capture_output=True, check=True)

        def chambers_requant() -> None:
            started = time.perf_counter()
            p = make_plan(model, first.imatrix, "Q8_0", "Q4_0", 4 << 20)
            format_plan(p, expert_line(p, first.imatrix.expert_counts()))
            w = write_requant(quantize_tool, p, first.imatrix.path, root / f"r-{next(runs)}.gguf", threads)
            wrapper["requant"].append((time.perf_counter() - started - w.quantize_s) / w.quantize_s)

        q_bare, q_chambers = paired(bare_quantize, chambers_requant, args.runs)
    for what, bare_s, ours in (("experts", exp_bare, exp_chambers), ("requant", q_bare, q_chambers)):
        ratio = ours / bare_s
        print(
            f"{what}: bare {bare_s:.3f} s, chambers {ours:.3f} s, ratio {ratio:.3f} (target <= {TARGET}) "
            f"{mark(ratio <= TARGET)}"
        )
        # Its own time outside the tool, over the tool's time in the same call: the subprocess's noise
        # on a shared machine is in neither side of this ratio.
        share = statistics.median(wrapper[what])
        print(
            f"{what}: outside the tool {share * 100:.1f}% of the tool's own time (target <= 5%) {mark(share <= 0.05)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
