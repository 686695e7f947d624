"""``chambers agree`` against the bare ``llama-perplexity`` runs it wraps, in one run.

Both sides score the test model's Q8_0 copy against its F16 reference over the same generated
corpus, from scratch each time (no saved reference logits): the bare side runs the two
``llama-perplexity`` commands (``--kl-divergence-base``, then ``--kl-divergence``) with the same
arguments; the chambers side is ``AgreementRunner.measure`` in a fresh work folder, which also writes
the corpus, hashes both models, keeps the logs and parses the figures. Taken in turns. Target: chambers
adds under 5% (ratio <= 1.05).

    python -m benchmarks.agree [--runs N] [--words N]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from backends.fleet.agree import MAX_CHUNKS, AgreementRunner, pick_ctx
from backends.fleet.quantize import quantized
from backends.local_server import ensure_demo_model, ensure_llama_tool
from benchmarks.common import DOMAIN_WORDS, FUNCTION_WORDS, paired

TARGET = 1.05


def corpus(words: int) -> str:
    rng = random.Random(7)
    vocabulary = DOMAIN_WORDS + FUNCTION_WORDS * 3
    sentences = []
    while sum(len(s.split()) for s in sentences) < words:
        sentence = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(8, 20)))
        sentences.append(sentence.capitalize() + ".")
    return " ".join(sentences)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--words", type=int, default=1500)
    args = parser.parse_args()
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    perplexity = ensure_llama_tool("llama-perplexity", say)
    model = ensure_demo_model(say)
    reference, candidate = quantized(model, "F16", say), quantized(model, "Q8_0", say)
    text = corpus(args.words)
    threads = 1  # one thread each: a shared 2-core machine measures contention with more
    with tempfile.TemporaryDirectory(prefix="chambers-agree-bench-") as tmp:
        root = Path(tmp)
        corpus_file = root / "corpus.txt"
        corpus_file.write_text(text, encoding="utf-8")
        ctx = pick_ctx(text, None)
        common = ["-t", str(threads), "-c", str(ctx), "-b", str(ctx), "--chunks", str(MAX_CHUNKS)]
        runs = iter(range(10_000))

        def bare() -> None:
            base = root / f"bare-{next(runs)}.kld"
            for cmd in (
                [
                    str(perplexity),
                    "-m",
                    str(reference),
                    "-f",
                    str(corpus_file),
                    "--kl-divergence-base",
                    str(base),
                    *common,
                ],
                [
                    str(perplexity),
                    "-m",
                    str(candidate),
                    "--kl-divergence-base",
                    str(base),
                    "--kl-divergence",
                    *common,
                ],
            ):
                subprocess.run(cmd, capture_output=True, check=True)

        def chambers() -> None:
            runner = AgreementRunner(perplexity, root / f"agree-{next(runs)}", threads=threads)
            runner.measure(reference, candidate, text, "benchmark", None)

        chambers()  # warm-up: the page cache holds both models for either side
        bare_s, chambers_s = paired(bare, chambers, args.runs)
    ratio = chambers_s / bare_s
    print(f"agree: {args.words} words, n_ctx {ctx}, {args.runs} runs each, medians")
    print(f"  bare llama-perplexity (reference logits + KLD): {bare_s:.2f} s")
    print(f"  chambers agree (AgreementRunner.measure):       {chambers_s:.2f} s")
    print(f"  ratio {ratio:.3f} (target <= {TARGET}) {'PASS' if ratio <= TARGET else 'MISS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
