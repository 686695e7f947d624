"""LoRA training and eval speed against bare baselines measured in the same run.

1. Training: chambers' loop (corrections.train_loop.run_loop, with its progress callback and cancel check)
   against a bare PEFT loop written out here (forward, backward, AdamW step), over the very same batches
   of the twelve sample-matter pairs, from the same SmolLM2-135M base (dequantized from the demo GGUF),
   taken in turns so a noisy neighbour slows both alike. Target: chambers >= 0.9x the bare tokens/s
   (the median of each run's ratio).
2. Eval: the adapter trained in (1), converted and served by the real llama-server with ``--lora``;
   chambers' eval replays the pairs at scale 0 and 1, asking for answers as long as ``chambers eval``
   does by default. Its generated tokens per wall second (HTTP, prompt and all) against the server's own
   decode rate for the same answers (their tokens over its decoding time). Target: >= 0.9x. Also printed:
   how much of the server's time went on reading prompts, which bounds that ratio, and the ratio against
   the server's whole time, which is what chambers itself costs.

Benchmarks report; they do not fail: each target prints PASS or MISS and the exit status is 0.

    python -m benchmarks.train [--steps N] [--runs N] [--eval-pairs N] [--max-tokens N]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import statistics
import tempfile
import time
from pathlib import Path

from backends.local_server import (
    TEST_SERVER_ARGS,
    LlamaServerProcess,
    ensure_demo_model,
    ensure_llama_server,
    ensure_lora_converter,
)
from corrections.store import get_pair
from corrections.train_base import check_base, load_base
from corrections.train_convert import convert_adapter
from corrections.train_eval import DEFAULT_MAX_TOKENS, EvalResult, evaluate
from corrections.train_loop import LoraSettings, batches, build_examples, collate, run_loop, wrap_lora
from drafting.replay import Replayer
from tests.support.train_pairs import store_pairs
from workspace.config import Backend, Policy

TARGET = 0.9


def bare_loop(model: object, steps: list, settings: LoraSettings, pad_id: int) -> int:
    """The baseline: nothing but PEFT's model and AdamW over the same batches."""
    import torch

    torch.manual_seed(settings.seed)
    model.train()  # type: ignore[attr-defined]
    params = [p for p in model.parameters() if p.requires_grad]  # type: ignore[attr-defined]
    optimizer = torch.optim.AdamW(params, lr=settings.learning_rate)
    tokens = 0
    for batch in steps:
        inputs = collate(batch, pad_id, "cpu")
        model(**inputs).loss.backward()  # type: ignore[operator]
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        tokens += int(inputs["attention_mask"].sum())
    return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4, help="optimizer steps per timed run")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--eval-pairs", type=int, default=12, help="pairs the eval replays (each twice)")
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, help="longest answer asked for")
    args = parser.parse_args()
    import torch

    base_file, converter = ensure_demo_model(), ensure_lora_converter()
    with tempfile.TemporaryDirectory(prefix="chambers-bench-train-") as tmp:
        work, db = Path(tmp), Path(tmp) / "chambers.sqlite3"
        pair_ids = store_pairs(db)
        pairs = [get_pair(db, i) for i in pair_ids]
        loaded = load_base(
            base_file, check_base(base_file, converter), work, device="cpu", quantize_4bit=False
        )
        settings = LoraSettings(batch_size=3, epochs=50, max_steps=args.steps, learning_rate=3e-3)
        examples, _ = build_examples(loaded.tokenizer, pairs, settings.max_tokens)
        steps = batches(examples, settings)
        pad = int(loaded.tokenizer.pad_token_id)
        ours_model = wrap_lora(copy.deepcopy(loaded.model), settings)
        bare_model = wrap_lora(copy.deepcopy(loaded.model), settings)
        ours_rates, bare_rates = [], []
        print(
            f"torch {torch.__version__}, {torch.get_num_threads()} threads; {args.runs} runs of {args.steps} steps"
        )

        def ours() -> float:
            start = time.perf_counter()
            result = run_loop(
                ours_model,
                steps,
                settings,
                pad_id=pad,
                device="cpu",
                on_progress=lambda _p: None,
                should_stop=lambda: False,
            )
            return result.trained_tokens / (time.perf_counter() - start)

        def bare() -> float:
            start = time.perf_counter()
            return bare_loop(bare_model, steps, settings, pad) / (time.perf_counter() - start)

        for run in range(args.runs):
            # Each run times the two back to back, in turns first, so a neighbour's burst or a warming
            # cache falls on both alike; the ratio is the median of the runs' own ratios.
            if run % 2:
                bare_rates.append(bare())
                ours_rates.append(ours())
            else:
                ours_rates.append(ours())
                bare_rates.append(bare())
            print(
                f"  run {run + 1}: chambers {ours_rates[-1]:.0f} tok/s, bare PEFT {bare_rates[-1]:.0f} tok/s"
            )
        ratio = statistics.median(o / b for o, b in zip(ours_rates, bare_rates, strict=True))
        print(
            f"training: chambers {statistics.median(ours_rates):.0f} tok/s vs bare PEFT "
            f"{statistics.median(bare_rates):.0f} tok/s (medians); median ratio {ratio:.2f}x "
            f"(target >= {TARGET}) {'PASS' if ratio >= TARGET else 'MISS'}"
        )

        ours_model.save_pretrained(work / "peft")
        adapter = work / "bench.gguf"
        convert_adapter(converter, work / "peft", loaded.config_dir, adapter)
        with LlamaServerProcess(
            ensure_llama_server(),
            base_file,
            log_file=work / "server.log",
            extra_args=[*TEST_SERVER_ARGS, "--lora", str(adapter), "--lora-init-without-apply"],
        ) as server:
            backend = Backend(name="bench", kind="llamacpp", url=server.url, roles=("drafter",))
            replay = Replayer(backend, Policy(), None, 0, role="drafter", max_tokens=args.max_tokens)

            async def evaluated() -> EvalResult:
                async with Replayer(backend, Policy(), None, 0, role="drafter", max_tokens=8) as warm:
                    # The server's first answer pays for loading the weights.
                    await warm(pairs[0].messages, 0.0)
                async with replay:  # its connections are closed on the loop that opened them
                    return await evaluate(pairs[: args.eval_pairs], replay, lambda _text, _matter: None)

            result = asyncio.run(evaluated())
        report_eval(result.generated_tokens, result.generate_seconds, replay)


def report_eval(tokens: int, seconds: float, replay: Replayer) -> None:
    eval_rate, decode_rate = tokens / seconds, replay.decode_rate
    ratio = eval_rate / decode_rate
    print(
        f"eval: {tokens} tokens in {seconds:.1f} s = {eval_rate:.0f} tok/s vs the server's decode "
        f"{decode_rate:.0f} tok/s = {ratio:.2f}x (target >= {TARGET}) {'PASS' if ratio >= TARGET else 'MISS'}"
    )
    # Every answer also costs the server its whole prompt: the eval turns the prompt cache off so that an
    # answer never depends on what came before. No client can avoid that time; what chambers itself adds
    # is the gap between the eval's rate and the server's rate over its whole time.
    server_seconds = replay.prompt_seconds + replay.decode_seconds
    print(
        f"  the server read the prompts for {replay.prompt_seconds:.1f} s and decoded for "
        f"{replay.decode_seconds:.1f} s: at most {replay.decode_seconds / server_seconds:.2f}x is reachable"
    )
    whole = tokens / server_seconds
    print(f"  against the server's whole time, {whole:.0f} tok/s: {eval_rate / whole:.2f}x")


if __name__ == "__main__":
    main()
