"""How long a pair may be is decided from the pairs (none left out by default), and a --max-tokens that
leaves too few is refused from the tokenizer alone, before any weights are read; train --help shows
every default."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from corrections.store import PairFilters
from corrections.train_data import TrainingRefused, TrainingSelection
from corrections.train_loop import LoraSettings, build_examples
from corrections.train_run import TrainRequest, train_adapter
from tests.support.train_pairs import store_pairs

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def weightless_base(tmp_path_factory: pytest.TempPathFactory, demo_model: Path) -> Path:
    """A Hugging Face folder with the demo model's tokenizer and a config but weights that are not
    weights: a run that read them would fail with transformers' own error, not with the refusal."""
    from transformers import AutoTokenizer, LlamaConfig

    folder = tmp_path_factory.mktemp("weightless-base")
    tokenizer = AutoTokenizer.from_pretrained(demo_model.parent, gguf_file=demo_model.name)
    tokenizer.save_pretrained(folder)
    LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
    ).save_pretrained(folder)
    (folder / "model.safetensors").write_bytes(b"not a safetensors file")
    return folder


def test_no_pair_is_left_out_by_default(weightless_base: Path, tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    from corrections.store import iter_pairs

    db = tmp_path / "chambers.sqlite3"
    store_pairs(db)
    pairs = list(iter_pairs(db))
    tokenizer = AutoTokenizer.from_pretrained(weightless_base)
    assert LoraSettings().max_tokens is None
    examples, too_long = build_examples(tokenizer, pairs, LoraSettings().max_tokens)
    assert len(examples) == len(pairs) and too_long == []
    shortest = min(len(e.input_ids) for e in examples)
    _, left_out = build_examples(tokenizer, pairs, shortest - 1)
    assert len(left_out) == len(pairs), "an explicit length still leaves longer pairs out"


def test_a_length_that_leaves_too_few_pairs_is_refused_before_the_weights(
    weightless_base: Path, tmp_path: Path
) -> None:
    from backends.local_server import ensure_lora_converter

    db = tmp_path / "chambers.sqlite3"
    store_pairs(db)
    request = TrainRequest(
        name="short",
        role="drafter",
        base=weightless_base,
        selection=TrainingSelection("local", PairFilters()),
        settings=LoraSettings(max_tokens=20),
    )
    stages: list[str] = []
    with pytest.raises(
        TrainingRefused, match=r"9 of the 9 training pairs are longer than 20 tokens"
    ) as caught:
        train_adapter(db, tmp_path / "data", request, ensure_lora_converter(), on_stage=stages.append)
    assert "No weights were read" in caught.value.message
    assert "Leave --max-tokens out" in caught.value.message
    assert not any(s.startswith("Loading the base model") for s in stages), stages
    assert not (tmp_path / "data" / "adapters" / ".short.partial").exists()


def test_train_help_shows_every_default() -> None:
    from tui.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    train = sub.choices["train"]
    for action in train._actions:
        if action.required or isinstance(action, argparse._HelpAction):
            continue
        assert action.help and "default" in action.help, f"{action.option_strings} names no default"
