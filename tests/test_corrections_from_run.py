"""Capture from a stored pipeline run (real SQLite, the pipeline's own RunStore)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from corrections.errors import CorrectionsError, PoisonedContext
from corrections.from_run import capture_from_run
from corrections.store import get_pair
from drafting.runs import COMPLETED, ContextSource, Run
from drafting.store import RunStore
from evidence.context import ContextChunk, Provenance, render_messages
from evidence.provenance import register_output, sha256_bytes

CONTRACT = ContextSource(
    "S1", "/m/production/contract.pdf", "", 1, "HPP-000001", "c" * 64, "Dated January 10, 2024."
)


def drafted_run(db: Path, sources: list[ContextSource]) -> Run:
    store = RunStore(db)
    run = store.create(
        "harbor-point", "demand_letter", "Demand the liquidated damages.", "drafter", ["draft"]
    )
    store.set_sources(run.id, sources, "1 page chosen")
    chunks = [
        ContextChunk(s.label, s.text, Provenance(s.path, s.part, s.page_no, s.bates, s.sha256, True, 0))
        for s in sources
    ]
    stage = store.start_stage(
        run.id,
        "draft",
        "drafter",
        "workhorse",
        "http://127.0.0.1:8080",
        "qwen3.6-35b-a3b",
        render_messages("Demand the liquidated damages.", chunks),
    )
    stage.output, stage.status, stage.server_build = "Calder owes $1,500 a day [S1].", COMPLETED, "b9500"
    store.finish_stage(stage)
    return store.load(run.id)


def test_a_run_becomes_a_pair_with_its_exact_messages(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    run = drafted_run(db, [CONTRACT])
    result = capture_from_run(db, run, "Calder owes $1,500 for each day of delay [S1, HPP-000001].")
    pair = get_pair(db, result.pair_id)
    stage = run.completed("draft")
    assert stage is not None
    assert pair.messages == stage.messages and pair.draft == stage.output
    assert (pair.backend, pair.model, pair.server_build, pair.run_id) == (
        "workhorse",
        "qwen3.6-35b-a3b",
        "b9500",
        run.id,
    )
    assert (pair.task_type, pair.instructions, pair.matter) == (
        "demand_letter",
        "Demand the liquidated damages.",
        "harbor-point",
    )
    assert pair.drafted_at == stage.finished_at
    assert [(s["message"], s["label"], s["primary"]) for s in pair.sources] == [(1, "S1", True)]


def test_a_source_that_became_a_chambers_output_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    earlier = tmp_path / "earlier-draft.txt"
    earlier.write_text("Calder owes the buyer for the spoiled stock, as chambers drafted last week.")
    output_id = register_output(db, earlier, "draft")
    assert output_id
    poisoned = ContextSource(
        "S2", str(earlier), "", 1, None, sha256_bytes(earlier.read_bytes()), "Calder owes..."
    )
    run = drafted_run(db, [CONTRACT, poisoned])
    with pytest.raises(
        PoisonedContext, match=r"\[S2\] .*earlier-draft.txt page 1, which is a draft chambers wrote"
    ):
        capture_from_run(db, run, "Final text.")


def test_a_run_without_a_finished_draft_has_nothing_to_pair(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    store = RunStore(db)
    run = store.create("harbor-point", "demand_letter", "Demand.", "drafter", ["draft"])
    with pytest.raises(CorrectionsError, match="no finished draft"):
        capture_from_run(db, run, "Final.")


def test_the_pair_records_the_adapter_its_draft_was_written_with(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    store = RunStore(db)
    run = store.create("harbor-point", "demand_letter", "Demand the damages.", "drafter", ["draft"])
    stage = store.start_stage(
        run.id,
        "draft",
        "drafter",
        "workhorse",
        "http://127.0.0.1:8080",
        "qwen3-8b",
        [{"role": "user", "content": "Demand the damages."}],
    )
    stage.output, stage.status = "Calder owes damages.", COMPLETED
    stage.adapter, stage.adapter_sha256 = "demand-v3", "d" * 64
    store.finish_stage(stage)
    run = store.load(run.id)
    drafted = run.completed("draft")
    assert drafted is not None and (drafted.adapter, drafted.adapter_sha256) == ("demand-v3", "d" * 64)
    pair = get_pair(db, capture_from_run(db, run, "Calder owes $1,500 a day.").pair_id)
    assert (pair.adapter, pair.adapter_sha256) == ("demand-v3", "d" * 64)


def test_each_source_goes_with_the_message_the_run_recorded_as_carrying_it(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    run = drafted_run(db, [replace(CONTRACT, message=0, start=0, end=12)])  # its label is in message 1
    pair = get_pair(db, capture_from_run(db, run, "Calder owes $1,500 a day [S1, HPP-000001].").pair_id)
    assert [(s["message"], s["label"]) for s in pair.sources] == [(0, "S1")]
