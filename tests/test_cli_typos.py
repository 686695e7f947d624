"""A typo on the command line is named as the typo, with the names that would have worked: a matter, a task
type in any spelling `draft` accepts, a role, a launch profile; a corpus too short for `agree` says so and
how long it must be, with the run's own log; transformers' notices stay out of training's output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tui.cli.main import main

REPO = Path(__file__).resolve().parent.parent
CONFIG = """
[[boards]]
name = "board-a"
host = "chassis1"
gpus = [0]
[[backends]]
name = "workhorse"
kind = "llamacpp"
url = "http://127.0.0.1:8082"
roles = ["drafter"]
board = "board-a"
[[profiles]]
name = "smol"
model = "models/smol.gguf"
board = "board-a"
backend = "workhorse"
"""


def _config(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(CONFIG, encoding="utf-8")


def test_parties_of_a_misspelt_matter_are_refused_naming_the_known_ones(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from corrections.scrub import party_list
    from evidence.matters import create_matter

    db = isolated_home / "data" / "chambers.sqlite3"
    db.parent.mkdir(parents=True)
    (tmp_path / "sources").mkdir()
    create_matter(db, "harbor-point", [tmp_path / "sources"])
    assert main(["corrections", "parties", "harbour-point", "--add", "Harbor Point Provisions LLC"]) == 2
    err = capsys.readouterr().err
    assert "There is no matter named 'harbour-point'" in err and "Known matters: harbor-point" in err
    assert party_list(db, "harbour-point") == {}
    assert main(["corrections", "parties", "harbor-point", "--add", "Harbor Point Provisions LLC"]) == 0


def test_every_spelling_draft_accepts_finds_the_tasks_pairs(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from corrections.filters import PairFilters
    from corrections.train_data import TrainingSelection, select_pairs
    from drafting.tasks import DraftingInputError
    from tests.support.train_pairs import store_pairs

    db = isolated_home / "data" / "chambers.sqlite3"
    store_pairs(db)

    def chosen(task: str) -> list[int]:
        picked = select_pairs(db, TrainingSelection("local", PairFilters(task=task), min_training=4))
        return picked.train_ids + picked.held_out_ids

    assert chosen("demand_letter")
    for spelling in ("demand-letter", "Demand Letter", "demand"):
        assert chosen(spelling) == chosen("demand_letter"), spelling
    with pytest.raises(DraftingInputError, match=r"There is no task type 'demand-leter'.*demand-letter"):
        PairFilters(task="demand-leter")
    out = tmp_path / "d.jsonl"
    assert (
        main(["corrections", "export", "--format", "sft", "--out", str(out), "--task", "demand-letter"]) == 0
    )
    assert len(out.read_text().splitlines()) == len(chosen("demand_letter"))
    assert "Exported 0" not in capsys.readouterr().out


def test_a_misspelt_role_lists_the_roles(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _config(isolated_home)
    assert main(["train", "--role", "drafterr", "--name", "v1"]) == 2
    err = capsys.readouterr().err
    assert "There is no role 'drafterr'. Did you mean 'drafter'?" in err
    assert "router, gate, drafter, heavy, reviewer, support, extractor" in err and "Add 'drafterr'" not in err


def test_a_misspelt_profile_is_named_as_the_typo(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(isolated_home)
    assert main(["serve", "smol-b"]) == 2
    err = capsys.readouterr().err
    assert "There is no profile named 'smol-b'. Did you mean 'smol'?" in err
    assert "The profiles in" in err and "Check the name you typed" in err and "Fix it in the file" not in err


def test_a_short_corpus_is_refused_with_the_minimum(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from backends.local_server import ensure_demo_model

    model = ensure_demo_model()
    short = tmp_path / "SHORT.md"
    short.write_text("The tile arrived cracked and the buyer rejected it.\n" * 3, encoding="utf-8")
    assert main(["agree", "--reference", str(model), "--candidate", str(model), "--corpus", str(short)]) == 2
    err = capsys.readouterr().err
    assert f"The corpus '{short}' is too short: 156 characters" in err
    assert "at least 128 tokens (about 512 characters)" in err and "see the log" not in err


def test_each_agree_run_keeps_its_own_log_and_errors_name_it(tmp_path: Path) -> None:
    from backends.fleet.agree import AgreeError, AgreementRunner
    from backends.local_server import ensure_llama_tool

    perplexity = ensure_llama_tool("llama-perplexity")
    not_a_model = tmp_path / "broken.gguf"
    not_a_model.write_text("not a model", encoding="utf-8")
    corpus = "The tile arrived cracked and the buyer rejected it. " * 40
    logs = []
    for _ in range(2):
        runner = AgreementRunner(perplexity, tmp_path / "agree", threads=1)
        with pytest.raises(AgreeError) as caught:
            runner.measure(not_a_model, not_a_model, corpus, "finals")
        assert f"The whole output is in {runner.log}." in caught.value.message
        logs.append(runner.log)
    assert all(log.is_file() and "llama-perplexity" in log.read_text() for log in logs)
    assert logs[0] != logs[1]  # the second run did not overwrite the log the first one named


def test_transformers_notices_stay_out_of_training_output() -> None:
    """The real libraries in a fresh interpreter: a tiny Llama wrapped as training wraps its base."""
    script = (
        "from transformers import LlamaConfig, LlamaForCausalLM\n"
        "from corrections.train_loop import LoraSettings, wrap_lora\n"
        "m = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32,"
        " num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2))\n"
        "wrap_lora(m, LoraSettings(target_modules=('q_proj',)))\n"
        "print('wrapped')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "wrapped" in done.stdout, done.stderr
    assert "Warning" not in done.stderr, done.stderr


def test_the_doctor_shows_the_real_build_of_chambers_own_server(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cached llama-server, built from an archive without git, says b0-unknown of itself."""
    import httpx

    from backends.local_server import (
        TEST_SERVER_ARGS,
        LlamaServerProcess,
        build_number,
        ensure_demo_model,
        ensure_llama_server,
    )

    binary = ensure_llama_server()
    with LlamaServerProcess(
        binary,
        ensure_demo_model(),
        extra_args=(*TEST_SERVER_ARGS, "-t", "1"),
        log_file=tmp_path / "server.log",
    ) as server:
        said = httpx.get(f"{server.url}/props", timeout=30).json()["build_info"]
        assert said in ("b0-unknown", f"b{build_number()}-unknown")  # built before or after the fix
        isolated_home.mkdir(parents=True, exist_ok=True)
        (isolated_home / "config.toml").write_text(
            f'[[backends]]\nname = "demo"\nkind = "llamacpp"\nurl = "{server.url}"\nroles = ["drafter"]\n',
            encoding="utf-8",
        )
        main(["doctor"])
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if line.strip().startswith("demo "))
    assert row.rstrip().endswith(f"b{build_number()}-unknown") and "b0-" not in table
