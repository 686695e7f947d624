"""The support check on the keyed set (tests/support_keyed): the locator's scores per label, and
the support role's where a server is given.

Builds the real corpus (tests/verify_real), makes the keyed draft (one "CLAIM. See CITE." per
item), pairs every citation and scores the locator per label: how often its best paragraph is on
the cited page, and how often it warned. The baseline, in the same run, is the same locator on
single words only (no neighbouring word pairs); CPU time is given as a ratio to the verifier's own
extraction of the same draft, never as an absolute target. With ``--model URL`` (a llama-server
with the reviewer's model), every pair is judged and the labels scored per keyed label; the
expected answers are: supports -> supports, wrong-page -> does not address (the passage is the
wrong page's), contradicts -> contradicts, does not address -> does not address. Run::

    python -m benchmarks.support [--model http://127.0.0.1:8080]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from pathlib import Path

from drafting.support.judge import NO_EVIDENCE, judge_pairs
from drafting.support.pairs import pair_citations
from drafting.verify.sources import load_sources
from drafting.verify.verifier import extract, load_library
from tests.support.support_keyed_set import key_items, keyed_draft, score_locator
from tests.support.verify_real_corpus import OPINIONS, build_real_corpus, requires_opinions

EXPECTED = {
    "supports": "supports",
    "wrong-page": "does not address",
    "contradicts": "contradicts",
    "does not address": "does not address",
}


def _cpu(step):
    start = time.process_time()
    out = step()
    return out, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a llama-server URL whose model judges the pairs")
    args = parser.parse_args()
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


def _score_model(url: str, items, pairs) -> None:
    from workspace.config import Backend, Config, Policy, Sampling

    backend = Backend(
        name="reviewer", kind="llamacpp", url=url, roles=("reviewer",),
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=400),
    )  # fmt: skip
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
