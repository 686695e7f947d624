"""What model servers say about themselves, as small typed results shared by every kind's adapter.

The adapters (backends.adapter_base and one module per kind) fill these in; the fleet poller,
the doctor and the screens read them without knowing which kind of server answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Health:
    ok: bool
    status: str  # "ok", "loading model", or the server's own words


@dataclass(frozen=True)
class Props:
    """How a server was launched, as llama-server's ``/props`` says (launch profiles are checked by it)."""

    model: str | None
    n_ctx: int | None
    build: str | None
    total_slots: int | None
    endpoint_metrics: bool
    raw: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Slot:
    id: int
    n_ctx: int
    is_processing: bool
    n_decoded: int


@dataclass(frozen=True)
class OllamaModel:
    """A model an Ollama server has (``/api/tags``) or has loaded (``/api/ps``, with VRAM and window)."""

    name: str
    size: int
    size_vram: int | None = None
    context_length: int | None = None


@dataclass(frozen=True)
class ServerSample:
    """One poll of one backend, for the dashboard, the doctor and the workstation's backend list."""

    name: str
    kind: str
    health: str  # "ok", "loading", "down", "refused", "error", "checking"
    problem: str | None = None
    address_class: str | None = None
    model: str | None = None
    n_ctx: int | None = None
    build: str | None = None
    slots_busy: int | None = None
    slots_total: int | None = None
    requests_processing: float | None = None
    requests_deferred: float | None = None
    prompt_tok_s: float | None = None  # over the last interval; None when nothing was processed
    decode_tok_s: float | None = None
    decode_avg_tok_s: float | None = None  # the server's own lifetime average
    slots: tuple[Slot, ...] = ()
    loaded: tuple[OllamaModel, ...] = ()
    available: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.health == "ok"
