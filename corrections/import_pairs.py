"""Pairs from another tool: ``chambers corrections import FILE.jsonl``, one (prompt, draft, final) row a line.

Each row needs ``prompt`` (the text the model was given, or a list of chat messages with ``role`` and
``content``), ``draft`` (what the model wrote) and ``final`` (his text); ``task_type``, ``model``,
``matter``, ``instructions`` and ``accepted_at`` may say more. Every row is checked before any is stored,
so a bad line stores nothing. An imported pair is stored with ``trigger = "import"`` and its origin (the
file, its sha256 and the line), and shown as imported wherever pairs are listed or counted. Rows already
stored (same prompt, draft, final and model) are stored once, as captured pairs are.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corrections.capture import capture
from corrections.errors import CorrectionsError
from corrections.model import CorrectionInput, DrafterMessage

REQUIRED = ("prompt", "draft", "final")
OPTIONAL = ("task_type", "model", "matter", "instructions", "accepted_at")
DEFAULT_TASK = "imported"


class ImportRefused(CorrectionsError):
    title = "Nothing was imported"


@dataclass(frozen=True)
class ImportSummary:
    stored: list[int]  # ids of the new pairs
    duplicates: list[int]  # ids of pairs already stored

    def line(self, file: Path) -> str:
        return (
            f"Imported {len(self.stored)} pair(s) from {file}"
            + (f"; {len(self.duplicates)} row(s) were already stored" if self.duplicates else "")
            + "."
        )


def _refuse(file: Path, number: int, problem: str) -> ImportRefused:
    return ImportRefused(
        f"{file} line {number}: {problem}. Each line must be a JSON object with non-empty strings "
        f'"prompt" (or a list of {{"role", "content"}} messages), "draft" and "final"; optional: '
        f"{', '.join(OPTIONAL)}. Fix that line and import the file again (nothing was stored)."
    )


def _messages(file: Path, number: int, prompt: Any) -> tuple[DrafterMessage, ...]:
    if isinstance(prompt, str) and prompt.strip():
        return (DrafterMessage("user", prompt),)
    if isinstance(prompt, list) and prompt:
        out = []
        for m in prompt:
            if not (
                isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
            ):
                raise _refuse(file, number, 'a message of "prompt" has no string "role" and "content"')
            out.append(DrafterMessage(m["role"], m["content"]))
        return tuple(out)
    raise _refuse(file, number, '"prompt" is missing, empty, or neither text nor a list of messages')


def parse_rows(file: Path) -> list[CorrectionInput]:
    """Every row of ``file`` as a pair to capture; the first bad line refuses the whole file."""
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise ImportRefused(f"{file} could not be read ({exc.strerror}). Check the path.") from exc
    digest = hashlib.sha256(raw).hexdigest()
    now = datetime.now(UTC).isoformat(timespec="seconds")
    items = []
    for number, text in enumerate(raw.decode("utf-8", errors="replace").splitlines(), start=1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _refuse(file, number, f"not JSON ({exc.msg} at character {exc.pos})") from exc
        if not isinstance(row, dict):
            raise _refuse(file, number, "not a JSON object")
        for key in ("draft", "final"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise _refuse(file, number, f'"{key}" is missing or not a non-empty string')
        messages = _messages(file, number, row.get("prompt"))
        extra = {k: row[k] for k in OPTIONAL if k in row}
        for key, value in extra.items():
            if not isinstance(value, str) or not value.strip():
                raise _refuse(file, number, f'"{key}" must be a non-empty string')
        items.append(
            CorrectionInput(
                task_type=extra.get("task_type", DEFAULT_TASK),
                instructions=extra.get("instructions", messages[-1].content),
                messages=messages,
                draft=row["draft"],
                final=row["final"],
                backend=None,
                model=extra.get("model"),
                server_build=None,
                accepted_at=extra.get("accepted_at", now),
                matter=extra.get("matter"),
                trigger="import",
                origin=f"{file.resolve()} (sha256 {digest}) line {number}",
            )
        )
    if not items:
        raise ImportRefused(f"{file} has no rows. Each line must be one JSON object (prompt, draft, final).")
    return items


def import_pairs(db_path: Path, file: Path) -> ImportSummary:
    items = parse_rows(file)
    stored: list[int] = []
    duplicates: list[int] = []
    for item in items:
        result = capture(db_path, item)
        (stored if result.stored else duplicates).append(result.pair_id)
    return ImportSummary(stored, duplicates)
