"""The scrub on a real run: a fresh matter (ingested from its documents, no party typed in by hand), a
pipeline run against the real llama-server, an accepted edit that adds names, an e-mail address, a phone
number and a street address; ``--scrub`` refuses until the parties are confirmed, then leaves none of it.

The names checked for are listed here by hand from the sample matter's documents, independently of the
proposals, so a party the proposals missed would be found in the export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from corrections.from_run import capture_from_run
from evidence.identifiers import PERSONAL_DATA
from evidence.sample_matter import SAMPLE_MATTER
from tests.pipeline_setup import INSTRUCTIONS, demo_database, pipeline, role_config
from tui.cli import main
from workspace.paths import Paths

GO_ON = "a test: the tiny model's verdict is not under test"
# Every person and organisation the sample matter's documents name, and the forms they use alone.
SAMPLE_NAMES = (
    "Harbor Point", "Calder", "Dana", "Whitcombe", "Priya", "Nandakumar", "Marcus", "Okafor", "Quay Street",
    "Foundry Road",
)  # fmt: skip
ADDED = (
    "\n\nDana Whitcombe confirmed the loss (dana.whitcombe@harborpoint.example, (555) 201-3344). Priya "
    "Nandakumar of Calder Refrigeration wrote on April 16; send payment to 14 Quay Street, Port Ellery."
)


@pytest.fixture
def home(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    demo_database(
        tmp_path_factory.mktemp("demo-matter"), Paths(home / "config.toml", home / "data").database_file
    )
    monkeypatch.setenv("CHAMBERS_HOME", str(home))
    return home


async def test_a_real_run_exported_with_scrub_keeps_no_name_and_no_personal_data(
    home: Path, llama_server: LlamaServerProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = Paths(home / "config.toml", home / "data").database_file
    pipe = pipeline(role_config({}, llama_server.url), db)
    run = pipe.start(SAMPLE_MATTER, "demand-letter", INSTRUCTIONS)
    pipe.choose(run.id, go_on_anyway=GO_ON)
    outcome = await pipe.execute(run.id)
    stage = outcome.run.completed("draft")
    assert stage is not None
    capture_from_run(db, outcome.run, stage.output.strip() + ADDED)
    sft, pairs = tmp_path / "sft.jsonl", tmp_path / "pairs.jsonl"
    prompt = "\n".join(m["content"] for m in stage.messages)
    assert "Harbor Point" in prompt and "Calder" in prompt  # the evidence it was given names them

    assert main(["corrections", "export", "--format", "sft", "--out", str(sft), "--scrub"]) != 0
    refused = capsys.readouterr().err
    assert f"corrections parties {SAMPLE_MATTER} --propose" in refused and not sft.exists()

    assert main(["corrections", "parties", SAMPLE_MATTER, "--propose"]) == 0
    listed = capsys.readouterr().out
    assert "1. " in listed and "--confirm all" in listed
    assert main(["corrections", "parties", SAMPLE_MATTER, "--confirm", "all"]) == 0
    capsys.readouterr()
    assert main(["corrections", "parties", SAMPLE_MATTER, "--propose"]) == 0
    assert "name no party that is not confirmed already" in capsys.readouterr().out  # confirmed once

    for fmt, out in (("sft", sft), ("pairs", pairs)):
        assert main(["corrections", "export", "--format", fmt, "--out", str(out), "--scrub"]) == 0
    summary = capsys.readouterr().out
    assert "(party names and personal data scrubbed)" in summary
    (row,) = [json.loads(line) for line in sft.read_text().splitlines()]
    text = "\n".join(m["content"] for m in row["messages"])
    everything = text + pairs.read_text()
    for name in SAMPLE_NAMES:
        assert name.casefold() not in everything.casefold(), name
    assert [p.name for p in PERSONAL_DATA if p.find(text)] == []
    assert "[EMAIL]" in text and "[PHONE]" in text and "[ADDRESS]" in text and "[PARTY-" in text
    (record,) = [json.loads(line) for line in pairs.read_text().splitlines()]
    assert record["matter"] == "[MATTER]" and record["run_id"] == outcome.run.id
