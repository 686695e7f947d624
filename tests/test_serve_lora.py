"""``chambers serve``'s launch line loads the adapters its backend's config names, from the registry,
at scale 0 (each request of the role switches its own on, and requests from other clients get the base); a name the registry lacks is refused."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from corrections.adapters import register
from tests.test_train_checks import record
from tui.cli.main import main
from workspace.paths import Paths

CONFIG = """
[[backends]]
name = "workhorse"
kind = "llamacpp"
url = "http://127.0.0.1:8082"
roles = ["drafter"]
lora = [{ name = "demand-v3", scale = 1.0 }, { name = "tone-v1", scale = 0.5 }]

[[profiles]]
name = "cpu"
model = "/m/base.gguf"
backend = "workhorse"
"""


def test_the_launch_line_loads_the_backends_adapters_unapplied(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = Paths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(CONFIG, encoding="utf-8")
    register(paths.database_file, record("demand-v3", [1], [2]))
    assert main(["serve", "cpu", "--print-command"]) != 0
    refused = capsys.readouterr().err  # named in the config, never trained
    assert "Backend 'workhorse'" in refused and "names the adapter(s) tone-v1" in refused

    register(paths.database_file, record("tone-v1", [1], [2]))
    assert main(["serve", "cpu", "--print-command"]) == 0
    line = shlex.split(capsys.readouterr().out)
    flags = line[line.index("--lora-scaled") :][:5]
    assert flags == [
        "--lora-scaled",
        "/a/demand-v3/demand-v3.gguf:0",
        "--lora-scaled",
        "/a/tone-v1/tone-v1.gguf:0",
        "--lora-init-without-apply",
    ]
