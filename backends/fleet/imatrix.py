"""``llama-imatrix`` on the attorney's own text, and the per-expert routing it records.

The tool writes a GGUF (``--output-format gguf``) holding, for every weight matrix it saw, two
tensors: ``NAME.in_sum2`` (the summed squared inputs, one row per matrix) and ``NAME.counts`` (how
many input rows each matrix took). For a layer's 3-D expert tensors (``blk.N.ffn_up_exps.weight``
and its gate and down siblings) there is one matrix per expert, and ``counts`` is how many times the
router sent a token to that expert: the per-expert routed calls this module reads.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from backends.fleet.agree import AgreeError, pick_ctx
from workspace.paths import write_atomically

MAX_CHUNKS = 32
_EXPS = re.compile(r"^blk\.(\d+)\.ffn_(gate|up|down)_exps\.weight$")


class ExpertsError(AgreeError):
    title = "The experts could not be measured"


@dataclass(frozen=True)
class TensorStats:
    name: str
    counts: tuple[float, ...]  # input rows per matrix (per expert for an expert tensor)
    sum_sq: tuple[float, ...]  # summed squared inputs per matrix

    @property
    def calls(self) -> float:
        return float(sum(self.counts))

    @property
    def mass(self) -> float:
        return float(sum(self.sum_sq))


@dataclass(frozen=True)
class Imatrix:
    path: Path
    chunks: int
    tensors: dict[str, TensorStats]

    def expert_counts(self) -> dict[int, tuple[float, ...]]:
        """Routed calls per expert, per layer (read from the layer's up, else gate, else down tensor)."""
        found: dict[int, dict[str, tuple[float, ...]]] = {}
        for name, stats in self.tensors.items():
            match = _EXPS.match(name)
            if match and len(stats.counts) > 1:
                found.setdefault(int(match.group(1)), {})[match.group(2)] = stats.counts
        return {
            layer: next(kinds[k] for k in ("up", "gate", "down") if k in kinds)
            for layer, kinds in sorted(found.items())
        }


def read_imatrix(path: Path) -> Imatrix:
    """The per-tensor counts and squared-input sums of an imatrix GGUF (all of them F32 tensors)."""
    import mmap

    import numpy as np

    from backends.fleet.gguf_tensors import GGUFTableError, read_layout

    try:
        layout = read_layout(path)
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            arrays = {
                t.name: np.frombuffer(buf[t.offset : t.offset + t.n_bytes], dtype=np.float32)
                for t in layout.tensors
                if t.type_name == "F32" and t.name.endswith((".counts", ".in_sum2"))
            }
    except (GGUFTableError, OSError, ValueError) as exc:
        raise ExpertsError(
            f"{path} is not a readable imatrix GGUF ({getattr(exc, 'message', exc)}). Run chambers experts again."
        ) from None
    tensors = {}
    for key, counts in arrays.items():
        if not key.endswith(".counts"):
            continue
        name = key.removesuffix(".counts")
        sums = arrays.get(f"{name}.in_sum2")
        if sums is None or sums.size % max(1, counts.size):
            continue
        rows = sums.reshape(counts.size, -1)
        tensors[name] = TensorStats(
            name, tuple(float(c) for c in counts), tuple(float(r.sum()) for r in rows)
        )
    return Imatrix(path, layout.ints.get("imatrix.chunk_count", 0), tensors)


@dataclass(frozen=True)
class ImatrixRun:
    imatrix: Imatrix
    corpus_sha256: str
    n_ctx: int
    tool_s: float  # time inside llama-imatrix
    command: str


def run_imatrix(
    tool: Path, model: Path, corpus_text: str, corpus_name: str, work_dir: Path, threads: int | None = None
) -> ImatrixRun:
    """Run ``llama-imatrix`` over the corpus; the file is kept per model file and corpus."""
    if not model.is_file():
        raise ExpertsError(f"The model {model} does not exist. Give a GGUF file or a profile's name.")
    if not corpus_text.strip():
        raise ExpertsError(
            f"The corpus '{corpus_name}' is empty. Accept some corrections first (the 'finals' corpus is "
            "their final texts), or pass --corpus FILE with text of your own."
        )
    ctx = pick_ctx(corpus_text, None)
    sha = hashlib.sha256(corpus_text.encode("utf-8")).hexdigest()
    work_dir.mkdir(parents=True, exist_ok=True)
    corpus_file = work_dir / f"corpus-{sha[:16]}.txt"
    if not corpus_file.exists():
        write_atomically(corpus_file, corpus_text.encode("utf-8"))
    key = hashlib.sha256(f"{model.resolve()}:{model.stat().st_size}:{sha}:{ctx}".encode()).hexdigest()[:20]
    out = work_dir / f"imatrix-{key}.gguf"
    partial = work_dir / f".imatrix-{key}.partial.gguf"
    threads = threads or max(1, os.cpu_count() or 2)
    # --process-output: the output matrix (often the tied token embedding) is measured too, so a plan can
    # weigh it; it is the tensor every generated token passes through.
    cmd = [
        str(tool),
        "-m",
        str(model),
        "-f",
        str(corpus_file),
        "-o",
        str(partial),
        "--output-format",
        "gguf",
        "-c",
        str(ctx),
        "-b",
        str(ctx),
        "--chunks",
        str(MAX_CHUNKS),
        "--no-ppl",
        "--process-output",
        "-t",
        str(threads),
    ]
    log = work_dir / f"imatrix-{key}.log"
    # The tool writes straight into its log: nothing is piped through Python, and the log is a record
    # to read after a failure, not a file to outlast a crash.
    with open(log, "w", encoding="utf-8") as fh:
        fh.write(f"$ {' '.join(cmd)}\n")
        fh.flush()
        started = time.perf_counter()
        result = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, check=False)
        seconds = time.perf_counter() - started
    if result.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        lines = [x for x in log.read_text(encoding="utf-8", errors="replace").splitlines()[1:] if x.strip()]
        reason = next((x for x in reversed(lines) if "error" in x.lower() or "need" in x.lower()), None)
        raise ExpertsError(
            f"llama-imatrix failed on {model.name} (exit {result.returncode}): "
            f"{reason or (lines or ['no output'])[-1]}. The whole output is in {log}."
        )
    os.replace(partial, out)
    return ImatrixRun(read_imatrix(out), sha, ctx, seconds, " ".join(cmd))


def require_moe(model: Path) -> None:
    """Refuse a dense model before any tool runs: without expert tensors there is no routing to measure."""
    from backends.fleet.gguf_tensors import GGUFTableError, read_tensor_table

    if not model.is_file():
        raise ExpertsError(f"The model {model} does not exist. Give a GGUF file or a profile's name.")
    try:
        names = [t.name for t in read_tensor_table(model)]
    except GGUFTableError as exc:
        raise ExpertsError(exc.message) from None
    if not any(_EXPS.match(n) for n in names):
        raise ExpertsError(
            f"{model.name} is a dense model: it has no expert tensors (blk.N.ffn_*_exps), so there is no routing "
            "to measure or follow. chambers experts and requant work on mixture-of-experts models.",
            title="Not a mixture-of-experts model",
        )
