"""What a correction pair and a trained adapter hold, as plain values, so capture works from a run, a
test or a script."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
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
    trigger: str = "accept"  # "accept", "save" for an explicit "save correction", "import" from a file
    adapter: str | None = None  # the LoRA adapter(s) the draft was written with, by name
    adapter_sha256: str | None = None
    origin: str | None = None  # where an imported pair came from (file, its sha256, line)


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
    origin: str | None = None  # an imported pair's file and line

    @property
    def imported(self) -> bool:
        return self.trigger == "import"

    @property
    def model_label(self) -> str:
        """The model as lists show it: an imported pair says so, whatever model its row named."""
        return f"{self.model or '-'} (imported)" if self.imported else self.model or "-"


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
    base_size: int | None = None  # the base file's size in bytes (None for a folder, or an older record)

    @property
    def folder(self) -> Path:
        return Path(self.file).parent


@dataclass(frozen=True)
class PairRow:
    """A stored pair as its columns hold it, the JSON still encoded: the export splices the prompt in as it is.

    The fields are the table's columns, named and ordered as the store selects them."""

    id: int
    matter: str | None
    task_type: str
    instructions: str
    messages_json: str
    sources_json: str
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
    adapter: str | None
    adapter_sha256: str | None
    rating: int | None
    rationale: str | None
    tags_json: str | None
    origin: str | None

    @classmethod
    def of(cls, row: tuple[Any, ...]) -> PairRow:
        values = list(row)
        values[19] = bool(values[19])
        return cls(*values)

    def pair(self) -> StoredPair:
        """The pair with its JSON columns decoded; every other column is carried over by its name."""
        return StoredPair(
            **{name: getattr(self, name) for name in _CARRIED_OVER},
            messages=json.loads(self.messages_json),
            sources=json.loads(self.sources_json),
            tags=json.loads(self.tags_json or "[]"),
        )


_ENCODED = ("messages_json", "sources_json", "tags_json")
_CARRIED_OVER = tuple(f.name for f in fields(PairRow) if f.name not in _ENCODED)


@dataclass(frozen=True)
class RatioRow:
    """What the statistics read of a pair."""

    model: str | None
    task_type: str
    accepted_at: str
    edit_ratio: float
    adapter: str | None
    imported: bool = False
