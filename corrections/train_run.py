"""One training run, start to finish: choose the pairs, check the base, train, convert, register.

Everything is written into a hidden ``.NAME.partial`` folder beside the adapters, renamed to ``NAME``
only when the GGUF is converted, and registered after that. A cancelled or failed run removes its
partial folder; a run killed outright leaves one, which the next start of chambers (or the next run of
that name) clears once the run's lock on it has died with it. So the registry never names a
half-written adapter.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from corrections.adapters import AdapterRecord, adapters_dir, check_name_free, register
from corrections.train_base import check_base, load_base, load_tokenizer
from corrections.train_cache import base_cache_dir, cached_architecture, worth_caching
from corrections.train_convert import convert_adapter
from corrections.train_data import TrainingRefused, TrainingSelection, TrainingSet, select_pairs
from corrections.train_loop import (
    Example,
    LoraSettings,
    Progress,
    TrainingCancelled,
    batches,
    build_examples,
    run_loop,
    wrap_lora,
)
from corrections.train_time import expected_line, training_rate
from workspace.digest import file_sha256, tree_sha256
from workspace.leftovers import claim_partial

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class TrainRequest:
    name: str
    role: str
    base: Path  # the GGUF the role's server loads, or a Hugging Face model folder
    selection: TrainingSelection
    settings: LoraSettings = field(default_factory=LoraSettings)
    quantize_4bit: bool = False


def check_name(name: str) -> None:
    if not NAME_PATTERN.match(name):
        raise TrainingRefused(
            f"'{name}' cannot name an adapter: use letters, digits, '.', '_' or '-' (up to 64), starting "
            "with a letter or digit. The name becomes the file llama-server loads (NAME.gguf)."
        )


@dataclass(frozen=True)
class Prepared:
    training_set: TrainingSet
    architecture: str
    cache: Path | None  # where the dequantized base is kept (train_cache.py); None: not kept
    base_sha256: str | None  # hashed already when the base is kept


def prepare(db_path: Path, data_dir: Path, request: TrainRequest, converter_dir: Path) -> Prepared:
    """Every check that needs no weights: the name, the pairs, the base's architecture.

    The pairs come first, so a hopeless run stops before the base is hashed. The architecture is read
    from the cached copy of the base when there is one: parsing a GGUF's config alone takes seconds."""
    check_name(request.name)
    check_name_free(db_path, request.name)
    training_set = select_pairs(db_path, request.selection)
    cache = digest = None
    if request.base.is_file() and worth_caching(request.base, request.quantize_4bit):
        digest = file_sha256(request.base)
        cache = base_cache_dir(data_dir, digest)
    known = cached_architecture(cache, converter_dir) if cache is not None else None
    return Prepared(training_set, known or check_base(request.base, converter_dir), cache, digest)


