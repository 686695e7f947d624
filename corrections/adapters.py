"""The adapter registry: each LoRA trained from the corrections, what it came from, and how it scored.

An adapter is registered only once its GGUF file is whole in place (training writes into a temporary
folder and renames it at the end), so a row here always names a file that exists as it was trained.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corrections import schema as corrections_schema
from corrections.errors import CorrectionsError
from workspace.database import connect


class AdapterNotFound(CorrectionsError):
    title = "No such adapter"


class AdapterExists(CorrectionsError):
    title = "An adapter of that name already exists"


@dataclass(frozen=True)
class AdapterRecord:
    name: str
    role: str
    backend: str
    base_model: str  # the model name the pairs were drafted by
    base_path: str
    base_sha256: str
    architecture: str
    file: str  # the GGUF adapter llama-server loads with --lora
    file_sha256: str
    settings: dict[str, Any]
    loss_curve: list[float]
    trained_tokens: int
    train_seconds: float
    train_pair_ids: list[int]
    held_out_pair_ids: list[int]
    eval: dict[str, Any] | None = None
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    stale_reason: str | None = None
    id: int | None = None

    @property
    def folder(self) -> Path:
        return Path(self.file).parent


def adapters_dir(data_dir: Path) -> Path:
    return data_dir / "adapters"


def register(db_path: Path, record: AdapterRecord) -> int:
    db = connect(db_path, corrections_schema.SCHEMA)
    try:
        with db:
            try:
                cur = db.execute(
                    """INSERT INTO corrections_adapters (name, role, backend, base_model, base_path,
                       base_sha256, architecture, file, file_sha256, settings_json, loss_curve_json,
                       trained_tokens, train_seconds, eval_json, created_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (record.name, record.role, record.backend, record.base_model, record.base_path,
                     record.base_sha256, record.architecture, record.file, record.file_sha256,
                     json.dumps(record.settings), json.dumps(record.loss_curve), record.trained_tokens,
                     record.train_seconds, json.dumps(record.eval) if record.eval else None,
                     record.created_at),
                )  # fmt: skip
            except sqlite3.IntegrityError:
                raise _exists(record.name) from None
            adapter_id = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT INTO corrections_adapter_pairs (adapter_id, pair_id, split) VALUES (?, ?, ?)",
                [(adapter_id, p, "train") for p in record.train_pair_ids]
                + [(adapter_id, p, "held_out") for p in record.held_out_pair_ids],
            )
        return adapter_id
    finally:
        db.close()


def _exists(name: str) -> AdapterExists:
    return AdapterExists(
        f"There is already an adapter named '{name}'. Choose another --name, or remove the old one with "
        f"`chambers adapters delete {name} --yes`."
    )


def check_name_free(db_path: Path, name: str) -> None:
    """Refuse a taken name before training, not after minutes of it."""
    db = connect(db_path, corrections_schema.SCHEMA)
    try:
        if db.execute("SELECT 1 FROM corrections_adapters WHERE name = ?", (name,)).fetchone():
            raise _exists(name)
    finally:
        db.close()


def list_adapters(db_path: Path) -> list[AdapterRecord]:
    db = connect(db_path, corrections_schema.SCHEMA)
    try:
        rows = db.execute("SELECT * FROM corrections_adapters ORDER BY id").fetchall()
        return [_record(db, row) for row in rows]
    finally:
        db.close()


def get_adapter(db_path: Path, name: str) -> AdapterRecord:
    db = connect(db_path, corrections_schema.SCHEMA)
    try:
        row = db.execute("SELECT * FROM corrections_adapters WHERE name = ?", (name,)).fetchone()
        if row is None:
            known = [r[0] for r in db.execute("SELECT name FROM corrections_adapters ORDER BY id")]
            raise AdapterNotFound(
                f"There is no adapter named '{name}' (known: {', '.join(known) or 'none yet'}). "
                "`chambers train` makes one; `chambers adapters list` shows them."
            )
        return _record(db, row)
    finally:
        db.close()


