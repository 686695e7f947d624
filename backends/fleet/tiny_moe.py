"""A tiny real mixture-of-experts GGUF, made here rather than downloaded, for the expert tools' tests.

How it is made: a transformers ``MixtralConfig`` (3 layers, hidden size 64, 8 experts, top-2
routing, SmolLM2's tokenizer read from the demo model's GGUF) is initialised from a fixed seed and
trained for a few dozen AdamW steps on the two kinds of text in ``TRAINING_TEXT``, so that its router
has learnt preferences and its routing is not uniform. It is saved with ``save_pretrained`` and
converted to an F16 GGUF by llama.cpp's ``convert_hf_to_gguf.py`` from the same pinned source the
server is built from, so the tools read it exactly as they would read a real Mixtral. The file is
cached beside the demo model and made once, behind a file lock. It says nothing useful when asked:
it exists so that routing can be measured, requantized and served for real.

Hidden size 64 keeps it small and quick, and means its rows fit only the 32-wide quantization
blocks (Q4_0, Q5_0, Q8_0 and the like); the 256-wide K-quants do not apply to it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from filelock import FileLock

from backends.local_server import (
    LocalServerError,
    Progress,
    ensure_demo_model,
    ensure_lora_converter,
)
from workspace.paths import cache_dir

TINY_MOE_FILE = "chambers-tiny-moe-8x.F16.gguf"
SEED = 26
STEPS = 30
WINDOW = 96

# Two registers of text, so that experts can come to prefer one or the other.
TRAINING_TEXT = (
    "The plaintiff alleges that the defendant breached the contract by failing to deliver the goods "
    "on the agreed date. The court finds that the notice was timely and that the claim is not barred. "
    "Pursuant to Rule 56, summary judgment is appropriate where there is no genuine dispute as to any "
    "material fact. The motion to dismiss is denied, and the parties shall confer on a schedule. "
) * 6 + (
    "Invoice 4471: 12 units at 38.50 each, total 462.00, due 2026-03-15. Invoice 4472: 7 units at "
    "19.25 each, total 134.75, due 2026-04-01. Balance 596.75; paid 200.00; remaining 396.75. "
) * 6


def tiny_moe_path() -> Path:
    return cache_dir() / "models" / TINY_MOE_FILE


def ensure_tiny_moe(progress: Progress | None = None) -> Path:
    """The tiny MoE GGUF from the cache, made first when missing (about two minutes on 2 cores)."""
    target = tiny_moe_path()
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.parent / f".{TINY_MOE_FILE}.lock")):
        if target.is_file():
            return target
        demo = ensure_demo_model(progress)
        converter = ensure_lora_converter(progress)
        with tempfile.TemporaryDirectory(prefix="chambers-tiny-moe-") as tmp:
            work = Path(tmp)
            if progress is not None:
                progress("Training the tiny MoE model (a few dozen steps on the CPU)")
            _train(demo, work / "hf")
            partial = target.with_name(f".{TINY_MOE_FILE}.partial")
            env = {**os.environ, "PYTHONPATH": f"{converter / 'gguf-py'}{os.pathsep}{converter}"}
            cmd = [
                sys.executable,
                str(converter / "convert_hf_to_gguf.py"),
                str(work / "hf"),
                "--outfile",
                str(partial),
                "--outtype",
                "f16",
            ]
            result = subprocess.run(
                cmd, capture_output=True, text=True, errors="replace", env=env, check=False
            )
            if result.returncode != 0 or not partial.is_file():
                partial.unlink(missing_ok=True)
                tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-8:])
                raise LocalServerError(f"convert_hf_to_gguf.py could not convert the tiny MoE model:\n{tail}")
            os.replace(partial, target)
            shutil.rmtree(work / "hf", ignore_errors=True)
    return target


def _train(demo: Path, out: Path) -> None:
    try:
        import torch
        from transformers import AutoTokenizer, MixtralConfig, MixtralForCausalLM
    except ImportError as exc:
        raise LocalServerError(
            f"Making the tiny MoE model needs torch and transformers ({exc}). Install them with "
            "pip install -e '.[train]'."
        ) from None
    tokenizer = AutoTokenizer.from_pretrained(str(demo.parent), gguf_file=demo.name)
    torch.manual_seed(SEED)
    config = MixtralConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_local_experts=8,
        num_experts_per_tok=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        rms_norm_eps=1e-5,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        router_aux_loss_coef=0.0,  # no load-balancing loss: the router is free to prefer some experts
    )
    config.architectures = ["MixtralForCausalLM"]
    model = MixtralForCausalLM(config)
    ids = tokenizer(TRAINING_TEXT, return_tensors="pt").input_ids[0]
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    span = len(ids) - WINDOW - 1
    for step in range(STEPS):
        start = (step * 37) % span
        window = ids[start : start + WINDOW].unsqueeze(0)
        model(input_ids=window, labels=window).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
