"""Turns the JSON chunks of an OpenAI-compatible stream into chambers events.

Kept apart from the transport so the hot path (one call per token) stays
small and easy to read, and so the rules live in one place: ``timings`` ride on
the last JSON chunk, whose ``choices`` may be empty; ``usage`` comes in its own
chunk; an ``{"error": ...}`` chunk can arrive after HTTP 200.
"""

from __future__ import annotations

from typing import Any

from backends.errors import ServerHTTPError
from backends.events import (
    ContentDelta,
    Finished,
    PromptProgress,
    ReasoningDelta,
    StreamEvent,
    Timings,
    Usage,
)


class ChunkReader:
    """Reads chunks of one answer; keeps the text so far for the Finished event."""

    def __init__(self, backend: str, url: str) -> None:
        self.backend = backend
        self.url = url
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.finish_reason: str | None = None
        self.timings: Timings | None = None
        self.usage: Usage | None = None
        self.model: str | None = None

    def read(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        if "error" in chunk:
            raise self._error(chunk["error"])
        events: list[StreamEvent] = []
        self.model = chunk.get("model", self.model)
        progress = chunk.get("prompt_progress")
        if progress:
            events.append(
                PromptProgress(
                    total=int(progress.get("total", 0)),
                    cache=int(progress.get("cache", 0)),
                    processed=int(progress.get("processed", 0)),
                    time_ms=float(progress.get("time_ms", 0.0)),
                )
            )
        choices = chunk.get("choices")
        if choices:
            choice = choices[0]
            delta = choice.get("delta") or {}
            piece = delta.get("reasoning_content")
            if piece:
                self.reasoning.append(piece)
                events.append(ReasoningDelta(piece))
            piece = delta.get("content")
            if piece:
                self.text.append(piece)
                events.append(ContentDelta(piece))
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        if "timings" in chunk:
            self.timings = Timings.from_llamacpp(chunk["timings"])
        if chunk.get("usage"):
            self.usage = Usage.from_openai(chunk["usage"])
        return events

    @property
    def saw_end(self) -> bool:
        """Whether the server said the answer was over (finish reason, timings or usage)."""
        return self.finish_reason is not None or self.timings is not None or self.usage is not None

    def finished(self) -> Finished:
        return Finished(
            text="".join(self.text),
            reasoning="".join(self.reasoning),
            finish_reason=self.finish_reason,
            timings=self.timings,
            usage=self.usage,
            model=self.model,
        )

    def _error(self, error: Any) -> ServerHTTPError:
        if isinstance(error, dict):
            message, error_type, code = str(error.get("message", "")), error.get("type"), error.get("code")
        else:
            message, error_type, code = str(error), None, None
        return ServerHTTPError(
            f"Backend '{self.backend}' at {self.url} reported an error mid-answer: {message}",
            backend=self.backend,
            url=self.url,
            status=int(code) if isinstance(code, int) else 200,
            server_message=message,
            error_type=error_type,
        )
