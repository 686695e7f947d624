"""The LoRA training loop: the pairs as token batches, loss only on his final text, progress and cancel.

Each example is exactly what the drafter was sent (its messages, through the base model's own chat
template, the template llama-server applies too) followed by the attorney's final text as the
assistant's answer. The prompt's tokens are masked out of the loss (label -100): the adapter learns to
write what he wrote, not to reproduce the sources it was given.

torch and peft are imported inside the functions (the ``[train]`` extra).
"""

from __future__ import annotations

import math
import random
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from corrections.errors import CorrectionsError
from corrections.model import StoredPair

IGNORE = -100  # the label transformers' loss skips


class TrainingCancelled(CorrectionsError):
    title = "Training cancelled"


class TemplateMismatch(CorrectionsError):
    title = "The base model's chat template cannot be used for training"


@dataclass(frozen=True)
class LoraSettings:
    r: int = 8
    alpha: int = 16
    dropout: float = 0.0
    target_modules: tuple[str, ...] = ("q_proj", "v_proj")
    learning_rate: float = 1e-3
    epochs: int = 3
    max_steps: int | None = None  # stops earlier than the epochs when set
    batch_size: int = 4
    # A longer pair is left out (and counted), never cut: a cut prompt lies. None: as long as the
    # longest pair, so every pair is trained on (the length is decided from the pairs).
    max_tokens: int | None = None
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["target_modules"] = list(self.target_modules)
        return out


@dataclass(frozen=True)
class Progress:
    step: int
    total_steps: int
    loss: float
    elapsed_s: float

    @property
    def eta_s(self) -> float:
        return self.elapsed_s / self.step * (self.total_steps - self.step) if self.step else math.nan

    def line(self) -> str:
        eta = "?" if math.isnan(self.eta_s) else f"{self.eta_s:.0f} s"
        return (
            f"step {self.step}/{self.total_steps}  loss {self.loss:.3f}  {self.elapsed_s:.0f} s, {eta} left"
        )


@dataclass
class Example:
    pair_id: int
    input_ids: list[int]
    labels: list[int]


@dataclass
class LoopResult:
    loss_curve: list[float] = field(default_factory=list)
    trained_tokens: int = 0  # every token the model read (prompt and answer), summed over steps
    seconds: float = 0.0
    left_out_long: list[int] = field(default_factory=list)  # pair ids longer than max_tokens


def build_examples(
    tokenizer: Any, pairs: Sequence[StoredPair], max_tokens: int | None
) -> tuple[list[Example], list[int]]:
    """Token ids and loss labels for each pair; also the ids of pairs too long to train on."""
    examples: list[Example] = []
    too_long: list[int] = []
    for pair in pairs:
        prompt_text, answer_text = split_chat(tokenizer, pair.messages, pair.final)
        prompt = tokenizer(prompt_text, add_special_tokens=False)["input_ids"]
        answer = tokenizer(answer_text, add_special_tokens=False)["input_ids"]
        if max_tokens is not None and len(prompt) + len(answer) > max_tokens:
            too_long.append(pair.id)
            continue
        examples.append(Example(pair.id, prompt + answer, [IGNORE] * len(prompt) + answer))
    return examples, too_long


def split_chat(tokenizer: Any, messages: list[dict[str, str]], final: str) -> tuple[str, str]:
    """The prompt as the server renders it (ending in the assistant's opening) and the answer after it."""
    if not getattr(tokenizer, "chat_template", None):
        raise TemplateMismatch(
            "The base model carries no chat template, so its prompts cannot be rebuilt as the server "
            "sends them. Use a chat (instruct) model as the role's base."
        )
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    full = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": final}], tokenize=False)
    if not full.startswith(prompt):
        raise TemplateMismatch(
            "The base model's chat template renders a conversation differently once the answer is added "
            "(the prompt is not a prefix of the full text), so the loss cannot be put on the answer "
            "alone. Use a base model whose template is a plain concatenation (ChatML, Llama 3, Gemma)."
        )
    return prompt, full[len(prompt) :]


def batches(examples: Sequence[Example], settings: LoraSettings) -> list[list[Example]]:
    """Every optimizer step's examples, shuffled per epoch with the settings' seed (reproducible)."""
    rng = random.Random(settings.seed)
    out: list[list[Example]] = []
    for _ in range(settings.epochs):
        order = list(examples)
        rng.shuffle(order)
        out.extend(order[i : i + settings.batch_size] for i in range(0, len(order), settings.batch_size))
    return out[: settings.max_steps] if settings.max_steps else out


def collate(batch: Sequence[Example], pad_id: int, device: str) -> dict[str, Any]:
    """Right-padded tensors: padding is masked from attention and from the loss."""
    import torch

    width = max(len(e.input_ids) for e in batch)
    ids = [e.input_ids + [pad_id] * (width - len(e.input_ids)) for e in batch]
    labels = [e.labels + [IGNORE] * (width - len(e.labels)) for e in batch]
    mask = [[1] * len(e.input_ids) + [0] * (width - len(e.input_ids)) for e in batch]
    return {
        "input_ids": torch.tensor(ids, device=device),
        "labels": torch.tensor(labels, device=device),
        "attention_mask": torch.tensor(mask, device=device),
    }


def quiet_library_notices() -> None:
    """Keep the libraries' notices to their own developers out of the attorney's training output:
    transformers warns (FutureWarning) that peft still reads ``is_gradient_checkpointing``, on every run,
    about nothing he can change. Installed for the process, as training runs in a worker thread too."""
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"(transformers|peft)(\.|$)")


def wrap_lora(model: Any, settings: LoraSettings) -> Any:
    from peft import LoraConfig, get_peft_model

    quiet_library_notices()

    config = LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=list(settings.target_modules),
        task_type="CAUSAL_LM",
    )
    try:
        return get_peft_model(model, config)
    except ValueError as exc:  # a target module the base does not have
        raise CorrectionsError(
            f"The LoRA target modules {list(settings.target_modules)} do not fit this base model ({exc}). "
            "Use --target-modules with its attention projections (for Llama-like models q_proj,v_proj).",
            title="The LoRA settings do not fit the base model",
        ) from exc


def run_loop(
    model: Any,
    steps: Sequence[Sequence[Example]],
    settings: LoraSettings,
    *,
    pad_id: int,
    device: str,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> LoopResult:
    """Train ``model`` (already wrapped with LoRA) for one optimizer step per batch.

    Raises:
        TrainingCancelled: ``should_stop`` said so between two steps (nothing is saved here).
    """
    import torch

    torch.manual_seed(settings.seed)
    model.train()
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate
    )
    result = LoopResult()
    start = time.monotonic()
    for number, batch in enumerate(steps, start=1):
        if should_stop is not None and should_stop():
            raise TrainingCancelled(
                f"Stopped at step {number - 1} of {len(steps)}. Nothing was saved; run `chambers train` again."
            )
        inputs = collate(batch, pad_id, device)
        loss = model(**inputs).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        result.loss_curve.append(round(float(loss.detach()), 5))
        result.trained_tokens += int(inputs["attention_mask"].sum())
        if on_progress is not None:
            on_progress(Progress(number, len(steps), result.loss_curve[-1], time.monotonic() - start))
    result.seconds = time.monotonic() - start
    return result
