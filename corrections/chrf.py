"""chrF: how close a text is to a reference, by shared character n-grams (Popović 2015).

Our own small implementation, so the workstation needs no extra package to read an eval; the tests
measure it against sacrebleu's ``sentence_chrf`` (the reference implementation, in the ``[dev]`` extra)
with its defaults: character n-grams of order 1 to 6, whitespace removed, beta 2 (recall weighs twice
precision), orders absent from either text left out of the averages. Scores run from 0 to 100.
"""

from __future__ import annotations

from collections import Counter

CHAR_ORDER = 6
BETA = 2.0


def chrf(hypothesis: str, reference: str, *, order: int = CHAR_ORDER, beta: float = BETA) -> float:
    hyp, ref = "".join(hypothesis.split()), "".join(reference.split())
    precision = recall = 0.0
    effective = 0
    for n in range(1, order + 1):
        hyp_grams = Counter(hyp[i : i + n] for i in range(len(hyp) - n + 1))
        ref_grams = Counter(ref[i : i + n] for i in range(len(ref) - n + 1))
        n_hyp, n_ref = sum(hyp_grams.values()), sum(ref_grams.values())
        if n_hyp == 0 or n_ref == 0:
            continue
        matched = sum((hyp_grams & ref_grams).values())
        precision += matched / n_hyp
        recall += matched / n_ref
        effective += 1
    if effective == 0:
        return 0.0
    precision, recall = precision / effective, recall / effective
    if precision + recall == 0:
        return 0.0
    factor = beta**2
    return 100 * (1 + factor) * precision * recall / (factor * precision + recall)
