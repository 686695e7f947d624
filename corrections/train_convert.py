"""PEFT adapter -> GGUF adapter, with llama.cpp's own ``convert_lora_to_gguf.py``.

The converter comes from the same pinned llama.cpp source the server is built from (the caller hands
over its folder), so the file it writes is one that server reads. It runs as a child process with this
Python (which has torch, safetensors and sentencepiece when the ``[train]`` extra is installed).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from corrections.errors import CorrectionsError


class ConversionFailed(CorrectionsError):
    title = "The adapter could not be converted for llama-server"


def convert_adapter(converter_dir: Path, adapter_dir: Path, base_config_dir: Path, out_file: Path) -> None:
    """Write ``out_file`` (GGUF, f32: LoRA matrices are small, and f32 keeps them exact)."""
    script = converter_dir / "convert_lora_to_gguf.py"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(converter_dir / "gguf-py"), str(converter_dir)])}
    done = subprocess.run(
        [
            sys.executable,
            str(script),
            str(adapter_dir),
            "--base",
            str(base_config_dir),
            "--outfile",
            str(out_file),
            "--outtype",
            "f32",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0 or not out_file.is_file():
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise ConversionFailed(
            f"convert_lora_to_gguf.py exited with code {done.returncode} on {adapter_dir}:\n{tail}\n"
            "The trained adapter is not registered. Check that the base model is the one the pairs were "
            "drafted with, then train again."
        )
