"""What a correction pair holds, as plain values, so capture works from a run, a test or a script."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SourceRef:
    """One evidence chunk a message carried, with the provenance the refusal needs."""

    label: str
    path: str
    page_no: int
    bates: str | None
    sha256: str
    primary: bool


@dataclass(frozen=True)
class DrafterMessage:
    """One message exactly as the drafter received it, and the evidence chunks inside it."""

    role: str
    content: str
    sources: tuple[SourceRef, ...] = ()

    def as_chat(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class CorrectionInput:
    """Everything a pair keeps. Timestamps are ISO 8601 strings (UTC)."""

    task_type: str
    instructions: str
    messages: tuple[DrafterMessage, ...]
    draft: str
    final: str
    backend: str | None
    model: str | None
    server_build: str | None
    accepted_at: str
    drafted_at: str | None = None
    matter: str | None = None
    run_id: int | None = None
    trigger: str = "accept"  # "accept", or "save" for an explicit "save correction"
    adapter: str | None = None  # the LoRA adapter(s) the draft was written with, by name
    adapter_sha256: str | None = None


@dataclass(frozen=True)
class StoredPair:
    id: int
    matter: str | None
    task_type: str
    instructions: str
    messages: list[dict[str, str]]
    sources: list[dict[str, Any]]
    draft: str
    final: str
    backend: str | None
    model: str | None
    server_build: str | None
    run_id: int | None
    trigger: str
    drafted_at: str | None
    accepted_at: str
    captured_at: str
    words_added: int
    words_removed: int
    edit_ratio: float
    excluded: bool
    paragraphs: list[dict[str, Any]] = field(default_factory=list)
    adapter: str | None = None
    adapter_sha256: str | None = None
    rating: int | None = None  # his 1-5 rating of the model's draft at accept, if he gave one
    rationale: str | None = None  # his one line on why
    tags: list[str] = field(default_factory=list)

    @classmethod
    def from_row(cls, row: sqlite3.Row | Mapping[str, Any]) -> StoredPair:
        return cls(
            id=int(row["id"]), matter=row["matter"], task_type=row["task_type"],
            instructions=row["instructions"], messages=json.loads(row["messages_json"]),
            sources=json.loads(row["sources_json"]), draft=row["draft"], final=row["final"],
            backend=row["backend"], model=row["model"], server_build=row["server_build"],
            run_id=row["run_id"], trigger=row["trigger"], drafted_at=row["drafted_at"],
            accepted_at=row["accepted_at"], captured_at=row["captured_at"],
            words_added=int(row["words_added"]), words_removed=int(row["words_removed"]),
            edit_ratio=float(row["edit_ratio"]), excluded=bool(row["excluded"]),
            adapter=row["adapter"], adapter_sha256=row["adapter_sha256"], rating=row["rating"],
            rationale=row["rationale"], tags=json.loads(row["tags_json"] or "[]"),
        )  # fmt: skip
