"""How well the verifier does on real legal material: the tests/verify_real corpus, both parts.

Builds the corpus (real opinions as distributed, a generated record matter; see
tests/verify_real/SOURCES.md), verifies every draft and prints, for the tune part and the
held-out part (and "fresh", a second held-out part written after tuning, and "courts", a third of
other courts' opinions and formats) separately: fabricated items blocked (target >= 99%), true items blocked
(target <= 1%), answer-key items with no flag (target 0) and blocks on unlisted text (target 0).
Only the tune part's individual misses are printed with ``--details``; the held-out part is
reported as figures, so tuning never reads it item by item. Run from the repo root::

    python -m benchmarks.verify_quality [--details] [--tune-failures FILE] [--tune-items N]

It then scores the wide corpus (tests/verify_wide: 100 opinions, generated true and mutated items)
where its folder is present, the tune part and the held-back part on separate lines with a table
per category; ``--tune-failures FILE`` writes the tune part's failing items, by category, to FILE.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from pathlib import Path

from tests.support.verify_real_corpus import OPINIONS, build_real_corpus, requires_opinions, score_part


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--details", action="store_true", help="list the tune part's misses")
    parser.add_argument("--tune-failures", type=Path, help="write the wide tune part's failures here")
    parser.add_argument(
        "--tune-items",
        type=int,
        default=8,
        metavar="N",
        help="generated sentences per opinion in the wide tune part (default 8; 150 takes about every "
        "quotable sentence and finds the rare misreads 8 miss); the held-back part keeps 8",
    )
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    if OPINIONS is None:
        print(f"SKIP verify_quality: {requires_opinions.kwargs['reason']}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        corpus = build_real_corpus(Path(tmp))
        if corpus.not_indexed:
            print(f"library: not indexed: {', '.join(corpus.not_indexed)}")
        for part in ("tune", "heldout", "fresh", "courts"):
            score = score_part(corpus, part)
            met = (
                score.fabricated_rate >= 0.99
                and score.true_rate <= 0.01
                and not score.dropped
                and not score.unexpected_blocks
            )
            print(f"{'PASS' if met else 'MISS'} {score.line()}")
            if args.details and part == "tune":
                for line in score.misses + score.dropped + score.unexpected_blocks:
                    print("    " + line)
    _wide(args.tune_failures, args.tune_items)
    return 0


def _wide(tune_failures: Path | None, tune_items: int = 8) -> None:
    from tests.verify_wide.keyed import score_keyed_part
    from tests.verify_wide.report import rerun_section, write_tune_failures
    from tests.verify_wide.score import MISSING_REASON, canonical_in_process, score_part, wide_opinions_folder

    folder = wide_opinions_folder()
    if folder is None:
        print(f"SKIP wide: {MISSING_REASON}")
        return
    for part in ("tune", "heldout"):
        with tempfile.TemporaryDirectory() as tmp:
            score = score_part(Path(tmp), folder, part, tune_items if part == "tune" else 8)
        rates = score.rates()
        met = (
            rates["fabricated_verified"] == 0
            and rates["held_contradicted"] >= 0.99
            and rates["true_contradicted"] <= 0.01
            and rates["true_unverifiable"] <= 0.05
            and rates["no_verdict"] == 0
        )
        print(f"{'PASS' if met else 'MISS'} wide {score.line()}")
        for row in score.table() + score.reason_lines():
            print(row)
        with tempfile.TemporaryDirectory() as tmp:
            keyed = score_keyed_part(Path(tmp), folder, part)
        print(f"     wide {keyed.line()}")
        first, second = (canonical_in_process(folder, part, seed) for seed in ("1", "2"))
        print(
            f"     wide {part}: a rerun in another interpreter is {'identical' if first == second else 'DIFFERENT'}"
        )
        if part == "tune" and tune_failures is not None:
            write_tune_failures(score, tune_failures, keyed=keyed, rerun=rerun_section(first, second))


if __name__ == "__main__":
    raise SystemExit(main())
