"""``chambers verify --support --report`` on a real llama-server, over the demo matter every clone
generates (tests/support/verify_fixtures.py), so a fresh clone's ``make test`` runs the whole support
check (pairs, parallel judgement, the span held to its passage, stored pairs, the report) on a real
server without the outside opinions the keyed set needs. The tiny test model's labels are mechanics,
not accuracy."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from drafting.support.judge import MODEL_JUDGEMENT, NO_EVIDENCE
from drafting.support.prompt import LABELS
from drafting.support.store import pairs_of
from tests.support.verify_fixtures import build_demo_matter
from tui.cli.main import main
from workspace.paths import Paths

DRAFT = (
    "A clause fixing damages for each day of delay is enforceable where the estimate of the loss was "
    "reasonable when the parties contracted. Northgate Foods, Inc. v. Arctic Coil Co., 512 F.3d 210, 211 "
    "(9th Cir. 2008).\n\n"
    "For each day of delay the Seller agreed to pay $200 as liquidated damages (HPP-000002).\n"
)


def test_verify_support_judges_every_citation_on_the_real_server_and_reports_it(
    llama_server: LlamaServerProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = build_demo_matter(tmp_path / "demo")
    paths = Paths.from_environment()
    paths.database_file.parent.mkdir(parents=True, exist_ok=True)
    src, dst = sqlite3.connect(demo.database_file), sqlite3.connect(paths.database_file)
    src.backup(dst)
    src.close()
    dst.close()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(
        f'[[backends]]\nname = "local"\nkind = "llamacpp"\nurl = "{llama_server.url}"\n'
        'roles = ["drafter", "reviewer"]\n\n[backends.sampling]\ntemperature = 0.0\nseed = 1\n'
        "max_tokens = 160\n",
        encoding="utf-8",
    )
    draft, report = tmp_path / "brief.md", tmp_path / "cite-check.json"
    draft.write_text(DRAFT, encoding="utf-8")
    argv = ["verify", str(draft), "--matter", demo.matter, "--authorities", demo.library, "--support"]
    main([*argv, "--report", str(report)])
    assert "support: 2/2 citations judged" in capsys.readouterr().out
    entries = json.loads(report.read_text())["entries"]
    assert [e["kind"] for e in entries] == ["case", "bates"]
    for entry in entries:
        assert entry["passage"] and entry["judgement"].startswith(f"{MODEL_JUDGEMENT}: ")
        label = entry["judgement"].removeprefix(f"{MODEL_JUDGEMENT}: ")
        assert label in (*LABELS, NO_EVIDENCE)
        # a kept judgement's span is verbatim in its passage; a discarded one shows none
        assert entry["span"] in entry["passage"] if label != NO_EVIDENCE else entry["span"] == ""
    assert "liquidated damages" in entries[1]["passage"]
    stored = pairs_of(paths.database_file, demo.matter, json.loads(report.read_text())["draft_sha256"])
    assert len(stored) == 2 and all(s["judgement"]["source"] == MODEL_JUDGEMENT for s in stored)
