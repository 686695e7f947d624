"""The verifier over real legal material (tests/verify_real): real opinions, real fabrications.

Scores the tune part, the held-out part, a second held-out part written after tuning ("fresh")
and a third of other courts' opinions ("courts") separately, and prints each in every run. Targets:
fabricated items blocked >= 99%, true items blocked <= 1%, no answer-key item without a flag,
no block on anything the key does not list.
"""

from __future__ import annotations

import pytest

from tests.support.verify_real_corpus import (
    RealCorpus,
    Score,
    build_real_corpus,
    requires_opinions,
    score_part,
)

pytestmark = requires_opinions


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> RealCorpus:
    return build_real_corpus(tmp_path_factory.mktemp("verify-real"))


@pytest.mark.parametrize(
    "part",
    ["tune", "heldout", "fresh", "courts"],
)
def test_real_corpus_meets_the_targets(
    corpus: RealCorpus, part: str, capsys: pytest.CaptureFixture[str]
) -> None:
    score: Score = score_part(corpus, part)
    with capsys.disabled():
        print(f"\nverify_real {score.line()}")
        if part == "tune":  # a held-out part is read as figures; its items show only when it fails
            for line in score.misses + score.dropped + score.unexpected_blocks:
                print("   ", line)
    assert score.fabricated >= 5 and score.true_items >= 10
    assert not score.dropped, score.dropped
    assert score.fabricated_rate >= 0.99, score.misses
    assert score.true_rate <= 0.01, score.misses
    assert score.unverifiable_flagged == score.unverifiable
    assert not score.unexpected_blocks, score.unexpected_blocks
