"""The config: the starter file, round-trips, and every bad input named in the issue."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tui.cli.main import main
from workspace.config import (
    ConfigError,
    ConfigMissing,
    NoBackendForRole,
    config_to_toml,
    load_config,
    parse_config,
    starter_config_text,
)
from workspace.paths import Paths

GOOD = """
[policy]
local_only = true

[[boards]]
name = "board-a"
host = "chassis1"
gpus = [4, 5, 8, 9]

[[backends]]
name = "workhorse"
kind = "llamacpp"
url = "http://127.0.0.1:8082"
roles = ["drafter"]
board = "board-a"
[backends.sampling]
temperature = 0.7
top_k = 40
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_for(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    return info.value


def test_starter_config_mirrors_the_mission_topology() -> None:
    config = parse_config(tomllib.loads(starter_config_text()), "starter")
    assert config.policy.local_only is True
    boards = {b.name: b.gpus for b in config.boards}
    assert boards["board-a"] == (4, 5, 8, 9)
    assert boards["board-b"] == (6, 7, 10, 11)
    assert {b.kind for b in config.backends} == {"llamacpp", "ollama"}
    for role in ("router", "gate", "drafter", "heavy", "reviewer", "extractor"):
        assert config.backend_for_role(role).roles.count(role) == 1


def test_good_config_loads_with_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    backend = config.backend_for_role("drafter")
    assert backend.min_decode_tok_s == 40.0
    assert backend.sampling.as_dict() == {"temperature": 0.7, "top_k": 40}
    assert backend.allow_remote is False


def test_written_with_tomli_w_and_read_back_unchanged(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    again = load_config(write(tmp_path, config_to_toml(config)))
    assert again.backends == config.backends and again.boards == config.boards


def test_missing_config_says_to_run_init(tmp_path: Path) -> None:
    with pytest.raises(ConfigMissing) as info:
        load_config(tmp_path / "nope.toml")
    assert "chambers init" in info.value.message and "nope.toml" in info.value.message


def test_toml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    err = error_for(tmp_path, "[policy\nlocal_only = true\n")
    assert "config.toml" in err.message and "not valid TOML" in err.message and "line 1" in err.message


def test_wrong_type_names_key_and_expectation(tmp_path: Path) -> None:
    err = error_for(tmp_path, GOOD.replace("local_only = true", 'local_only = "yes"'))
    assert err.key == "policy.local_only"
    assert "expected true or false" in err.message and "'yes'" in err.message


def test_wrong_type_inside_a_list(tmp_path: Path) -> None:
    err = error_for(tmp_path, GOOD.replace("gpus = [4, 5, 8, 9]", 'gpus = [4, "five"]'))
    assert err.key == "boards[0].gpus[1]" and "whole number" in err.message


def test_unknown_role(tmp_path: Path) -> None:
    err = error_for(tmp_path, GOOD.replace('roles = ["drafter"]', 'roles = ["drafer"]'))
    assert err.key == "backends[0].roles[0]"
    assert "unknown role 'drafer'" in err.message and "drafter" in err.message


def test_duplicate_backend_name(tmp_path: Path) -> None:
    second = '\n[[backends]]\nname = "workhorse"\nkind = "ollama"\nurl = "http://127.0.0.1:11434"\n'
    err = error_for(tmp_path, GOOD + second)
    assert err.key == "backends[1]" and "duplicate backend name 'workhorse'" in err.message


def test_role_given_to_two_backends(tmp_path: Path) -> None:
    second = (
        '\n[[backends]]\nname = "other"\nkind = "ollama"\nurl = "http://127.0.0.1:11434"\n'
        'roles = ["drafter"]\n'
    )
    err = error_for(tmp_path, GOOD + second)
    assert "role 'drafter' is already given to backend 'workhorse'" in err.message


@pytest.mark.parametrize("url", ["127.0.0.1:8080", "localhost:8080", "ftp://127.0.0.1", "http://"])
def test_url_without_scheme(tmp_path: Path, url: str) -> None:
    err = error_for(tmp_path, GOOD.replace("http://127.0.0.1:8082", url))
    assert err.key == "backends[0].url" and "scheme" in err.message


def test_unknown_key_is_an_error_not_ignored(tmp_path: Path) -> None:
    err = error_for(tmp_path, GOOD.replace('kind = "llamacpp"', 'kind = "llamacpp"\nallow_remot = true'))
    assert err.key == "backends[0].allow_remot" and "unknown key" in err.message


def test_allow_remote_needs_a_reason(tmp_path: Path) -> None:
    err = error_for(tmp_path, GOOD.replace('kind = "llamacpp"', 'kind = "llamacpp"\nallow_remote = true'))
    assert err.key == "backends[0].remote_reason"


def test_board_must_exist(tmp_path: Path) -> None:
    err = error_for(tmp_path, GOOD.replace('board = "board-a"', 'board = "board-z"'))
    assert err.key == "backends[0].board" and "board-z" in err.message


def test_no_backend_for_role_refuses_rather_than_falls_back(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    with pytest.raises(NoBackendForRole) as info:
        config.backend_for_role("reviewer")
    assert "reviewer" in info.value.message


def test_init_writes_starter_and_will_not_overwrite(capsys: pytest.CaptureFixture[str]) -> None:
    paths = Paths.from_environment()
    assert main(["init"]) == 0
    assert load_config(paths.config_file).backends
    paths.config_file.write_text("# mine\n" + paths.config_file.read_text())
    assert main(["init"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert paths.config_file.read_text().startswith("# mine")


def test_cli_with_missing_config_exits_nonzero_with_advice(isolated_home: Path) -> None:
    env = {"CHAMBERS_HOME": str(isolated_home), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "config"],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).parents[1],
        check=False,
    )
    assert result.returncode == 2
    assert "chambers init" in result.stderr and "No config file yet" in result.stderr
