"""The support check on the keyed set (tests/support_keyed): the locator's scores per label, and
the support role's where a server is given.

Builds the real corpus (tests/verify_real), makes the keyed draft (one "CLAIM. See CITE." per
item), pairs every citation and scores the locator per label: how often its best paragraph is on
the cited page, and how often it warned. The baseline, in the same run, is the same locator on
single words only (no neighbouring word pairs); CPU time is given as a ratio to the verifier's own
extraction of the same draft, never as an absolute target. With ``--model URL`` (a llama-server
with the reviewer's model), every pair is judged and the labels scored per keyed label; the
expected answers are: supports -> supports, wrong-page -> does not address (the passage is the
wrong page's), contradicts -> contradicts, does not address -> does not address.

With the speed part (on unless ``--no-speed``; benchmarks/support_speed.py says what it measures), a
llama-server is started with 4 slots on the test model and a 20-page brief of 100 citations is
checked on it; ``--quick`` checks 8 citations with short answers, a smoke run of a minute or so.
The locator's CPU time against the 100-opinion library (``--wide DIR``) needs no server and is
measured with ``--no-speed`` too. The model's accuracy per label is scored only with ``--model``: no instruct model larger than the
test model ships in a package this machine can reach and run in minutes. Run::

    python -m benchmarks.support [--quick] [--no-speed] [--wide DIR] [--model http://127.0.0.1:8080]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.common import stop_on_sigterm
from benchmarks.support_speed import (
    SLOTS,
    WIDE_OPINIONS,
    brief,
    locator_cpu,
    pages_of,
    print_speed,
    replay,
    run_check,
)
from drafting.support.judge import NO_EVIDENCE, judge_pairs
from drafting.support.pairs import Pair, pair_citations
from drafting.verify.sources import MatterSources, load_sources
from drafting.verify.verifier import Library, extract, load_library
from tests.support.support_keyed_set import key_items, keyed_draft, score_locator
from tests.support.verify_real_corpus import OPINIONS, RealCorpus, build_real_corpus, requires_opinions

T = TypeVar("T")

EXPECTED = {
    "supports": "supports",
    "wrong-page": "does not address",
    "contradicts": "contradicts",
    "does not address": "does not address",
}


def _cpu(step: Callable[[], T]) -> tuple[T, float]:
    start = time.process_time()
    out = step()
    return out, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a llama-server URL whose model judges the keyed pairs")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 8 citations, short answers")
    parser.add_argument(
        "--no-speed",
        action="store_true",
        help="no server is started: the keyed set and the locator's CPU only",
    )
    parser.add_argument(
        "--wide", type=Path, default=WIDE_OPINIONS, help=f"the 100-opinion library's folder ({WIDE_OPINIONS})"
    )
    parser.add_argument("--citations", type=int, help="citations in the speed brief (100; 8 with --quick)")
    args = parser.parse_args()
    stop_on_sigterm()
    if OPINIONS is None:
        raise SystemExit(requires_opinions.kwargs["reason"])
    with tempfile.TemporaryDirectory() as root:
        corpus = build_real_corpus(Path(root))
        library = load_library(corpus.database_file, corpus.library)
        record = load_sources(corpus.database_file, corpus.matter)
        items = key_items()
        draft = keyed_draft(items)
        found, extract_cpu = _cpu(lambda: extract(draft, record.prefixes, library.opinions))
        pairs, locate_cpu = _cpu(lambda: pair_citations(draft, found, library.opinions, record))
        words_only = pair_citations(draft, found, library.opinions, record, word_pairs=False)
        for name, chosen in (("locator", pairs), ("baseline (single words)", words_only)):
            score = score_locator(items, chosen)
            print(f"{name}:")
            print("\n".join("  " + line for line in score.lines()))
        print(
            f"locator CPU {locate_cpu:.3f} s for {len(pairs)} citations: "
            f"{locate_cpu / max(extract_cpu, 1e-9):.2f}x the verifier's extraction of the same draft"
        )
        if args.model:
            _score_model(args.model, items, pairs)
        else:
            print(
                "model judgement: not scored here (no --model). The test model (SmolLM2-135M) shows the "
                "mechanics only, and no larger instruct GGUF model ships in a package this machine can "
                "reach and run in minutes; give --model URL of a server with the reviewer's model."
            )
        citations = args.citations or (8 if args.quick else 100)
        if not args.no_speed:
            _speed(Path(root), corpus, library, record, items, citations, 48 if args.quick else 128)
        _wide_locator(Path(root), args.wide, citations if args.quick else 100)


def _speed(
    root: Path,
    corpus: RealCorpus,
    library: Library,
    record: MatterSources,
    items: list[dict[str, Any]],
    citations: int,
    max_tokens: int,
) -> None:
    from backends.local_server import LlamaServerProcess, ensure_demo_model, ensure_llama_server

    draft = brief(items, citations)
    print(
        f"\nspeed: a {pages_of(draft):.0f}-page brief with {citations} citations, the support check on a "
        f"llama-server with {SLOTS} slots (test model, answers up to {max_tokens} tokens):",
        flush=True,
    )
    binary, model = ensure_llama_server(print), ensure_demo_model(print)

    def server(log: str) -> LlamaServerProcess:
        return LlamaServerProcess(
            binary,
            model,
            extra_args=("--jinja", "--slots", "--metrics", "-np", str(SLOTS), "-c", str(SLOTS * 4096)),
            log_file=root / log,
        )

    warm = [{"messages": [{"role": "user", "content": "Say yes."}], "max_tokens": 4, "stream": True}] * SLOTS
    with server("server.log") as checked:
        asyncio.run(replay(checked.url, warm))  # the weights paged in before the check is timed
        check = run_check(
            corpus.database_file, corpus.matter, draft, library, record, checked.url, max_tokens
        )
    # The replay gets a server of its own, started and warmed alike: the first one holds the check's
    # prompts in its cache and would answer them again without the prompt processing the check paid for.
    with server("replay.log") as fresh:
        asyncio.run(replay(fresh.url, warm))
        raw_wall, raw_tokens = asyncio.run(replay(fresh.url, check.requests))
    print_speed(check, raw_wall, raw_tokens)


def _wide_locator(root: Path, opinions: Path, citations: int) -> None:
    if not opinions.is_dir():
        print(
            f"\nlocator against a 100-opinion library: not measured, the wide corpus is not at {opinions} "
            "(a folder of about 100 real opinions, PDF or text, each printing its citation)."
        )
        return
    from evidence.ingest import ingest_matter
    from evidence.matters import create_matter

    database_file = root / "wide.sqlite3"
    create_matter(database_file, "wide-library", [opinions], kind="library")
    ingest_matter(database_file, "wide-library", tessdata=None)
    files = sum(1 for f in opinions.iterdir() if f.is_file())
    print(f"\nlocator against the wide library ({files} opinion files in {opinions}):", flush=True)
    locator_cpu(database_file, "wide-library", citations)


def _score_model(url: str, items: list[dict[str, Any]], pairs: list[Pair]) -> None:
    from workspace.config import Backend, Config, Policy, Sampling

    backend = Backend(
        name="reviewer",
        kind="llamacpp",
        url=url,
        roles=("reviewer",),
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=400),
    )
    config = Config(file="benchmark", policy=Policy(), boards=(), backends=(backend,))
    start = time.perf_counter()
    judgements = asyncio.run(judge_pairs([(p.claim, p.passage) for p in pairs], backend, config))
    wall = time.perf_counter() - start
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    answered: dict[str, Counter[str]] = {}
    for item, judgement in zip(items, judgements, strict=True):
        label = item["label"]
        total[label] += 1
        right[label] += judgement.label == EXPECTED[label]
        answered.setdefault(label, Counter())[judgement.label] += 1
    print(f"model judgement ({len(pairs)} pairs, {wall:.1f} s):")
    for label in sorted(total):
        print(
            f"  {label:17} {total[label]:3}: right {right[label] / total[label]:6.1%}  {dict(answered[label])}"
        )
    print(
        f"  no evidence given (span not in the passage, or no answer): {sum(j.label == NO_EVIDENCE for j in judgements)}"
    )


if __name__ == "__main__":
    main()
