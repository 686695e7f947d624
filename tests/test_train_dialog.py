"""Training from the workstation (t on the corrections screen): the real training code in a thread worker,
its progress shown as it goes, the adapter converted and registered; and Esc stopping a run with nothing
kept.

The base is a Llama model of two small layers with SmolLM2-135M's own tokenizer and chat template, built
here with random weights and saved as a Hugging Face folder (a base chambers accepts): every step of the
training, the conversion by llama.cpp's converter and the registry run for real, in seconds rather than
the minutes SmolLM2 itself takes (tests/test_train_lora.py trains, serves and evaluates that one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import ProgressBar, Static

from corrections.adapters import list_adapters
from corrections.train_loop import Progress
from tests.conftest import make_backend
from tests.support.train_pairs import store_pairs
from tests.test_corrections_screen import open_corrections
from tui.app import create_app
from tui.corrections.train_dialog import TrainScreen
from workspace.config import Config, Policy

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def small_base(tmp_path_factory: pytest.TempPathFactory, demo_model: Path) -> Path:
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("small-base")
    tokenizer = AutoTokenizer.from_pretrained(demo_model.parent, gguf_file=demo_model.name)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=512,
        tie_word_embeddings=True,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


async def until(check: Any, pilot: Any, seconds: float = 300) -> None:
    for _ in range(int(seconds / 0.2)):
        if check():
            return
        await pilot.pause(0.2)
    raise AssertionError("timed out")


async def open_training(pilot: Any) -> TrainScreen:
    await open_corrections(pilot)
    await pilot.press("t")
    await until(lambda: isinstance(pilot.app.screen, TrainScreen), pilot, 10)
    dialog = pilot.app.screen
    assert isinstance(dialog, TrainScreen)
    return dialog


def app_for(home: Path, base: Path) -> Any:
    db = home / "data" / "chambers.sqlite3"
    store_pairs(db)
    backend = make_backend("http://127.0.0.1:9", weights=str(base))
    return create_app(Config(file="config.toml", policy=Policy(), boards=(), backends=(backend,)), db)


async def test_training_shows_its_steps_and_registers_the_converted_adapter(
    isolated_home: Path, small_base: Path
) -> None:
    app = app_for(isolated_home, small_base)
    seen: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_training(pilot)
        original = dialog.progress

        def watched(step: Progress) -> None:
            seen.append(step.line())
            original(step)

        dialog.progress = watched  # type: ignore[method-assign]
        await pilot.press("enter")
        stage = dialog.query_one("#train-stage", Static)
        await until(lambda: str(stage.render()).startswith("Adapter '"), pilot)
        assert dialog.query_one("#train-progress", ProgressBar).percentage == 1.0
        await pilot.press("escape")
        await until(lambda: not isinstance(pilot.app.screen, TrainScreen), pilot, 10)
    (record,) = list_adapters(isolated_home / "data" / "chambers.sqlite3")
    assert record.role == "drafter" and Path(record.file).is_file() and len(record.loss_curve) == len(seen)
    assert seen[0].startswith("step 1/") and "loss" in seen[0] and "left" in seen[0]


async def test_esc_stops_a_run_and_keeps_nothing(isolated_home: Path, small_base: Path) -> None:
    app = app_for(isolated_home, small_base)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_training(pilot)
        await pilot.press("enter")
        await pilot.press("escape")  # while the base loads: the run stops once it is loaded
        stage = dialog.query_one("#train-stage", Static)
        await until(lambda: str(stage.render()).startswith("Cancelled."), pilot)
        assert pilot.app.screen is dialog  # the first Esc stops the run; the dialog stays to say so
        await pilot.press("escape")
        await until(lambda: not isinstance(pilot.app.screen, TrainScreen), pilot, 10)
    assert list_adapters(isolated_home / "data" / "chambers.sqlite3") == []
    adapters = isolated_home / "data" / "adapters"
    assert not adapters.exists() or list(adapters.iterdir()) == []  # no adapter, no partial folder
