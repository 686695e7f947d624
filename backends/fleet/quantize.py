"""Reference and quantized copies of a GGUF model, made with the ``llama-quantize`` built beside llama-server.

``quantized(model, "F16")`` dequantizes (``--allow-requantize``: the source may
itself be quantized), any other type quantizes the F16 copy, so every
candidate comes from the same reference. Copies are cached beside the model
in the cache folder and written through a temporary name, so a half-written
GGUF never looks finished.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from filelock import FileLock

from backends.local_server import Progress, ensure_llama_tool
from workspace.errors import ChambersError
from workspace.paths import cache_dir

QUANT_TYPES = ("F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0", "Q3_K_M", "IQ3_S", "Q2_K")


class QuantizeError(ChambersError):
    title = "The model could not be quantized"


def quantized(model: Path, qtype: str, progress: Progress | None = None) -> Path:
    """``model`` as ``qtype`` (F16 is the reference), made once and cached."""
    if qtype not in QUANT_TYPES:
        raise QuantizeError(f"Unknown quantization type '{qtype}'; chambers makes {', '.join(QUANT_TYPES)}.")
    folder = cache_dir() / "models"
    folder.mkdir(parents=True, exist_ok=True)
    stem = model.name.removesuffix(".gguf").rsplit(".", 1)[0]
    target = folder / f"{stem}.{qtype}.gguf"
    if target.is_file():
        return target
    source = model if qtype == "F16" else quantized(model, "F16", progress)
    with FileLock(str(folder / f".{target.name}.lock")):
        if target.is_file():
            return target
        tool = ensure_llama_tool("llama-quantize", progress)
        partial = target.with_name(f".{target.name}.partial")
        cmd = [
            str(tool),
            *(["--allow-requantize"] if qtype == "F16" else []),
            str(source),
            str(partial),
            qtype,
        ]
        if progress is not None:
            progress(f"Making {target.name} with llama-quantize")
        result = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
        if result.returncode != 0 or not partial.is_file():
            partial.unlink(missing_ok=True)
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-5:])
            raise QuantizeError(f"llama-quantize could not make {target.name} from {source.name}:\n{tail}")
        os.replace(partial, target)
    return target
