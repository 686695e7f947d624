"""LoRA training's checks that need no weights: which pairs, the dated split, the refusals, the registry,
the config's ``lora`` field, chrF against sacrebleu, and the workstation never importing torch."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from backends.lora import (
    AdapterMissing,
    LoadedAdapter,
    complete_field,
    launch_flags,
    parse_loaded,
    request_field,
)
from corrections import schema as corrections_schema
from corrections.adapters import AdapterExists, AdapterRecord, get_adapter, list_adapters, register
from corrections.chrf import chrf
from corrections.store import PairFilters, delete_pair, set_excluded
from corrections.train_base import UnsupportedBase, check_base
from corrections.train_data import TrainingRefused, TrainingSelection, select_pairs
from corrections.train_run import check_name
from tests.support.train_pairs import PAIRS, store_pairs
from workspace.config import ConfigError, LoraRef, parse_config
from workspace.database import connect

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "chambers.sqlite3"


def selection(**filters: object) -> TrainingSelection:
    return TrainingSelection(backend="local", filters=PairFilters(**filters))  # type: ignore[arg-type]


def test_the_newest_fifth_is_held_out_by_date(db: Path) -> None:
    ids = store_pairs(db)
    chosen = select_pairs(db, selection())
    assert chosen.train_ids == ids[:9]
    assert chosen.held_out_ids == ids[9:]  # ceil(12 * 0.2) = 3, the three accepted last
    assert chosen.model == "smollm2-135m-instruct"
    demands = TrainingSelection(backend="local", filters=PairFilters(task="demand_letter"), min_training=4)
    only_demands = select_pairs(db, demands)
    assert {p.task_type for p in only_demands.train + only_demands.held_out} == {"demand_letter"}


def test_zero_pairs_are_refused_with_what_to_do(db: Path) -> None:
    connect(db, corrections_schema.SCHEMA).close()
    with pytest.raises(TrainingRefused, match=r"No accepted correction pairs match backend 'local'.*F8"):
        select_pairs(db, selection())


def test_too_few_pairs_are_refused_before_training(db: Path) -> None:
    store_pairs(db, count=5)
    with pytest.raises(TrainingRefused, match=r"Only 5 pair\(s\).*at least 9"):
        select_pairs(db, selection())


def test_pairs_from_two_base_models_are_refused_naming_both(db: Path) -> None:
    store_pairs(db, count=10)
    store_pairs(db, count=4, model="qwen3-8b")
    with pytest.raises(
        TrainingRefused, match=r"2 different models \(qwen3-8b: 4, smollm2-135m-instruct: 10\)"
    ):
        select_pairs(db, selection())
    assert len(select_pairs(db, selection(model="smollm2-135m-instruct")).train) == 7


def test_other_backends_pairs_are_not_this_roles(db: Path) -> None:
    store_pairs(db, backend="reviewer-box")
    with pytest.raises(TrainingRefused, match="No accepted correction pairs"):
        select_pairs(db, selection())


def test_adapter_names_become_file_names_so_paths_are_refused() -> None:
    check_name("demand-v3")
    for bad in ("../x", "a/b", "", ".hidden", "x" * 65):
        with pytest.raises(TrainingRefused, match="cannot name an adapter"):
            check_name(bad)


def test_a_base_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(UnsupportedBase, match="does not exist"):
        check_base(missing, tmp_path)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(UnsupportedBase, match=r"neither a \.gguf file nor a Hugging Face model folder"):
        check_base(text, tmp_path)


def record(name: str, train: list[int], held: list[int]) -> AdapterRecord:
    return AdapterRecord(
        name=name,
        role="drafter",
        backend="local",
        base_model="smollm2-135m-instruct",
        base_path="/m/base.gguf",
        base_sha256="b" * 64,
        architecture="LlamaForCausalLM",
        file=f"/a/{name}/{name}.gguf",
        file_sha256="f" * 64,
        settings={"r": 8},
        loss_curve=[4.5, 1.0],
        trained_tokens=100,
        train_seconds=1.0,
        train_pair_ids=train,
        held_out_pair_ids=held,
    )


def test_excluding_or_deleting_a_trained_pair_marks_the_adapter_stale(db: Path) -> None:
    ids = store_pairs(db)
    register(db, record("demand-v1", ids[:9], ids[9:]))
    register(db, record("other", ids[:2], ids[2:5]))
    with pytest.raises(AdapterExists, match="already an adapter named 'demand-v1'"):
        register(db, record("demand-v1", ids[:9], ids[9:]))
    set_excluded(db, ids[10], True)  # held out, not trained on: the adapter is not stale
    assert get_adapter(db, "demand-v1").stale_reason is None
    set_excluded(db, ids[4], True)
    delete_pair(db, ids[5])
    assert get_adapter(db, "demand-v1").stale_reason == f"pair {ids[4]} excluded; pair {ids[5]} deleted"
    assert get_adapter(db, "other").stale_reason is None
    assert [r.name for r in list_adapters(db)] == ["demand-v1", "other"]
    assert get_adapter(db, "demand-v1").train_pair_ids == ids[:9]  # the record keeps the deleted pair's id
    set_excluded(db, ids[4], False)  # included again: only the deleted pair still makes it stale
    assert get_adapter(db, "demand-v1").stale_reason == f"pair {ids[5]} deleted"
    set_excluded(db, ids[1], True)
    set_excluded(db, ids[1], False)
    assert get_adapter(db, "other").stale_reason is None  # excluded and included again: current


def test_chrf_matches_sacrebleu() -> None:
    from sacrebleu.metrics import CHRF

    reference = CHRF()
    finals = [final for _, _, final in PAIRS]
    texts = [*finals[1:], "Dear Sir or Madam, I am writing to you regarding the matter.", "", "a"]
    for text, final in zip(texts, finals * 2, strict=False):
        assert chrf(text, final) == pytest.approx(reference.sentence_score(text, [final]).score, abs=1e-9)


def test_config_lora_is_parsed_and_checked() -> None:
    def backend(**extra: object) -> dict[str, object]:
        return {
            "name": "w",
            "kind": "llamacpp",
            "url": "http://127.0.0.1:8080",
            "roles": ["drafter"],
            **extra,
        }

    config = parse_config(
        {
            "backends": [
                backend(lora=[{"name": "demand-v3"}, {"name": "x", "scale": 0.5}], weights="/m/base.gguf")
            ]
        },
        "c.toml",
    )
    assert config.backends[0].lora == (LoraRef("demand-v3", 1.0), LoraRef("x", 0.5))
    assert config.backends[0].weights == "/m/base.gguf"
    with pytest.raises(ConfigError, match=r"backends\[0\]\.lora\[0\]\.nme.*unknown key"):
        parse_config({"backends": [backend(lora=[{"nme": "a"}])]}, "c.toml")
    with pytest.raises(ConfigError, match=r"backends\[0\]\.lora.*duplicate adapter name 'a'"):
        parse_config({"backends": [backend(lora=[{"name": "a"}, {"name": "a"}])]}, "c.toml")
    with pytest.raises(ConfigError, match="only llama-server"):
        parse_config({"backends": [backend(kind="ollama", model="m", lora=[{"name": "a"}])]}, "c.toml")


def test_request_field_uses_the_servers_ids_and_refuses_a_missing_adapter() -> None:
    config = parse_config(
        {
            "backends": [
                {
                    "name": "w",
                    "kind": "llamacpp",
                    "url": "http://127.0.0.1:8080",
                    "lora": [{"name": "demand-v3", "scale": 0.8}],
                }
            ]
        },
        "c.toml",
    ).backends[0]
    loaded = parse_loaded(
        [
            {"id": 0, "path": "/a/other.gguf", "scale": 0.0},
            {"id": 1, "path": "/a/demand-v3/demand-v3.gguf", "scale": 0.0},
        ]
    )
    assert loaded[1] == LoadedAdapter(1, "demand-v3", "/a/demand-v3/demand-v3.gguf", 0.0)
    # Every loaded adapter is listed: one the backend does not name at 0, or the server's own scale applies.
    assert request_field(config, loaded) == [{"id": 0, "scale": 0.0}, {"id": 1, "scale": 0.8}]
    plain = replace(config, lora=())
    assert request_field(plain, loaded) == [{"id": 0, "scale": 0.0}, {"id": 1, "scale": 0.0}]
    assert request_field(plain, []) is None  # no adapters on the server: no field at all
    assert complete_field([{"id": 1, "scale": 1.0}], loaded) == [
        {"id": 0, "scale": 0.0},
        {"id": 1, "scale": 1.0},
    ]
    with pytest.raises(
        AdapterMissing, match=r"'w' at http://127.0.0.1:8080 has not loaded .*demand-v3.*has: other"
    ):
        request_field(config, loaded[:1])
    assert launch_flags(["/a/x.gguf", "/a/b:c.gguf"]) == [
        "--lora-scaled",
        "/a/x.gguf:0",
        "--lora",
        "/a/b:c.gguf",
        "--lora-init-without-apply",
    ]


def test_the_workstation_never_imports_torch() -> None:
    """Opening the workstation, the CLI and the corrections room must work without the [train] extra."""
    code = (
        "import sys, json; import tui.app, tui.cli.main, tui.cli.train, corrections.train_run, "
        "corrections.train_eval, drafting.replay; from tui.cli.main import build_parser; build_parser(); "
        "print(json.dumps(sorted(m for m in ('torch', 'transformers', 'peft') if m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert json.loads(done.stdout) == []


def test_stats_compare_drafts_made_with_and_without_an_adapter(db: Path) -> None:
    from dataclasses import replace

    from corrections.capture import capture
    from corrections.stats import ALL_TASKS, compute_stats
    from tests.support.train_pairs import pair_input

    store_pairs(db, count=4)
    for i in range(4, 8):
        capture(db, replace(pair_input(i), adapter="demand-v1", adapter_sha256="d" * 64))
    rows = {(r.model, r.task_type): r.drafts for r in compute_stats(db)}
    assert rows[("smollm2-135m-instruct", ALL_TASKS)] == 4
    assert rows[("smollm2-135m-instruct + demand-v1", ALL_TASKS)] == 4


def test_the_evals_blocks_column_is_the_verifiers_count_on_the_pairs_matter(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    from corrections.train_eval import verifier_blocks
    from tests.support.pipeline_setup import demo_database

    database = demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")
    count = verifier_blocks(database)
    assert count("Calder was paid $52,000 (HPP-000004).", "harbor-point") >= 1  # a figure no record supports
    assert count("Please respond within ten days.", "harbor-point") == 0
    assert (
        count("Calder was paid $52,000 (HPP-000004).", "no-such-matter") is None
    )  # nothing to check against
    assert count("anything", None) is None


def test_export_writes_the_split_an_adapter_trained_on(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    from tui.cli.main import main
    from workspace.paths import Paths

    home_db = Paths.from_environment().database_file
    ids = store_pairs(home_db)
    register(home_db, record("demand-v1", ids[:9], ids[9:]))
    for split, expected in (("train", 9), ("eval", 3)):
        out = tmp_path / f"{split}.jsonl"
        assert (
            main(
                [
                    "corrections",
                    "export",
                    "--format",
                    "sft",
                    "--out",
                    str(out),
                    "--split",
                    split,
                    "--adapter",
                    "demand-v1",
                ]
            )
            == 0
        )
        assert len(out.read_text(encoding="utf-8").splitlines()) == expected
    assert (
        main(["corrections", "export", "--format", "sft", "--out", str(tmp_path / "x"), "--split", "train"])
        == 2
    )
