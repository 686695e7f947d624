"""Capture from a real pipeline run against the real llama-server: the pair is exactly what the drafter got.

One run serves every check (capture; the export scrub of a fresh matter, whose parties no one typed in;
then the refusal once a source turns out to be chambers' own): a pipeline run with the real server is
the slow part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from corrections.errors import CorrectionsError, PoisonedContext
from corrections.export import export
from corrections.from_run import capture_from_run
from corrections.party_proposals import choose, confirm_parties, propose_parties
from corrections.store import get_pair
from drafting.runs import Run
from evidence.identifiers import PERSONAL_DATA
from evidence.provenance import register_output
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.pipeline_setup import INSTRUCTIONS, demo_database, pipeline, role_config

GO_ON = "a test: the tiny model's verdict is not under test"
# Every person and organisation the sample matter's documents name, and the forms they use alone, listed
# by hand so that a party the proposals missed would be found in the scrubbed export.
SAMPLE_NAMES = (
    "Harbor Point",
    "Calder",
    "Dana",
    "Whitcombe",
    "Priya",
    "Nandakumar",
    "Marcus",
    "Okafor",
    "Quay Street",
    "Foundry Road",
)
ADDED = (
    "\n\nDana Whitcombe confirmed the loss (dana.whitcombe@harborpoint.example, (555) 201-3344). Priya "
    "Nandakumar of Calder Refrigeration wrote on April 16; send payment to 14 Quay Street, Port Ellery."
)


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


async def drafted(db: Path, server: LlamaServerProcess) -> Run:
    pipe = pipeline(role_config({}, server.url), db)
    run = pipe.start(SAMPLE_MATTER, "demand-letter", INSTRUCTIONS)
    pipe.choose(run.id, go_on_anyway=GO_ON)
    outcome = await pipe.execute(run.id)
    assert outcome.run.completed("draft") is not None, [
        (s.stage, s.status, s.error) for s in outcome.run.stages
    ]
    return outcome.run


async def test_accepting_an_edited_real_draft_stores_the_pair(
    db: Path, llama_server: LlamaServerProcess, tmp_path: Path
) -> None:
    run = await drafted(db, llama_server)
    stage = run.completed("draft")
    assert stage is not None
    final = "Dear Mr. Calder,\n\n" + stage.output.strip() + "\n\nPayment is due within 14 days."
    result = capture_from_run(db, run, final)
    assert result.stored and result.redline.words_added >= 9
    pair = get_pair(db, result.pair_id)
    assert pair.messages == stage.messages and pair.draft == stage.output and pair.final == final
    assert (pair.backend, pair.model, pair.server_build) == (stage.backend, stage.model, stage.server_build)
    assert pair.model and pair.server_build and pair.run_id == run.id and pair.matter == SAMPLE_MATTER
    assert (pair.task_type, pair.instructions) == (run.task_type, run.instructions)
    assert pair.drafted_at == stage.finished_at and pair.accepted_at >= pair.drafted_at
    assert {s["label"] for s in pair.sources} == {s.label for s in run.sources} and run.sources
    assert all(s["primary"] and s["message"] == 1 for s in pair.sources)  # all quoted in the user message

    assert not capture_from_run(db, run, final).stored  # accepted twice: stored once
    export(db, tmp_path / "sft.jsonl", "sft")
    (row,) = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert row == {"messages": [*stage.messages, {"role": "assistant", "content": final}]}

    check_scrub(db, run, final + ADDED, tmp_path)

    # Later the file of one of its sources turns out to be chambers' own: the run can teach nothing now.
    source = run.sources[0]
    register_output(db, Path(source.path), "draft")
    with pytest.raises(PoisonedContext) as refused:
        capture_from_run(db, run, final + " Sincerely.")
    assert f"[{source.label}] {source.path}" in refused.value.message
    assert "chambers wrote" in refused.value.message


def check_scrub(db: Path, run: Run, final: str, tmp_path: Path) -> None:
    """The run's pair with names, an address, an e-mail and a phone number added: the scrub refuses
    until the parties its documents name are confirmed, then leaves no name and no personal data."""
    capture_from_run(db, run, final)
    out = tmp_path / "scrubbed.jsonl"
    with pytest.raises(CorrectionsError, match=f"corrections parties {SAMPLE_MATTER} --propose"):
        export(db, out, "sft", scrub=True)
    assert not out.exists()
    confirm_parties(db, SAMPLE_MATTER, choose(propose_parties(db, SAMPLE_MATTER), "all"))
    export(db, out, "sft", scrub=True)
    export(db, tmp_path / "scrubbed-pairs.jsonl", "pairs", scrub=True)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    text = "\n".join(m["content"] for row in rows for m in row["messages"])
    assert "[EMAIL]" in text and "[PHONE]" in text and "[ADDRESS]" in text and "[PARTY-" in text
    assert [p.name for p in PERSONAL_DATA if p.find(text)] == []
    everything = text + (tmp_path / "scrubbed-pairs.jsonl").read_text()
    for name in SAMPLE_NAMES:
        assert name.casefold() not in everything.casefold(), name
