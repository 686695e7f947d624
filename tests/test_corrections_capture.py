"""Capture on real SQLite: the pair and its sub-pairs stored, identical pairs once, poisoned inputs refused."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from corrections import schema as corrections_schema
from corrections.capture import capture
from corrections.errors import CorrectionsError, PoisonedContext
from corrections.model import DrafterMessage, SourceRef
from corrections.store import delete_pair, get_pair, list_pairs, set_excluded
from evidence.provenance import register_output
from tests.support.corrections_data import CONTRACT, DRAFT, FINAL, make_input, store
from workspace.database import connect


def test_capture_stores_everything_the_model_was_given(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    result = store(db)
    assert result.stored
    pair = get_pair(db, result.pair_id)
    assert (pair.task_type, pair.instructions, pair.draft, pair.final) == (
        "demand_letter",
        "Draft a demand letter.",
        DRAFT,
        FINAL,
    )
    assert (pair.backend, pair.model, pair.server_build) == ("workhorse", "qwen3.6-35b-a3b", "b9500")
    assert pair.messages[0]["role"] == "system" and pair.messages[1]["content"].startswith("SOURCES")
    assert pair.sources == [
        {
            "message": 1,
            "label": "S1",
            "path": CONTRACT.path,
            "page_no": 1,
            "bates": "HPP-000001",
            "sha256": CONTRACT.sha256,
            "primary": True,
        }
    ]
    assert pair.drafted_at == "2026-11-02T09:58:00+00:00" and pair.accepted_at.startswith("2026-11-02T10")
    assert pair.captured_at and pair.trigger == "accept"
    assert 0 < pair.edit_ratio < 0.5 and pair.words_added > pair.words_removed > 0
    # Sub-pairs: the two edited paragraphs, aligned one to one; the unchanged ones are not lessons.
    assert [(p["draft"], p["final"]) for p in pair.paragraphs] == [
        (
            "The freezer was finished late. The delay caused spoiled stock.",
            "The blast freezer was completed six weeks late. The delay caused spoiled stock.",
        ),
        ("Please respond soon.", "Please respond within ten days. Marcus Calder signed the contract."),
    ]


def test_identical_pairs_are_stored_once(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    first = store(db)
    again = store(db, accepted_at="2026-11-03T08:00:00+00:00", trigger="save")
    other_final = store(db, final=FINAL + " Thank you.")
    assert not again.stored and again.pair_id == first.pair_id
    assert other_final.stored and other_final.pair_id != first.pair_id
    assert len(list_pairs(db)) == 2


def test_a_non_primary_chunk_is_refused_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    earlier = SourceRef("S2", "/matters/harbor-point/drafts/demand-v1.pdf", 3, None, "b" * 64, False)
    poisoned = make_input()
    poisoned = replace(
        poisoned,
        messages=(*poisoned.messages[:1], replace(poisoned.messages[1], sources=(CONTRACT, earlier))),
    )
    with pytest.raises(PoisonedContext) as caught:
        capture(db, poisoned)
    assert "[S2] /matters/harbor-point/drafts/demand-v1.pdf page 3" in caught.value.message
    assert "marked as not primary" in caught.value.message and "Message 2 (user)" in caught.value.message
    assert list_pairs(db) == []


def test_a_chunk_whose_file_chambers_wrote_is_refused_even_when_flagged_primary(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    draft_file = tmp_path / "demand-v1.txt"
    draft_file.write_text("DRAFT DEMAND LETTER prepared by chambers. Calder failed to complete the freezer.")
    register_output(db, draft_file, "draft")
    conn = connect(db, corrections_schema.SCHEMA)
    sha = conn.execute("SELECT sha256 FROM outputs").fetchone()[0]
    conn.close()
    stale = SourceRef("S1", str(draft_file), 1, None, sha, True)
    item = make_input(messages=(DrafterMessage("user", "SOURCES [S1] ... TASK ...", (stale,)),))
    with pytest.raises(PoisonedContext, match=r"is a draft chambers wrote on .*registered output"):
        capture(db, item)


def test_an_empty_final_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CorrectionsError, match="final text is empty"):
        store(tmp_path / "c.sqlite3", final="  \n")


def test_exclude_and_delete(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    pair_id = store(db).pair_id
    set_excluded(db, pair_id, True)
    assert get_pair(db, pair_id).excluded
    delete_pair(db, pair_id)
    conn = connect(db, corrections_schema.SCHEMA)
    assert conn.execute("SELECT COUNT(*) FROM corrections_paragraphs").fetchone()[0] == 0
    conn.close()
    with pytest.raises(CorrectionsError, match="no correction pair number"):
        get_pair(db, pair_id)
