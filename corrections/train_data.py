"""Which correction pairs a LoRA is trained on, and which are held back to judge it.

Nothing here imports torch: choosing pairs and refusing a hopeless run happen before any weights are
read, so a run that cannot succeed stops in a second with a message saying why, not after minutes of
loading a model.

The held-out split is by date: the newest fifth of the accepted pairs (at least ``MIN_HELD_OUT``) is
never trained on, because "does it write more like him" must be asked of drafts he made after the ones
it learned from, as the adapter will meet them in use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from corrections.errors import CorrectionsError
from corrections.model import StoredPair
from corrections.store import PairFilters, iter_pairs

HELD_OUT_SHARE = 0.2
MIN_HELD_OUT = 3
MIN_TRAINING = 6  # fewer than this teaches a model noise: refuse rather than pretend


class TrainingRefused(CorrectionsError):
    title = "Training was not started"


@dataclass(frozen=True)
class TrainingSelection:
    """What ``chambers train`` asked for, beyond the usual pair filters."""

    backend: str  # the role's backend: pairs it drafted are the ones he corrected for this role
    filters: PairFilters
    held_out_share: float = HELD_OUT_SHARE
    min_held_out: int = MIN_HELD_OUT
    min_training: int = MIN_TRAINING
    # A stored model name -> the name the same model goes by now (a file path the server once reported,
    # to the name it is served under), so pairs of one model under two names train as one model's.
    model_names: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TrainingSet:
    train: tuple[StoredPair, ...]
    held_out: tuple[StoredPair, ...]
    model: str  # the one base model every pair was drafted by

    @property
    def train_ids(self) -> list[int]:
        return [p.id for p in self.train]

    @property
    def held_out_ids(self) -> list[int]:
        return [p.id for p in self.held_out]


def select_pairs(db_path: Path, selection: TrainingSelection) -> TrainingSet:
    """The accepted pairs for one role's backend, split by date into training and held-out.

    Raises:
        TrainingRefused: no pairs, too few, or pairs drafted by more than one base model.
    """
    names = selection.model_names
    filters = selection.filters
    if filters.model:  # --model may name the model by either of its names
        filters = replace(filters, model=names.get(filters.model, filters.model))
    chosen = [
        p
        for p in (
            replace(p, model=names.get(p.model, p.model)) if p.model else p
            for p in iter_pairs(db_path)
            if p.backend == selection.backend
        )
        if filters.reason_left_out(p) is None
    ]
    described = _describe(selection)
    if not chosen:
        raise TrainingRefused(
            f"No accepted correction pairs match {described}. Accept edited drafts of this role "
            "(F8 in the workstation) or loosen the filters; `chambers corrections list` shows the pairs."
        )
    models = sorted({p.model or "(unknown model)" for p in chosen})
    if len(models) > 1:
        counts = ", ".join(
            f"{m}: {sum(1 for p in chosen if (p.model or '(unknown model)') == m)}" for m in models
        )
        raise TrainingRefused(
            f"The pairs matching {described} were drafted by {len(models)} different models ({counts}). "
            "An adapter fits one base model: pick one with --model, or --since the date the role "
            "changed models."
        )
    if models[0] == "(unknown model)":
        raise TrainingRefused(
            f"The pairs matching {described} do not record which model drafted them, so no base model "
            "can be chosen for them. Train on pairs captured from pipeline runs."
        )
    chosen.sort(key=lambda p: (p.accepted_at, p.id))
    held = max(selection.min_held_out, math.ceil(len(chosen) * selection.held_out_share))
    need = selection.min_training + selection.min_held_out
    if len(chosen) - held < selection.min_training:
        raise TrainingRefused(
            f"Only {len(chosen)} pair(s) match {described}; training needs at least {need} "
            f"({selection.min_training} to learn from and {selection.min_held_out} held back to measure "
            "the adapter on). Accept more edited drafts first, or loosen --since / --min-edit-ratio."
        )
    return TrainingSet(train=tuple(chosen[:-held]), held_out=tuple(chosen[-held:]), model=models[0])


def _describe(selection: TrainingSelection) -> str:
    parts = [f"backend '{selection.backend}'"]
    f = selection.filters
    if f.task:
        parts.append(f"task '{f.task}'")
    if f.model:
        parts.append(f"model '{f.model}'")
    if f.since:
        parts.append(f"accepted since {f.since}")
    if f.min_edit_ratio is not None:
        parts.append(f"edit ratio at least {f.min_edit_ratio:g}")
    return ", ".join(parts)
