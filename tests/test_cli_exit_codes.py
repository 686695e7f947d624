"""The command line's shared contract: one set of exit codes for every command, listed in --help, and a
closed pipe (``chambers runs show N | head``) ending the command quietly, as it would any Unix tool.

The commands run for real: subprocesses through a real pipe, a real SQLite database, a real config file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from drafting.store import RunStore
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.fakes import closed_port
from tests.support.pipeline_setup import INSTRUCTIONS, demo_database, role_config
from tests.support.scripted_server import scripted_server
from tui.cli import exit_codes
from tui.cli.main import main
from workspace.config import Config, config_to_toml
from workspace.paths import Paths

ROOT = Path(__file__).parents[1]
YES = {"basis": "yes", "reasons": ["The agreement."], "evidence": ["S1"]}
NO_BASIS = {"basis": "no", "reasons": ["Nothing shows a debt."], "evidence": []}


def chambers(*argv: str) -> list[str]:
    return [sys.executable, "-m", "tui.cli.main", *argv]


def environment(home: Path) -> dict[str, str]:
    return {**os.environ, "CHAMBERS_HOME": str(home), "PYTHONPATH": str(ROOT)}


def test_help_lists_the_exit_codes_for_the_command_and_each_subcommand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["--help"], ["runs", "show", "--help"], ["verify", "--help"], ["doctor", "--help"]):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        shown = capsys.readouterr().out
        assert "exit codes:" in shown, argv
        for code in ("0 ", "1 ", "2 ", "3 ", "130", "141"):
            assert f"\n  {code}" in shown, (argv, code)


def test_a_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["runs", "show", "not-a-number"])
    assert done.value.code == exit_codes.USAGE
    assert "invalid int value" in capsys.readouterr().err


def test_runs_show_into_a_reader_that_stops_early_ends_quietly(isolated_home: Path) -> None:
    """``| head`` closes the pipe after a few lines; the rest of the run must not become a traceback."""
    paths = Paths.from_environment()
    RunStore(paths.database_file).create("m", "motion", "Draft the motion. " * 40_000, "drafter", ["draft"])
    writer = subprocess.Popen(
        chambers("runs", "show", "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(isolated_home),
        cwd=ROOT,
    )
    assert writer.stdout is not None and writer.stderr is not None
    first = writer.stdout.readline()
    writer.stdout.close()  # what `head -1` does once it has its line
    errors = writer.stderr.read().decode()
    assert writer.wait(timeout=60) == exit_codes.BROKEN_PIPE
    assert first.startswith(b"Run 1 (created)")
    assert errors == "", errors  # no BrokenPipeError, no "Exception ignored" at exit


def test_runs_show_through_head_in_a_shell(isolated_home: Path) -> None:
    paths = Paths.from_environment()
    RunStore(paths.database_file).create("m", "motion", "Draft the motion. " * 40_000, "drafter", ["draft"])
    command = f"{sys.executable} -m tui.cli.main runs show 1 | head -2"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        capture_output=True,
        text=True,
        env=environment(isolated_home),
        cwd=ROOT,
        timeout=60,
    )
    assert done.stdout.splitlines()[0].startswith("Run 1 (created)")
    assert done.stderr == "" and done.returncode == exit_codes.BROKEN_PIPE


def write(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


def backend(name: str, url: str, role: str, extra: str = "") -> str:
    return f'[[backends]]\nname = "{name}"\nkind = "llamacpp"\nurl = "{url}"\nroles = ["{role}"]\n{extra}\n'


def test_config_shows_the_policy_verdict_and_exits_3_when_it_refuses_one(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        isolated_home,
        backend("office", "http://10.1.2.3:8080", "gate")
        + backend("cloud", "http://8.8.8.8:8080", "drafter"),
    )
    assert main(["config"]) == exit_codes.BACKEND
    out = capsys.readouterr().out
    assert "office" in out and "private, allowed" in out
    assert "REFUSED" in out and "The drafter step cannot use backend 'cloud'" in out
    assert "public internet address" in out


def test_config_shows_an_allowed_remote_backend_with_its_reason(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reason = 'allow_remote = true\nremote_reason = "the firm\'s own colocated server"'
    write(isolated_home, backend("colo", "http://8.8.8.8:8080", "drafter", reason))
    assert main(["config"]) == exit_codes.CLEAN
    assert "public, allowed: the firm's own colocated server" in capsys.readouterr().out


def test_a_misnamed_table_is_named_not_reported_as_a_double_declaration(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = backend("a", "http://127.0.0.1:8080", "drafter", "[backends.sampling]\ntemperature = 0.7")
    two = backend("b", "http://127.0.0.1:8081", "gate", "[backends.sampling]\ntemperature = 0.0")
    write(isolated_home, (one + two).replace("[[backends]]", "[[backend]]"))
    assert main(["config"]) == exit_codes.USAGE
    err = capsys.readouterr().err
    assert "line 1: `[[backend]]` is not a table chambers knows; did you mean `[[backends]]`?" in err
    # With a single misnamed table the file parses; the unknown key says the same.
    write(isolated_home, one.replace("[[backends]]", "[[backend]]"))
    assert main(["config"]) == exit_codes.USAGE
    assert "`backend`: unknown key; did you mean 'backends'?" in capsys.readouterr().err


def test_doctor_exits_3_when_a_backend_is_down(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(isolated_home, backend("asleep", f"http://127.0.0.1:{closed_port()}", "drafter"))
    assert main(["doctor"]) == exit_codes.BACKEND
    assert "asleep" in capsys.readouterr().out


def test_matter_list_with_no_matters_says_how_to_make_one(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["matter", "list"]) == exit_codes.CLEAN
    out = capsys.readouterr().out
    assert "No matters yet." in out and "`chambers matter new NAME --sources DIR" in out


@pytest.fixture
def matter_home(isolated_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Paths:
    paths = Paths.from_environment()
    demo_database(tmp_path_factory.mktemp("demo-matter"), paths.database_file)
    return paths


def draft_with(paths: Paths, tmp_path: Path, urls: dict[str, str], default: str) -> int:
    config = role_config(urls, default)
    no_router = Config(
        config.file, config.policy, (), tuple(b for b in config.backends if b.name != "router")
    )
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(config_to_toml(no_router))
    ask = tmp_path / "ask.txt"
    ask.write_text(INSTRUCTIONS)
    return main(["draft", "--matter", SAMPLE_MATTER, "--task", "demand-letter", "--instructions", str(ask)])


def test_draft_exit_codes_clean_blocked_by_the_gate_or_a_flag_and_a_server_down(
    matter_home: Paths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = "Dear Mr. Calder,\n\nPlease pay what the agreement says you owe.\n"
    flagged = "Dear Mr. Calder,\n\nThe freezer failed on March 3, 2031 (HPP-009999).\n"
    with (
        scripted_server(YES) as (gate, _),
        scripted_server(NO_BASIS) as (no_gate, _),
        scripted_server(clean) as (clean_drafter, _),
        scripted_server(flagged) as (flag_drafter, _),
        scripted_server({"findings": []}) as (reviewer, _),
    ):
        code = draft_with(matter_home, tmp_path, {"drafter": clean_drafter, "reviewer": reviewer}, gate)
        assert code == exit_codes.CLEAN, capsys.readouterr()
        assert "Final export: allowed." in capsys.readouterr().out
        code = draft_with(matter_home, tmp_path, {"drafter": flag_drafter, "reviewer": reviewer}, gate)
        assert code == exit_codes.BLOCKED
        assert "Final export: stopped." in capsys.readouterr().out
        code = draft_with(matter_home, tmp_path, {"drafter": clean_drafter, "reviewer": reviewer}, no_gate)
        assert code == exit_codes.BLOCKED
        assert "The gate found no basis" in capsys.readouterr().out
    down = f"http://127.0.0.1:{closed_port()}"
    assert draft_with(matter_home, tmp_path, {}, down) == exit_codes.BACKEND
    assert "cannot run locally" in capsys.readouterr().err
