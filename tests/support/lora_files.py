"""A real LoRA GGUF for SmolLM2-135M without minutes of training: random low-rank deltas on every layer's
query projection, written with the gguf package in the layout convert_lora_to_gguf.py writes.

llama-server loads and applies it exactly as a trained adapter (what it learnt does not matter to the
tests that use it: they check which requests it reaches, never what it writes).
"""

from __future__ import annotations

from pathlib import Path

SMOLLM2_HIDDEN = 576  # SmolLM2-135M: hidden size 576, 30 blocks
SMOLLM2_BLOCKS = 30


def write_random_lora(path: Path, *, seed: int = 7, rank: int = 8, std: float = 0.08) -> Path:
    import gguf
    import numpy as np

    rng = np.random.default_rng(seed)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(2 * rank))
    for block in range(SMOLLM2_BLOCKS):
        a = rng.normal(0.0, std, (rank, SMOLLM2_HIDDEN)).astype(np.float32)
        b = rng.normal(0.0, std, (SMOLLM2_HIDDEN, rank)).astype(np.float32)
        writer.add_tensor(f"blk.{block}.attn_q.weight.lora_a", a)
        writer.add_tensor(f"blk.{block}.attn_q.weight.lora_b", b)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
