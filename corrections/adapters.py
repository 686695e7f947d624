"""The adapter registry: each LoRA trained from the corrections, what it came from, and how it scored.

An adapter is registered only once its GGUF file is whole in place (training writes into a temporary
folder and renames it at the end), so a row here always names a file that exists as it was trained.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from corrections import store
from corrections.adapter_folder import adapters_dir as adapters_dir  # the registry's callers name it here
from corrections.errors import CorrectionsError
from corrections.model import AdapterRecord


class AdapterNotFound(CorrectionsError):
    title = "No such adapter"


class AdapterExists(CorrectionsError):
    title = "An adapter of that name already exists"


def register(db_path: Path, record: AdapterRecord) -> int:
    adapter_id = store.add_adapter(db_path, record)
    if adapter_id is None:
        raise _exists(record.name)
    return adapter_id


def _exists(name: str) -> AdapterExists:
    return AdapterExists(
        f"There is already an adapter named '{name}'. Choose another --name, or remove the old one with "
        f"`chambers adapters delete {name} --yes`."
    )


def check_name_free(db_path: Path, name: str) -> None:
    """Refuse a taken name before training, not after minutes of it."""
    if store.adapter_named(db_path, name) is not None:
        raise _exists(name)


def list_adapters(db_path: Path) -> list[AdapterRecord]:
    return store.all_adapters(db_path)


def get_adapter(db_path: Path, name: str) -> AdapterRecord:
    record = store.adapter_named(db_path, name)
    if record is None:
        known = [r.name for r in store.all_adapters(db_path)]
        raise AdapterNotFound(
            f"There is no adapter named '{name}' (known: {', '.join(known) or 'none yet'}). "
            "`chambers train` makes one; `chambers adapters list` shows them."
        )
    return record


def registered_sha256(db_path: Path, names: str | None) -> str | None:
    """The registry's sha256 of each named adapter ("a,b"), for a pair whose server is on another machine."""
    if not names:
        return None
    found = [store.adapter_named(db_path, n) for n in names.split(",")]
    return ",".join(r.file_sha256 if r else "?" for r in found) if any(found) else None


def store_eval(db_path: Path, name: str, scores: dict[str, Any]) -> None:
    store.set_adapter_eval(db_path, name, scores)


def delete_adapter(db_path: Path, name: str) -> AdapterRecord:
    """Forget the adapter and remove its folder (the GGUF, the PEFT weights, the base config)."""
    record = get_adapter(db_path, name)
    store.remove_adapter(db_path, name)
    shutil.rmtree(record.folder, ignore_errors=True)
    return record


def adapters_table(records: list[AdapterRecord], *, width: int | None = None) -> list[str]:
    """Each adapter as one line of plain text: what it was trained on and how it scored over all tasks.

    The scores are the eval's last row (its "all" row, or the only task's row), base model against the
    adapter on the held-out pairs: a lower edit ratio and a higher chrF mean his edits were learnt. With
    ``width`` (the TUI's pane) a table that would not fit puts each adapter's base and state on a line
    of its own under its scores, so the chrF and a stale note are not the part cut off at 80 columns.
    """
    if not records:
        # Two lines: one would be cut off at 80 columns, and its second half is what to do.
        return [
            "No adapters yet: `chambers train --role drafter --name NAME`",
            "(or t on this screen) makes one from these pairs.",
        ]
    rows = [_adapter_row(r) for r in records]
    name_width = max(4, *(len(r.name) for r in records))
    base_width = max(4, *(len(r.base_model) for r in records))
    counts = f"{'trained':>7}  {'held out':>8}  {'edit base→adapter':<17}  {'chrF base→adapter':<17}"
    wide = [f"{'name':<{name_width}}  {'base':<{base_width}}  {counts}  state"]
    wide += [
        f"{r.name:<{name_width}}  {r.base_model:<{base_width}}  {numbers}  {state}"
        for r, (numbers, state) in zip(records, rows, strict=True)
    ]
    if width is None or max(len(line) for line in wide) <= width:
        return wide
    narrow = [f"{'name':<{name_width}}  {counts}".rstrip()]
    for r, (numbers, state) in zip(records, rows, strict=True):
        narrow += [f"{r.name:<{name_width}}  {numbers}".rstrip(), f"  base {r.base_model} · {state}"]
    return narrow


def _adapter_row(r: AdapterRecord) -> tuple[str, str]:
    """An adapter's counts and scores (as the table's columns), and its state."""
    table = (r.eval or {}).get("table") or []
    overall = table[-1] if table else None
    edit = (
        f"{overall['base_edit_ratio']:.3f} → {overall['adapter_edit_ratio']:.3f}"
        if overall
        else "not evaluated"
    )
    score = f"{overall['base_chrf']:.1f} → {overall['adapter_chrf']:.1f}" if overall else ""
    state = f"stale: {r.stale_reason}" if r.stale_reason else "current"
    return f"{len(r.train_pair_ids):>7}  {len(r.held_out_pair_ids):>8}  {edit:<17}  {score:<17}", state