def registered_sha256(db_path: Path, names: str | None) -> str | None:
    """The registry's sha256 of each named adapter ("a,b"), for a pair whose server is on another machine."""
    if not names:
        return None
    db = connect(db_path, corrections_schema.SCHEMA)
    try:
        found = [
            db.execute("SELECT file_sha256 FROM corrections_adapters WHERE name = ?", (n,)).fetchone()
            for n in names.split(",")
        ]
    finally:
        db.close()
    return ",".join(row[0] if row else "?" for row in found) if any(found) else None


def store_eval(db_path: Path, name: str, scores: dict[str, Any]) -> None:
    db = connect(db_path, corrections_schema.SCHEMA)
    try:
        with db:
            db.execute(
                "UPDATE corrections_adapters SET eval_json = ? WHERE name = ?", (json.dumps(scores), name)
            )
    finally:
        db.close()


def delete_adapter(db_path: Path, name: str) -> AdapterRecord:
    """Forget the adapter and remove its folder (the GGUF, the PEFT weights, the base config)."""
    record = get_adapter(db_path, name)
    db = connect(db_path, corrections_schema.SCHEMA)
    try:
        with db:
            db.execute("DELETE FROM corrections_adapters WHERE name = ?", (name,))
    finally:
        db.close()
    shutil.rmtree(record.folder, ignore_errors=True)
    return record


def _record(db: sqlite3.Connection, row: sqlite3.Row) -> AdapterRecord:
    splits: dict[str, list[int]] = {"train": [], "held_out": []}
    for pair_id, split in db.execute(
        "SELECT pair_id, split FROM corrections_adapter_pairs WHERE adapter_id = ? ORDER BY pair_id",
        (row["id"],),
    ):
        splits[split].append(int(pair_id))
    return AdapterRecord(
        id=int(row["id"]), name=row["name"], role=row["role"], backend=row["backend"],
        base_model=row["base_model"], base_path=row["base_path"], base_sha256=row["base_sha256"],
        architecture=row["architecture"], file=row["file"], file_sha256=row["file_sha256"],
        settings=json.loads(row["settings_json"]), loss_curve=json.loads(row["loss_curve_json"]),
        trained_tokens=int(row["trained_tokens"]), train_seconds=float(row["train_seconds"]),
        train_pair_ids=splits["train"], held_out_pair_ids=splits["held_out"],
        eval=json.loads(row["eval_json"]) if row["eval_json"] else None, created_at=row["created_at"],
        stale_reason=row["stale_reason"],
    )  # fmt: skip


def adapters_table(records: list[AdapterRecord]) -> list[str]:
    """Each adapter as one line of plain text: what it was trained on and how it scored over all tasks.

    The scores are the eval's last row (its "all" row, or the only task's row), base model against the
    adapter on the held-out pairs: a lower edit ratio and a higher chrF mean his edits were learnt.
    """
    if not records:
        return ["No adapters yet: `chambers train --role drafter --name NAME` makes one from these pairs."]
    name_width = max(4, *(len(r.name) for r in records))
    base_width = max(4, *(len(r.base_model) for r in records))
    lines = [
        f"{'name':<{name_width}}  {'base':<{base_width}}  trained  held out  "
        f"{'edit base→adapter':<17}  {'chrF base→adapter':<17}  state"
    ]
    for r in records:
        table = (r.eval or {}).get("table") or []
        overall = table[-1] if table else None
        edit = (
            f"{overall['base_edit_ratio']:.3f} → {overall['adapter_edit_ratio']:.3f}"
            if overall
            else "not evaluated"
        )
        score = f"{overall['base_chrf']:.1f} → {overall['adapter_chrf']:.1f}" if overall else ""
        state = f"stale: {r.stale_reason}" if r.stale_reason else "current"
        lines.append(
            f"{r.name:<{name_width}}  {r.base_model:<{base_width}}  {len(r.train_pair_ids):>7}  "
            f"{len(r.held_out_pair_ids):>8}  {edit:<17}  {score:<17}  {state}"
        )
    return lines
