"""``chambers draft`` and ``chambers runs``: progress, the draft with its flags, bad input, and a killed run resumed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.pipeline_setup import INSTRUCTIONS, demo_database, role_config
from tests.support.scripted_server import scripted_server
from tui.cli.main import main
from workspace.config import Backend, Config, Sampling, config_to_toml
from workspace.paths import Paths

YES = {"basis": "yes", "reasons": ["The agreement."], "evidence": ["S1"]}
DRAFT = "Dear Mr. Calder,\n\nThe freezer failed on March 3, 2031 (HPP-009999). Pay within 14 days.\n"
FINDING = {
    "findings": [
        {"quote": "Pay within 14 days.", "problem": "No sum.", "severity": "high", "fix": "Add it."},
        {"quote": "Nowhere in the draft.", "problem": "Misquoted.", "severity": "low", "fix": ""},
    ]
}


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    paths = Paths.from_environment()
    demo_database(tmp_path_factory.mktemp("demo-matter"), paths.database_file)
    return paths


def write_config(paths: Paths, config: Config) -> None:
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(config_to_toml(config))


def instructions(tmp_path: Path, text: str = INSTRUCTIONS) -> str:
    file = tmp_path / "instructions.txt"
    file.write_text(text)
    return str(file)


def test_draft_prints_progress_the_draft_and_its_flags_and_runs_show_the_record(
    home: Paths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (
        scripted_server(YES) as (gate, _),
        scripted_server(DRAFT) as (drafter, _),
        scripted_server(FINDING) as (rev, _),
    ):
        config = role_config({"drafter": drafter, "reviewer": rev}, gate)
        write_config(home, config)
        code = main(
            [
                "draft",
                "--matter",
                SAMPLE_MATTER,
                "--task",
                "demand-letter",
                "--instructions",
                instructions(tmp_path),
                "--drafter",
                "heavy",
            ]
        )
    out = capsys.readouterr().out
    assert code == 1, out  # completed, but a blocking flag stops the final export
    assert (
        "Prompt templates written to" in out and (home.config_file.parent / "prompts" / "motion.md").is_file()
    )
    for label in ("Routing", "The gate", "Drafting", "Adversarial review", "Verification"):
        assert f"  {label}" in out
    assert f"backend 'reviewer' at {rev}" in out
    assert DRAFT.strip() in out
    assert "reviewer high" in out and "verifier block  bates" in out
    assert "Review findings whose quote is not in the draft (1)" in out and "Misquoted." in out
    assert "Final export: stopped." in out

    assert main(["runs", "list"]) == 0
    assert "completed" in capsys.readouterr().out
    assert main(["runs", "show", "1"]) == 0
    shown = capsys.readouterr().out
    assert "Attorney's choice" in shown and "drafter draft -> heavy" in shown
    assert "Bates HPP-" in shown and "primary" in shown  # the context and its provenance
    assert "#3 draft [completed] role heavy; backend 'drafter'" in shown and "build b9999-scripted" in shown
    assert main(["runs", "show", "1", "--json"]) == 0
    assert '"task_type": "demand_letter"' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--matter", "no-such-matter", "--task", "motion"], "There is no matter named 'no-such-matter'"),
        (["--matter", SAMPLE_MATTER, "--task", "sonnet"], "There is no task type 'sonnet'"),
        (
            ["--matter", SAMPLE_MATTER, "--task", "motion", "--drafter", "giant"],
            "There is no drafter 'giant'",
        ),
    ],
)
def test_bad_input_is_named_with_what_to_do(
    home: Paths, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    write_config(home, role_config({}, "http://127.0.0.1:9"))
    assert main(["draft", *argv, "--instructions", instructions(tmp_path)]) == 2
    assert words in capsys.readouterr().err


def test_missing_or_empty_instructions_are_named(
    home: Paths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, role_config({}, "http://127.0.0.1:9"))
    assert (
        main(
            [
                "draft",
                "--matter",
                SAMPLE_MATTER,
                "--task",
                "motion",
                "--instructions",
                str(tmp_path / "nope.txt"),
            ]
        )
        == 2
    )
    assert f"There is no instructions file at {tmp_path / 'nope.txt'}" in capsys.readouterr().err
    assert (
        main(
            [
                "draft",
                "--matter",
                SAMPLE_MATTER,
                "--task",
                "motion",
                "--instructions",
                instructions(tmp_path, " \n"),
            ]
        )
        == 2
    )
    assert "is empty" in capsys.readouterr().err
    assert main(["runs", "show", "7"]) == 2
    assert "There is no run number 7" in capsys.readouterr().err


def test_a_run_killed_mid_draft_resumes_from_the_draft_stage(
    home: Paths, tmp_path: Path, llama_server: LlamaServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    with scripted_server(YES) as (gate, _), scripted_server({"findings": []}) as (rev, _):
        full = role_config({"gate": gate, "reviewer": rev}, llama_server.url)
        config = Config(full.file, full.policy, (), tuple(b for b in full.backends if b.name != "router"))
        slow = Sampling(temperature=0.0, seed=1, max_tokens=400)
        drafter = next(b for b in config.backends if b.name == "drafter")
        write_config(home, _with(config, Backend(**{**drafter.__dict__, "sampling": slow})))
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tui.cli.main",
                "draft",
                "--matter",
                SAMPLE_MATTER,
                "--task",
                "demand-letter",
                "--instructions",
                instructions(tmp_path),
            ],
            env={**os.environ},
            cwd=Path(__file__).parents[1],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            partial = _wait_for_partial(home.database_file, proc)
            os.kill(proc.pid, signal.SIGKILL)  # like a crash: no chance to tidy up
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
        write_config(home, _with(config, drafter))  # a short draft on resume keeps the test quick
        code = main(["runs", "resume", "1"])
    out = capsys.readouterr().out
    assert code == (0 if "Final export: allowed." in out else 1), (
        out
    )  # the verifier's verdict on the nonsense
    assert "Run 1: resuming at draft." in out
    db = sqlite3.connect(home.database_file)
    rows = db.execute("SELECT stage, status, output_text FROM drafting_stages ORDER BY seq").fetchall()
    db.close()
    assert [(r[0], r[1]) for r in rows] == [
        ("route", "completed"),
        ("gate", "completed"),
        ("draft", "interrupted"),
        ("draft", "completed"),
        ("review", "completed"),
        ("verify", "completed"),
    ]
    assert rows[2][2].startswith(partial) and partial


def _with(config: Config, backend: Backend) -> Config:
    backends = tuple(backend if b.name == backend.name else b for b in config.backends)
    return Config(config.file, config.policy, config.boards, backends)


def _wait_for_partial(database: Path, proc: subprocess.Popen[bytes]) -> str:
    """Wait until the running draft's partial text is on disk (the CLI saves it every 0.5 s)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if database.exists():
            db = sqlite3.connect(database)
            try:
                row = db.execute(
                    "SELECT output_text FROM drafting_stages WHERE stage = 'draft' AND status = 'running'"
                ).fetchone()
            except sqlite3.OperationalError:
                row = None
            finally:
                db.close()
            if row and row[0]:
                return str(row[0])
        time.sleep(0.05)
    raise AssertionError(f"no partial draft was saved (exit code {proc.poll()})")
