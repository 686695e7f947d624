"""Exports checked field by field against TRL's documented dataset forms, round-tripped, filtered, scrubbed.

TRL (docs "Dataset formats and types"): conversational language modeling is ``{"messages": [...]}``;
conversational preference is ``{"prompt": [...], "chosen": [...], "rejected": [...]}`` with the
completions as assistant turns; conversational unpaired preference is ``{"prompt": [...],
"completion": [...], "label": bool}``. Each message is exactly ``{"role", "content"}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corrections.errors import CorrectionsError
from corrections.export import UNEDITED, export
from corrections.scrub import SAMPLE_PARTIES, add_parties, add_party, party_list
from corrections.store import PairFilters, get_pair, set_excluded
from tests.support.corrections_data import DRAFT, FINAL, store

ROLES = {"system", "user", "assistant"}


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def assert_messages(messages: Any, *, last_role: str | None = None) -> None:
    assert isinstance(messages, list) and messages
    for m in messages:
        assert set(m) == {"role", "content"} and m["role"] in ROLES and isinstance(m["content"], str)
    if last_role:
        assert messages[-1]["role"] == last_role


def assert_prompt(prompt: Any) -> None:
    assert_messages(prompt)
    assert prompt[-1]["role"] == "user" and all(m["role"] != "assistant" for m in prompt)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "c.sqlite3"
    store(path)  # edited, demand_letter, 35B
    store(path, task_type="summary", final=DRAFT, model="qwen3.5-122b-a10b")  # accepted unedited
    return path


def test_sft_is_conversational_language_modeling(db: Path, tmp_path: Path) -> None:
    summary = export(db, tmp_path / "sft.jsonl", "sft")
    rows = read(tmp_path / "sft.jsonl")
    assert summary.rows_written == len(rows) == 2
    for row in rows:
        assert set(row) == {"messages"}
        assert_messages(row["messages"], last_role="assistant")
        assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant"]
    assert rows[0]["messages"][-1]["content"] == FINAL


def test_dpo_is_conversational_preference_and_skips_unedited_drafts(db: Path, tmp_path: Path) -> None:
    summary = export(db, tmp_path / "dpo.jsonl", "dpo")
    (row,) = read(tmp_path / "dpo.jsonl")
    assert set(row) == {"prompt", "chosen", "rejected"}
    assert_prompt(row["prompt"])
    assert row["chosen"] == [{"role": "assistant", "content": FINAL}]
    assert row["rejected"] == [{"role": "assistant", "content": DRAFT}]
    assert summary.left_out == {UNEDITED: 1}


def test_kto_is_unpaired_preference_draft_false_final_true(db: Path, tmp_path: Path) -> None:
    export(db, tmp_path / "kto.jsonl", "kto")
    rows = read(tmp_path / "kto.jsonl")
    for row in rows:
        assert set(row) == {"prompt", "completion", "label"} and isinstance(row["label"], bool)
        assert_prompt(row["prompt"])
        assert_messages(row["completion"], last_role="assistant") and len(row["completion"]) == 1
    labelled = [(r["completion"][0]["content"], r["label"]) for r in rows]
    assert labelled == [(DRAFT, False), (FINAL, True), (DRAFT, True)]  # the unedited draft was right


@pytest.mark.parametrize("fmt", ["sft", "dpo", "kto"])
def test_the_fast_path_writes_what_the_general_path_writes(db: Path, tmp_path: Path, fmt: str) -> None:
    export(db, tmp_path / "fast.jsonl", fmt)
    add_party(
        db, "harbor-point", "Nobody Named Here LLC"
    )  # a party no pair mentions: the scrub changes nothing
    export(db, tmp_path / "general.jsonl", fmt, scrub=True)
    assert read(tmp_path / "fast.jsonl") == read(tmp_path / "general.jsonl") != []


def test_pairs_round_trip(db: Path, tmp_path: Path) -> None:
    export(db, tmp_path / "pairs.jsonl", "pairs")
    rows = read(tmp_path / "pairs.jsonl")
    assert [row["id"] for row in rows] == [1, 2]
    for row in rows:
        stored = get_pair(db, row["id"])
        assert row == json.loads(json.dumps(stored.__dict__))
    assert rows[0]["paragraphs"][0]["final"].startswith("The blast freezer")


def test_paragraph_rows_are_self_contained_lessons(db: Path, tmp_path: Path) -> None:
    summary = export(db, tmp_path / "p.jsonl", "dpo", paragraphs=True)
    rows = read(tmp_path / "p.jsonl")
    assert summary.rows_written == len(rows) == 2 and summary.left_out == {"no edited paragraphs": 1}
    assert (
        rows[0]["rejected"][0]["content"] == "The freezer was finished late. The delay caused spoiled stock."
    )
    assert rows[0]["chosen"][0]["content"].startswith("The blast freezer was completed six weeks late.")
    assert "The freezer was finished late." in rows[0]["prompt"][-1]["content"]
    assert rows[0]["prompt"][0]["role"] == "system"


def test_filters_and_the_summary_of_what_was_left_out(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    store(db)
    store(db, model="qwen3.5-122b-a10b", final=FINAL + " More.")
    store(db, task_type="summary", final=FINAL + " Other.")
    store(db, accepted_at="2026-01-01T00:00:00+00:00", final=FINAL + " Old.")
    store(db, final=DRAFT + " x")  # a one-word edit: edit ratio far below 0.05
    excluded = store(db, final=FINAL + " Excluded.").pair_id
    set_excluded(db, excluded, True)
    filters = PairFilters(
        task="demand_letter", model="qwen3.6-35b-a3b", since="2026-06-01", min_edit_ratio=0.05
    )
    summary = export(db, tmp_path / "f.jsonl", "sft", filters)
    assert summary.pairs_seen == 6 and summary.pairs_exported == len(read(tmp_path / "f.jsonl")) == 1
    assert dict(summary.left_out) == {
        "model is not qwen3.6-35b-a3b": 1,
        "task is not demand_letter": 1,
        "accepted before 2026-06-01": 1,
        "edit ratio below 0.05": 1,
        "excluded by you": 1,
    }
    text = "\n".join(summary.lines())
    assert "Exported 1 of 6 pairs as 1 sft rows" in text and "excluded by you" in text


def test_scrub_is_consistent_across_prompt_answers_pairs_and_exports(db: Path, tmp_path: Path) -> None:
    add_parties(db, "harbor-point", SAMPLE_PARTIES)
    export(db, tmp_path / "a.jsonl", "dpo", scrub=True)
    add_party(db, "harbor-point", "Priya Raman")  # a later addition changes no earlier placeholder
    export(db, tmp_path / "b.jsonl", "sft", scrub=True)
    names = party_list(db, "harbor-point")
    assert names["Harbor Point"] == names["Harbor Point Provisions LLC"] == "[PARTY-A]"
    assert names["Marcus Calder"] == "[PARTY-C]" and names["Priya Raman"] == "[PARTY-E]"
    (dpo,) = read(tmp_path / "a.jsonl")
    sft = read(tmp_path / "b.jsonl")[0]
    chosen = dpo["chosen"][0]["content"]
    assert chosen.startswith("[PARTY-A] demands payment from [PARTY-B]\n")
    assert chosen.endswith("[PARTY-C] signed the contract.")
    assert sft["messages"][-1]["content"] == chosen
    assert "between [PARTY-A] and [PARTY-B] (the Seller)" in dpo["prompt"][-1]["content"]
    assert sft["messages"][1] == dpo["prompt"][1]
    assert dpo["rejected"][0]["content"].startswith("[PARTY-A] demands payment from [PARTY-B]\n")
    everything = (tmp_path / "a.jsonl").read_text() + (tmp_path / "b.jsonl").read_text()
    for name in ("Harbor Point", "Calder Refrigeration", "Marcus Calder"):
        assert name not in everything


def test_the_out_file_appears_whole_or_not_at_all(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    out.write_text("an older export\n")
    seen: list[tuple[int, int]] = []
    export(db, out, "sft", progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (2, 2) and "older" not in out.read_text()
    with pytest.raises(CorrectionsError, match="Unknown format 'csv'"):
        export(db, tmp_path / "y.jsonl", "csv")
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".jsonl", ".tmp")) == ["x.jsonl"]


def test_scrub_refuses_a_matter_without_confirmed_parties(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "scrubbed.jsonl"
    with pytest.raises(
        CorrectionsError,
        match=r"matter 'harbor-point', which has no confirmed parties.*corrections parties harbor-point --add",
    ):
        export(db, out, "sft", scrub=True)
    assert not out.exists() and list(tmp_path.glob(".scrubbed.jsonl*")) == []
