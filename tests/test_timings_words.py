"""Server timings in words: a repeated (cached) prompt reads "cached", and no rate is made of no time.

The timings are the fields llama-server puts on its last chunk (see ``tests/support/scripted_server.py``);
the cached case is the shape of a repeat run seen in the demo: 2,650 prompt tokens from the cache,
one new, a fraction of a millisecond.
"""

from __future__ import annotations

from typing import Any

from drafting.runs import StageRecord
from drafting.stages import STAGES
from drafting.timings import generation_phrase, prompt_phrase, timings_phrase

REPEAT = {
    "cache_n": 2650,
    "prompt_n": 1,
    "prompt_ms": 0.4,
    "prompt_per_second": 2500.0,
    "predicted_n": 120,
    "predicted_ms": 0.0,
    "predicted_per_second": 0.0,
}
FIRST = {"cache_n": 0, "prompt_n": 3100, "prompt_ms": 7560.0, "predicted_n": 120, "predicted_ms": 2660.0}


def test_a_cached_prompt_reads_cached_and_no_rate_is_computed_over_no_time() -> None:
    assert prompt_phrase(REPEAT) == "cached 2,650 tok, 1 tok new"
    assert generation_phrase(REPEAT) == "120 tok"  # not "120 tok at 0 tok/s"
    assert "tok/s" not in timings_phrase(REPEAT)


def test_a_first_run_gives_both_rates() -> None:
    assert prompt_phrase(FIRST) == "prompt 3,100 tok at 410 tok/s"
    assert generation_phrase(FIRST) == "120 tok at 45.1 tok/s"
    assert prompt_phrase({"cache_n": 900, "prompt_n": 0, "prompt_ms": 0.0}) == "cached 900 tok"
    assert generation_phrase({}) == "0 tok"


def record(stage: str, result: dict[str, Any], timings: dict[str, Any] | None = None) -> StageRecord:
    return StageRecord(
        id=1,
        run_id=1,
        seq=1,
        stage=stage,
        role=None,
        backend=None,
        url=None,
        model=None,
        server_build=None,
        messages=[],
        output="",
        result=result,
        status="completed",
        started_at="",
        timings=timings,
    )


def _summary(record: StageRecord) -> str:
    """The line the pipeline reports when the stage of ``record`` finishes."""
    return STAGES[record.stage].summary_of(record)


def test_the_gates_summary_reads_as_one_verdict_even_when_its_reasons_are_yes_or_no_words() -> None:
    said = _summary(record("gate", {"basis": "yes", "reasons": ["no", "partial"], "evidence": []}))
    assert said == 'verdict YES, because "no"; "partial"'
    assert _summary(record("gate", {"basis": "no", "reasons": [], "evidence": []})) == (
        "verdict NO, no reasons given"
    )


def test_the_draft_summary_says_cached_not_a_zero_rate() -> None:
    said = _summary(record("draft", {"chars": 500}, REPEAT))
    assert said == "500 characters; cached 2,650 tok, 1 tok new; generated 120 tok"
