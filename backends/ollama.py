"""Ollama: who it is and what it has loaded (``/api/version``, ``/api/tags``, ``/api/ps``).

Its chat is the OpenAI-compatible endpoint every kind speaks (backends.chat); it has no
tokenizer, slots or counters over HTTP, and says its context window only while the model is
loaded.
"""

from __future__ import annotations

from typing import Any

from backends.adapter_base import Identity, ServerAdapter, optional
from backends.server_facts import OllamaModel, ServerSample


class OllamaServer(ServerAdapter):
    KIND = "ollama"
    LABEL = "Ollama"
    BUILD_PATH = "/api/version"
    PROCESS_NAMES = ("ollama", "ollama_llama_se")  # its runner's "ollama_llama_server", cut at 15

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._tags: tuple[str, ...] = ()
        self._version: str | None = None

    async def identity(self) -> Identity:
        """The configured model; its context window only while it is loaded (``/api/ps``)."""
        wanted = next((m for m in await self.ps() if m.name == self.backend.model), None)
        return Identity(self.backend.model, wanted.context_length if wanted else None, None)

    @classmethod
    def build_from(cls, answer: Any) -> str | None:
        return (str(answer.get("version") or "") or None) if isinstance(answer, dict) else None

    async def version(self) -> str:
        data = self._json(await self._get("/api/version"), "/api/version")
        return str(data.get("version", ""))

    async def tags(self) -> list[OllamaModel]:
        """The models it has on disk."""
        data = self._json(await self._get("/api/tags"), "/api/tags")
        return [
            OllamaModel(name=m.get("name", ""), size=int(m.get("size", 0))) for m in data.get("models", [])
        ]

    async def ps(self) -> list[OllamaModel]:
        """The models it has loaded now, with their VRAM and context window."""
        data = self._json(await self._get("/api/ps"), "/api/ps")
        return [
            OllamaModel(
                name=m.get("name", ""),
                size=int(m.get("size", 0)),
                size_vram=m.get("size_vram"),
                context_length=m.get("context_length"),
            )
            for m in data.get("models", [])
        ]

    async def sample(self, klass: str, *, fresh: bool) -> ServerSample:
        b = self.backend
        loaded = tuple(await self.ps())
        if not self._tags or fresh:
            self._tags = tuple(m.name for m in await self.tags())
            self._version = await optional(self.version())
        wanted = next((m for m in loaded if m.name == b.model), None)
        return ServerSample(
            b.name,
            b.kind,
            "ok",
            None,
            klass,
            model=b.model,
            n_ctx=wanted.context_length if wanted else None,
            build=f"ollama {self._version}" if self._version else None,
            loaded=loaded,
            available=self._tags,
        )