def train_adapter(
    db_path: Path,
    data_dir: Path,
    request: TrainRequest,
    converter_dir: Path,
    *,
    on_stage: Callable[[str], None] = lambda _: None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> AdapterRecord:
    """Train, convert and register one adapter; returns its registry record."""
    ready = prepare(db_path, data_dir, request, converter_dir)
    training_set, architecture = ready.training_set, ready.architecture
    root = adapters_dir(data_dir)
    folder, partial = root / request.name, root / f".{request.name}.partial"
    claim = claim_partial(partial)  # held while this run lives, so a start elsewhere leaves it alone
    shutil.rmtree(partial, ignore_errors=True)  # left by a run that was killed
    if folder.exists():  # renamed but never registered: that run died between the two steps
        shutil.rmtree(folder)
    partial.mkdir(parents=True)
    try:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
        kept = ready.cache is not None and cached_architecture(ready.cache, converter_dir) is not None
        on_stage(f"Reading the tokenizer of {request.base.name} to measure the pairs")
        tokenizer = load_tokenizer(request.base, cache=ready.cache, converter_dir=converter_dir)
        examples, too_long = build_examples(tokenizer, training_set.train, request.settings.max_tokens)
        check_lengths(examples, too_long, request)
        copy = " (its dequantized copy from an earlier run)" if kept else ""
        on_stage(f"Loading the base model {request.base.name}{copy} on {device}")
        loaded = load_base(
            request.base,
            architecture,
            partial,
            device=device,
            quantize_4bit=request.quantize_4bit,
            cache=ready.cache,
            converter_dir=converter_dir,
            tokenizer=tokenizer,
        )
        _stop_here(should_stop, "after loading the base model")
        model = wrap_lora(loaded.model, request.settings)
        steps = batches(examples, request.settings)
        tokens = sum(len(e.input_ids) for batch in steps for e in batch)
        base_path = str(request.base.resolve())
        rate = training_rate(db_path, base_path=base_path, base_sha256=ready.base_sha256)
        longest = max(len(e.input_ids) for e in examples)
        on_stage(
            f"Training on {len(examples)} pairs of up to {longest} tokens: {len(steps)} steps "
            f"(held out: {len(training_set.held_out)}). "
            + expected_line("training run", tokens, rate, "of this base")
        )
        result = run_loop(
            model,
            steps,
            request.settings,
            pad_id=int(loaded.tokenizer.pad_token_id),
            device=device,
            on_progress=on_progress,
            should_stop=should_stop,
        )
        _stop_here(should_stop, "after training, before converting")
        model.save_pretrained(partial / "peft")
        on_stage("Converting the adapter to GGUF (llama.cpp's convert_lora_to_gguf.py)")
        gguf_name = f"{request.name}.gguf"
        convert_adapter(converter_dir, partial / "peft", loaded.config_dir, partial / gguf_name)
        summary = {
            "train_pair_ids": training_set.train_ids,
            "held_out_pair_ids": training_set.held_out_ids,
            "left_out_too_long": too_long,
            "settings": request.settings.as_dict(),
            "loss_curve": result.loss_curve,
        }
        (partial / "training.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        os.replace(partial, folder)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        claim.release()
        raise
    claim.release()
    on_stage("Hashing the base model and the adapter for the registry")
    record = AdapterRecord(
        name=request.name,
        role=request.role,
        backend=request.selection.backend,
        base_model=training_set.model,
        base_path=str(request.base.resolve()),
        base_sha256=ready.base_sha256 or tree_sha256(request.base),
        architecture=architecture,
        file=str(folder / gguf_name),
        file_sha256=file_sha256(folder / gguf_name),
        settings=request.settings.as_dict(),
        loss_curve=result.loss_curve,
        trained_tokens=result.trained_tokens,
        train_seconds=round(result.seconds, 1),
        train_pair_ids=[e.pair_id for e in examples],
        held_out_pair_ids=training_set.held_out_ids,
        base_size=request.base.stat().st_size if request.base.is_file() else None,
    )
    register(db_path, record)
    return record


def check_lengths(examples: list[Example], too_long: list[int], request: TrainRequest) -> None:
    """Refuse a length that leaves too few pairs; measured with the tokenizer, before any weights."""
    if len(examples) >= request.selection.min_training:
        return
    longest = max((len(e.input_ids) for e in examples), default=0)
    raise TrainingRefused(
        f"{len(too_long)} of the {len(examples) + len(too_long)} training pairs are longer than "
        f"{request.settings.max_tokens} tokens (--max-tokens), leaving {len(examples)}: too few to train "
        f"on (at least {request.selection.min_training}). Leave --max-tokens out to fit the longest pair"
        + (f" (the longest kept is {longest} tokens)" if longest else "")
        + ", or raise it (it costs memory and time). No weights were read."
    )


def _stop_here(should_stop: Callable[[], bool] | None, where: str) -> None:
    """Loading and converting take long too: a cancel asked for then is honoured at their end."""
    if should_stop is not None and should_stop():
        raise TrainingCancelled(f"Stopped {where}. Nothing was saved; run the training again.")
