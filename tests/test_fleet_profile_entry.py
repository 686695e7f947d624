"""The commented [[profiles]] entry a requantization leaves beside its original, in a real config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.fleet.profile_entry import ProfileEntryError, add_commented_entry
from backends.fleet.profiles import profile_named, profiles_from_config
from workspace.config import load_config

CONFIG = """# my fleet
[[profiles]]
name = "moe"
model = "/models/moe.F16.gguf"
port = 8091
n_cpu_moe = 4

[[profiles]]
name = "other"
model = "/models/other.gguf"
port = 8092
"""


def test_the_entry_is_commented_beside_its_original_and_serves_once_uncommented(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text(CONFIG, encoding="utf-8")
    add_commented_entry(
        config_file, "moe", "moe-hot", tmp_path / "moe-hot.gguf", "requantized along his traffic"
    )
    text = config_file.read_text(encoding="utf-8")
    assert text.startswith(CONFIG.split("\n\n")[0])  # the original and what precedes it are untouched
    assert text.index("# requantized along his traffic") < text.index('name = "other"')
    assert [p.name for p in profiles_from_config(load_config(config_file))] == ["moe", "other"]
    uncommented = text.replace("# [[profiles]]", "[[profiles]]").replace("# name", "name")
    uncommented = uncommented.replace("# model", "model").replace("# n_cpu_moe", "n_cpu_moe")
    uncommented = uncommented.replace("# port = 8091", "port = 8093")
    config_file.write_text(uncommented, encoding="utf-8")
    new = profile_named(load_config(config_file), "moe-hot")
    assert new.model == str(tmp_path / "moe-hot.gguf") and new.n_cpu_moe == 4 and new.port == 8093
    with pytest.raises(ProfileEntryError, match="no \\[\\[profiles\\]\\] entry named 'gone'"):
        add_commented_entry(config_file, "gone", "x", tmp_path / "x.gguf", "note")
