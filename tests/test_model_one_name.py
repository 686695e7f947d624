"""One model, one name: a server chambers starts from a profile reports the backend's configured model
name (the one the demo and every run record) or the GGUF's own general.name, never the file path, so
stats and training do not see one model as two."""

from __future__ import annotations

import tomllib
from pathlib import Path

from backends.fleet.gguf_name import general_name, served_name
from backends.fleet.profiles import command, profiles_from_config
from tui.demo import DEMO_MODEL, demo_config, demo_config_text
from workspace.config import parse_config


def profile_config(text: str, model: Path, *, backend: str | None) -> str:
    """The demo config with its sample profile switched on, serving ``model`` for ``backend``."""
    lines = [
        line[2:] if (line.startswith("# ") and "=" in line) or line == "# [[profiles]]" else line
        for line in text.splitlines()
    ]
    out = []
    for line in lines:
        if line.startswith("model = ") and out and any(x == "[[profiles]]" for x in out):
            line = f'model = "{model}"'
        if line.startswith("backend = ") and any(x == "[[profiles]]" for x in out) and backend is None:
            continue
        if line.startswith('lora = ["adapters'):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def test_a_profile_for_the_demo_backend_serves_under_the_demos_name(tmp_path: Path, demo_model: Path) -> None:
    text = demo_config_text(
        demo_config("http://127.0.0.1:41234", str(tmp_path / "c.toml"), weights=str(demo_model))
    )
    config = parse_config(tomllib.loads(profile_config(text, demo_model, backend="demo-smollm2")), "c.toml")
    (profile,) = profiles_from_config(config)
    cmd = command(profile, "llama-server")
    assert cmd[cmd.index("--alias") + 1] == DEMO_MODEL, "the demo's own name, not the file path"


def test_a_profile_with_no_backend_name_serves_under_the_ggufs_own_name(
    tmp_path: Path, demo_model: Path
) -> None:
    assert general_name(demo_model) == "Smollm2 135M 8k Lc100K Mix1 Ep2"  # what the file itself says
    text = demo_config_text(
        demo_config("http://127.0.0.1:41234", str(tmp_path / "c.toml"), weights=str(demo_model))
    )
    config = parse_config(tomllib.loads(profile_config(text, demo_model, backend=None)), "c.toml")
    (profile,) = profiles_from_config(config)
    cmd = command(profile, "llama-server")
    name = cmd[cmd.index("--alias") + 1]
    assert (
        name
        == served_name(demo_model)
        == f"smollm2-135m-8k-lc100k-mix1-ep2-{demo_model.stat().st_size // 1_000_000}mb"
    )
    assert "/" not in name


def test_a_file_that_is_no_gguf_has_no_name(tmp_path: Path) -> None:
    fake = tmp_path / "x.gguf"
    fake.write_bytes(b"GGUF\x03\x00\x00\x00")  # a header cut short
    assert general_name(fake) is None and served_name(fake) is None
    assert general_name(tmp_path / "missing.gguf") is None
