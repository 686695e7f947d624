"""Branches that turn on what a model decides, with a scripted server standing in for that decision.

The scripted server (tests/support/scripted_server.py) replaces a model's judgement, not the transport:
the pipeline reaches it over real HTTP and SSE. The drafter stays the real llama-server wherever
its words do not matter to the branch under test.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from drafting.events import PipelineEvent, RunEnded
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.pipeline_setup import INSTRUCTIONS, demo_database, pipeline, role_config
from tests.support.scripted_server import BUILD, scripted_server
from workspace.config import Config

NO_BASIS = {"basis": "no", "reasons": ["Nothing in the record shows a demand was ever owed."], "evidence": []}
YES = {"basis": "yes", "reasons": ["The invoices and the agreement."], "evidence": ["S1"]}
DRAFT = (
    "Dear Mr. Calder,\n\nUnder the Agreement dated January 10, 2024, Calder Refrigeration promised to "
    "install the walk-in freezer.   The installation was LATE, and the stock spoiled.\n\n"
    "The freezer failed again on March 3, 2031 (HPP-009999).\n\nWe demand payment within fourteen days.\n"
)


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


def without_router(config: Config) -> Config:
    backends = tuple(b for b in config.backends if "router" not in b.roles)
    return Config(config.file, config.policy, config.boards, backends)


async def test_the_gate_saying_no_stops_the_run_until_the_attorney_goes_on_with_a_reason(
    db: Path, llama_server: LlamaServerProcess
) -> None:
    events: list[PipelineEvent] = []
    with scripted_server(NO_BASIS) as (gate_url, gate), scripted_server({"findings": []}) as (rev_url, rev):
        config = without_router(role_config({"gate": gate_url, "reviewer": rev_url}, llama_server.url))
        pipe = pipeline(config, db, events)
        run = pipe.start(SAMPLE_MATTER, "demand_letter", INSTRUCTIONS)
        stopped = (await pipe.execute(run.id)).run

        assert stopped.status == "stopped"
        assert [(s.stage, s.status) for s in stopped.stages] == [
            ("route", "completed"),
            ("gate", "completed"),
        ]
        assert stopped.stages[0].result["by"].startswith("rules") and stopped.stages[0].backend is None
        assert stopped.stages[1].server_build == BUILD
        ended = events[-1]
        assert isinstance(ended, RunEnded) and ended.status == "stopped"
        assert "Nothing in the record shows a demand was ever owed." in ended.message
        assert "--go-on-anyway" in ended.message
        con = sqlite3.connect(db)
        assert [r[0] for r in con.execute("SELECT role FROM audit")] == ["gate"]  # nothing was drafted
        con.close()
        # The gate saw the task and the evidence.
        assert INSTRUCTIONS in gate.requests[0]["messages"][1]["content"]
        assert "SOURCES" in gate.requests[0]["messages"][1]["content"]

        pipe.choose(
            run.id, go_on_anyway="The client's own ledger shows the debt; the gate had too few pages."
        )
        done = (await pipe.execute(run.id)).run

    assert done.status == "completed"
    override = done.choice("gate_override")
    assert override is not None and "ledger" in override.reason
    assert [s.stage for s in done.stages] == ["route", "gate", "draft", "review", "verify"]
    # The reviewer found nothing: every mark is the verifier's, and nothing is left unanchored.
    assert len(rev.requests) == 1 and done.draft.strip() in rev.requests[0]["messages"][1]["content"]
    verify = done.stages[-1].result
    assert all(m["source"] == "verifier" for m in verify["marks"]) and verify["unanchored"] == []
    assert done.stages[3].result == {"findings": [], "anchored": 0, "unanchored": 0}


async def test_review_findings_are_anchored_exactly_then_fuzzily_and_the_rest_listed_apart(db: Path) -> None:
    findings = {
        "findings": [
            {
                "quote": "We demand payment within fourteen days.",
                "problem": "No amount is stated.",
                "severity": "high",
                "fix": "State the sum.",
            },
            {
                "quote": "the installation was late, and the stock spoiled.",
                "problem": "Which stock?",
                "severity": "medium",
                "fix": "Name the goods.",
            },
            {
                "quote": "Calder Refrigeraton promised to install the walk in freezer",
                "problem": "Misread.",
                "severity": "low",
                "fix": "Quote the clause.",
            },
            {
                "quote": "The parties agreed to arbitrate in Delaware.",
                "problem": "Not in the draft at all.",
                "severity": "high",
                "fix": "Remove.",
            },
        ]
    }
    with (
        scripted_server(YES) as (gate_url, _),
        scripted_server(DRAFT) as (draft_url, drafter),
        scripted_server(findings) as (rev_url, reviewer),
    ):
        config = without_router(
            role_config({"gate": gate_url, "drafter": draft_url, "reviewer": rev_url}, gate_url)
        )
        pipe = pipeline(config, db)
        run = (await pipe.execute(pipe.start(SAMPLE_MATTER, "demand-letter", INSTRUCTIONS).id)).run

    assert run.status == "completed" and run.draft == DRAFT
    anchored = {f["problem"]: f for f in run.stages[3].result["findings"]}
    assert anchored["No amount is stated."]["anchored"] == "exact"
    assert anchored["Which stock?"]["anchored"] == "normalized"
    assert anchored["Misread."]["anchored"] == "fuzzy" and anchored["Misread."]["score"] >= 0.8
    assert anchored["Not in the draft at all."]["anchored"] == "none"
    fuzzy = anchored["Misread."]
    assert DRAFT[fuzzy["start"] : fuzzy["end"]].startswith("Calder Refrigeration promised")

    verify = run.stages[-1].result
    (apart,) = verify["unanchored"]
    assert apart["problem"] == "Not in the draft at all."
    marks = verify["marks"]
    assert [m["start"] for m in marks] == sorted(m["start"] for m in marks)
    assert {m["source"] for m in marks} == {
        "verifier",
        "reviewer",
    }  # the made-up Bates number is the verifier's
    assert {m["kind"] for m in marks if m["source"] == "verifier"} >= {"bates"}
    assert sum(m["source"] == "reviewer" for m in marks) == 3
    # The reviewer was given the draft and the very sources the drafter was given.
    sources = drafter.requests[0]["messages"][1]["content"].split("TASK")[0]
    assert sources.startswith("SOURCES") and sources in reviewer.requests[0]["messages"][1]["content"]


async def test_a_gate_answer_outside_its_schema_is_refused_never_read_as_a_verdict(db: Path) -> None:
    """A server that ignores the schema sends JSON of another shape: the gate stage is refused and the answer
    kept on the stage; the schema it was sent is the one its answer is checked by."""
    from drafting.answers import json_schema
    from drafting.refusal import StageRefused
    from drafting.stages.gate import gate_answer
    from tests.support.pipeline_setup import OPTIONS

    unsure = {"basis": "maybe", "reasons": ["Hard to say."], "evidence": []}
    with scripted_server(unsure) as (gate_url, gate):
        pipe = pipeline(without_router(role_config({"gate": gate_url}, "http://127.0.0.1:1")), db)
        run = pipe.start(SAMPLE_MATTER, "demand_letter", INSTRUCTIONS)
        with pytest.raises(StageRefused) as refused:
            await pipe.execute(run.id)

    port = gate_url.rsplit(":", 1)[1]
    assert str(refused.value).startswith(
        f"The gate failed: backend 'gate' at 127.0.0.1:{port} answered with something that is not the JSON"
    )
    kept = pipe.store.load(run.id)
    assert kept.status == "refused" and [(s.stage, s.status) for s in kept.stages][-1] == ("gate", "refused")
    assert '"maybe"' in kept.stages[-1].output and kept.completed("gate") is None
    sent = gate.requests[0]["response_format"]["json_schema"]["schema"]
    assert sent == json_schema(gate_answer(OPTIONS.limits)) == pipe.json_schema("gate")
    assert sent["properties"]["basis"]["enum"] == ["yes", "partial", "no"]
