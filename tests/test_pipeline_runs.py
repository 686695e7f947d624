"""Runs persist every attempt at every stage, with the exact messages, and say where to resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from drafting.runs import COMPLETED, Choice, ContextSource, RunNotFound, now
from drafting.store import RunStore


def test_a_run_keeps_each_attempt_and_resumes_after_the_last_completed_stage(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "c.sqlite3")
    run = store.create(
        "harbor-point", "demand_letter", "Demand payment.", "drafter", ["gate", "draft", "review"]
    )
    assert run.next_stage() == "gate"
    messages = [{"role": "user", "content": "Is there a basis? é"}]
    gate = store.start_stage(run.id, "gate", "gate", "local", "http://127.0.0.1:1", "m", messages)
    gate.status, gate.result, gate.server_build = COMPLETED, {"basis": "yes"}, "b1-abc"
    store.finish_stage(gate)
    draft = store.start_stage(run.id, "draft", "drafter", "local", "http://127.0.0.1:1", "m", messages)
    store.save_partial(draft.id, "Dear Mr. Calder,")
    assert store.mark_interrupted(run.id) == 1
    store.add_choice(run.id, Choice("reroute", "review", "other", "reviewer box is down", now()))
    store.set_sources(run.id, [ContextSource("S1", "/x.pdf", "", 1, "HPP-000001", "ab", "text")], "estimate")

    loaded = store.load(run.id)
    assert [s.status for s in loaded.stages] == ["completed", "interrupted"]
    assert loaded.stages[0].messages == messages and loaded.stages[0].server_build == "b1-abc"
    assert loaded.draft == "Dear Mr. Calder,"
    assert loaded.next_stage() == "draft"
    assert loaded.reroute_for("review") == "other" and loaded.reroute_for("gate") is None
    assert loaded.sources[0].bates == "HPP-000001"
    assert [r.id for r in store.list()] == [run.id]


def test_an_unknown_run_says_how_to_find_one(tmp_path: Path) -> None:
    with pytest.raises(RunNotFound, match="chambers runs list"):
        RunStore(tmp_path / "c.sqlite3").load(42)
