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


def test_settings_replace_drop_and_add_keys_of_the_copy_only(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    with_array = CONFIG.replace("n_cpu_moe = 4\n", 'n_cpu_moe = 4\noverride_tensor = [\n  "exps=CPU",\n]\n')
    config_file.write_text(with_array, encoding="utf-8")
    rules = "['^blk\\.(0|2)\\.ffn_up_exps\\.weight$=CPU']"  # a TOML literal string keeps the backslashes
    settings = {"override_tensor": rules, "n_cpu_moe": None, "cpu_moe": None, "ctx_size": "4096"}
    add_commented_entry(config_file, "moe", "moe-placed", Path("/models/moe.F16.gguf"), "placed", settings)
    text = config_file.read_text(encoding="utf-8")
    assert text.startswith(with_array.split("\n\n")[0])
    before, block = text.split("# [[profiles]]\n", 1)
    block = "\n".join(line.removeprefix("# ") for line in block.splitlines()).replace("8091", "8093")
    config_file.write_text(before + "[[profiles]]\n" + block + "\n", encoding="utf-8")
    placed = profile_named(load_config(config_file), "moe-placed")
    assert placed.override_tensor == ("^blk\\.(0|2)\\.ffn_up_exps\\.weight$=CPU",)
    assert placed.n_cpu_moe is None and not placed.cpu_moe and placed.ctx_size == 4096 and placed.port == 8093
    assert profile_named(load_config(config_file), "moe").override_tensor == ("exps=CPU",)
