"""The flywheel from the demo with no hand-written config: the demo config names its base weights and a
sample launch profile, the sample matter ships enough accepted pairs to train on (marked as sample
data), a trained adapter can be served by the demo, and the [train] extra is offered with its command."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from backends.fleet.profiles import profiles_from_config
from corrections.adapters import AdapterRecord, register
from corrections.sample_pairs import SAMPLE_TAG, SAMPLE_TRIGGER, add_sample_pairs
from corrections.store import PairFilters, iter_pairs, list_pairs
from corrections.train_data import TrainingSelection, select_pairs
from evidence.sample_matter import SAMPLE_MATTER
from tui.corrections.train_extra import TRAIN_MODULES, missing_train_module, train_extra_problem
from tui.demo import DEMO_BACKEND, DEMO_MODEL, demo_adapter_flags, demo_config, demo_config_text
from workspace.config import parse_config, starter_config_text
from workspace.digest import file_sha256
from workspace.errors import ChambersError
from workspace.paths import Paths

REPO = Path(__file__).resolve().parent.parent


def uncommented_profile(text: str) -> str:
    """The config with its commented [[profiles]] block switched on, as he would uncomment it."""
    lines = text.splitlines()
    start = lines.index("# [[profiles]]")
    out = lines[:start]
    for line in lines[start:]:
        out.append(line[2:] if line.startswith("# ") else line)
    return "\n".join(out) + "\n"


def test_the_demo_config_names_the_gguf_it_serves_and_a_sample_profile(tmp_path: Path) -> None:
    model = tmp_path / "smollm2.gguf"
    config = demo_config("http://127.0.0.1:41234", str(tmp_path / "config.toml"), weights=str(model))
    text = demo_config_text(config)
    parsed = parse_config(tomllib.loads(text), "demo")
    assert parsed.backend_for_role("drafter").weights == str(model)
    assert "[[profiles]]" not in tomllib.loads(text), "the sample profile is a comment until he wants it"
    switched_on = parse_config(tomllib.loads(uncommented_profile(text)), "demo")
    (profile,) = profiles_from_config(switched_on)
    assert (profile.name, profile.model, profile.backend) == ("demo-local", str(model), DEMO_BACKEND)


def test_the_demo_config_carries_the_adapter_it_serves(tmp_path: Path) -> None:
    config = demo_config("http://127.0.0.1:41234", str(tmp_path / "c.toml"), adapter="demo-v1")
    parsed = parse_config(tomllib.loads(demo_config_text(config)), "demo")
    assert [ref.name for ref in parsed.backend_for_role("drafter").lora] == ["demo-v1"]


def test_the_demo_config_asks_for_drafts_as_long_as_it_is_told(tmp_path: Path) -> None:
    default = parse_config(tomllib.loads(demo_config_text(demo_config("http://127.0.0.1:1", "c.toml"))), "d")
    short = demo_config("http://127.0.0.1:1", str(tmp_path / "c.toml"), max_tokens=96)
    parsed = parse_config(tomllib.loads(demo_config_text(short)), "demo")
    assert default.backend_for_role("drafter").sampling.max_tokens == 512
    assert parsed.backend_for_role("drafter").sampling.max_tokens == 96


def test_the_starter_config_carries_a_commented_launch_profile() -> None:
    text = starter_config_text()
    assert "# [[profiles]]" in text
    (profile,) = profiles_from_config(parse_config(tomllib.loads(uncommented_profile(text)), "starter"))
    assert (profile.name, profile.backend) == ("workhorse-a", "workhorse")
    assert profile.gpus == (4, 5, 8, 9), "its GPUs come from board-a"


def test_the_sample_matter_ships_enough_pairs_to_train_on_marked_as_sample(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    added = add_sample_pairs(db, backend=DEMO_BACKEND, model=DEMO_MODEL, matter=SAMPLE_MATTER)
    assert added >= 9
    chosen = select_pairs(db, TrainingSelection(DEMO_BACKEND, PairFilters()))
    assert len(chosen.train) >= 6 and len(chosen.held_out) >= 3
    assert chosen.model == DEMO_MODEL
    pairs = list(iter_pairs(db))
    assert {p.trigger for p in pairs} == {SAMPLE_TRIGGER}
    assert all(SAMPLE_TAG in (p.tags or []) for p in list_pairs(db))
    assert add_sample_pairs(db, backend=DEMO_BACKEND, model=DEMO_MODEL, matter=SAMPLE_MATTER) == 0, (
        "a second start of the demo adds nothing"
    )


def adapter(db: Path, tmp_path: Path, base: Path, *, name: str = "demo-v1") -> AdapterRecord:
    file = tmp_path / f"{name}.gguf"
    file.write_bytes(b"GGUF adapter bytes")
    record = AdapterRecord(
        name=name,
        role="drafter",
        backend=DEMO_BACKEND,
        base_model=DEMO_MODEL,
        base_path=str(base),
        base_sha256=file_sha256(base),
        architecture="LlamaForCausalLM",
        file=str(file),
        file_sha256=file_sha256(file),
        settings={},
        loss_curve=[1.0],
        trained_tokens=1,
        train_seconds=1.0,
        train_pair_ids=[1],
        held_out_pair_ids=[2],
    )
    register(db, record)
    return record


def test_the_demo_serves_a_trained_adapter_of_its_own_model_only(isolated_home: Path, tmp_path: Path) -> None:
    paths = Paths.from_environment()
    paths.database_file.parent.mkdir(parents=True, exist_ok=True)
    model = tmp_path / "demo.gguf"
    model.write_bytes(b"the demo model")
    record = adapter(paths.database_file, tmp_path, model)
    # At scale 0 for every request that does not name it, as chambers serves every adapter.
    assert demo_adapter_flags(paths, "demo-v1", model) == [
        "--lora-scaled",
        f"{record.file}:0",
        "--lora-init-without-apply",
    ]
    other = tmp_path / "other.gguf"
    other.write_bytes(b"another model")
    with pytest.raises(ChambersError, match=r"trained on .*demo.gguf, not on the demo's model"):
        demo_adapter_flags(paths, "demo-v1", other)
    with pytest.raises(ChambersError, match=r"no adapter named 'demo-v2' \(known: demo-v1\)"):
        demo_adapter_flags(paths, "demo-v2", model)
    Path(record.file).unlink()
    with pytest.raises(ChambersError, match="which is gone"):
        demo_adapter_flags(paths, "demo-v1", model)


def test_a_missing_train_extra_is_offered_with_the_exact_command() -> None:
    assert missing_train_module(("json", "chambers_no_such_module")) == "chambers_no_such_module"
    problem = train_extra_problem(("json", "chambers_no_such_module"))
    assert problem is not None and "chambers_no_such_module is not installed" in problem
    assert f"make -C {REPO} demo-train" in problem and "[train]" in problem
    assert missing_train_module(TRAIN_MODULES) is None, "this environment has the extra (make test)"
    assert "make demo-train" in (REPO / "README.md").read_text()
    assert "\ndemo-train:" in (REPO / "Makefile").read_text()


def test_eval_for_another_role_is_refused_naming_the_adapters_role(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli.main import main

    paths = Paths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.database_file.parent.mkdir(parents=True, exist_ok=True)
    # Port 9 (discard): nothing answers there, so a replay that started would fail as a server error (3).
    paths.config_file.write_text(
        demo_config_text(demo_config("http://127.0.0.1:9", str(paths.config_file))), encoding="utf-8"
    )
    model = tmp_path / "demo.gguf"
    model.write_bytes(b"the demo model")
    adapter(paths.database_file, tmp_path, model)
    assert main(["eval", "--role", "reviewer", "--adapter", "demo-v1"]) == 2
    err = capsys.readouterr().err
    assert "Adapter 'demo-v1' was trained for the drafter, not the reviewer" in err
    assert "chambers eval --role drafter --adapter demo-v1" in err


def test_a_demo_adapter_is_offered_with_the_command_that_serves_it() -> None:
    from tui.corrections.train_dialog import serve_hint

    assert "`chambers demo --adapter demo-v1`" in serve_hint(DEMO_BACKEND, "demo-v1")
    assert 'lora = [{ name = "v2" }]' in serve_hint("workhorse", "v2")
