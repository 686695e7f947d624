"""A dequantized copy of a GGUF base, kept so the next training run on it starts in a second.

transformers reads a GGUF by rebuilding its tokenizer and dequantizing every tensor in Python: about
half a minute for a 135M model on two cores, every run, before the first step. The dequantized weights
are saved once, as safetensors beside the base's config and tokenizer, in a folder named after the
GGUF's sha256, so a changed file never reuses a stale copy. The copy is written into a temporary folder
and renamed whole, so a run killed while writing it leaves nothing that a later run would trust.

Only small bases are kept: a dequantized large model takes several times its GGUF's size on disk,
where reading the GGUF again is the better trade.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

CACHE_UP_TO_BYTES = 2 << 30  # GGUF files larger than this are read again each run instead
MANIFEST = "chambers-base.json"


def base_cache_dir(data_dir: Path, base_sha256: str) -> Path:
    return data_dir / "training-bases" / base_sha256


def cached_architecture(folder: Path, converter_dir: Path) -> str | None:
    """The architecture recorded for a whole cached base, when it was checked against this converter."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if manifest.get("converter") != str(converter_dir) or not (folder / "model.safetensors").is_file():
        return None
    return str(manifest["architecture"])


def worth_caching(base: Path, quantize_4bit: bool) -> bool:
    """A GGUF small enough to keep dequantized; a 4-bit base is quantized again on load, never cached."""
    return (
        not quantize_4bit
        and base.suffix.lower() == ".gguf"
        and base.is_file()
        and base.stat().st_size <= CACHE_UP_TO_BYTES
    )


def save_base(folder: Path, model: Any, config_dir: Path, architecture: str, converter_dir: Path) -> None:
    """Write ``model``'s weights and the config folder as ``folder``, whole or not at all."""
    from safetensors.torch import save_model

    tmp = folder.with_name(f".{folder.name}.{os.getpid()}.tmp")
    for stale in folder.parent.glob(f".{folder.name}.*.tmp"):  # left by a run killed while writing
        shutil.rmtree(stale, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(config_dir, tmp)
        save_model(model, str(tmp / "model.safetensors"))  # handles the tied embedding and head
        manifest = {"architecture": architecture, "converter": str(converter_dir)}
        (tmp / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)  # an incomplete copy from an older version
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
