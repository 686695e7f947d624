"""What a streaming model call yields, as small typed dataclasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ContentDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class PromptProgress:
    """llama.cpp ``prompt_progress`` (only when ``return_progress`` was sent)."""

    total: int
    cache: int
    processed: int
    time_ms: float

    @property
    def fraction(self) -> float:
        work = self.total - self.cache
        return 1.0 if work <= 0 else max(0.0, min(1.0, (self.processed - self.cache) / work))


@dataclass(frozen=True, slots=True)
class Timings:
    """The server's own figures for one call (llama.cpp ``timings``, or Ollama's durations)."""

    prompt_n: int = 0
    prompt_ms: float = 0.0
    prompt_per_second: float = 0.0
    predicted_n: int = 0
    predicted_ms: float = 0.0
    predicted_per_second: float = 0.0
    cache_n: int = 0

    @classmethod
    def from_llamacpp(cls, raw: dict[str, Any]) -> Timings:
        return cls(
            prompt_n=int(raw.get("prompt_n", 0)),
            prompt_ms=float(raw.get("prompt_ms", 0.0)),
            prompt_per_second=float(raw.get("prompt_per_second", 0.0)),
            predicted_n=int(raw.get("predicted_n", 0)),
            predicted_ms=float(raw.get("predicted_ms", 0.0)),
            predicted_per_second=float(raw.get("predicted_per_second", 0.0)),
            cache_n=int(raw.get("cache_n", 0)),
        )

    def as_dict(self) -> dict[str, float | int]:
        return {
            "prompt_n": self.prompt_n,
            "prompt_ms": self.prompt_ms,
            "prompt_per_second": self.prompt_per_second,
            "predicted_n": self.predicted_n,
            "predicted_ms": self.predicted_ms,
            "predicted_per_second": self.predicted_per_second,
            "cache_n": self.cache_n,
        }


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0

    @classmethod
    def from_openai(cls, raw: dict[str, Any]) -> Usage:
        details = raw.get("prompt_tokens_details") or {}
        return cls(
            prompt_tokens=int(raw.get("prompt_tokens", 0)),
            completion_tokens=int(raw.get("completion_tokens", 0)),
            total_tokens=int(raw.get("total_tokens", 0)),
            cached_tokens=int(details.get("cached_tokens", 0) or 0),
        )


@dataclass(frozen=True, slots=True)
class Finished:
    """The last event of a successful stream."""

    text: str
    reasoning: str
    finish_reason: str | None
    timings: Timings | None
    usage: Usage | None
    model: str | None


StreamEvent = ContentDelta | ReasoningDelta | PromptProgress | Finished
