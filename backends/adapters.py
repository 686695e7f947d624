"""One small interface per kind of model server, so callers ask capabilities instead of kinds.

The shape is harlequin's adapter: an abstract class whose class-level flags say
what a server can do, and whose methods document what they return and raise.
``LlamaCppServer`` and ``OllamaServer`` are the two kinds the config knows.
Both speak OpenAI-compatible chat (backends.chat streams it for either); what
differs is how each says who it is and what else it offers. All their HTTP goes
through NativeClient, and so through the endpoint layer and its policy.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from backends.endpoint import CheckedAddress
from backends.native import NATIVE_TIMEOUT, NativeClient
from workspace.config import Backend, Policy


@dataclass(frozen=True)
class Identity:
    model: str | None
    n_ctx: int | None  # the context window, where the server says
    build: str | None


class ServerAdapter(ABC):
    """What chambers needs from one kind of model server.

    Args:
        backend: the backend from the config.
        policy: the local-only policy (checked by the endpoint layer on every call).
        http: a long-lived client from ``backends.endpoint.async_client``, for callers that poll.
        checked: a check to reuse for every call; None checks before each call.
    """

    KIND: ClassVar[str]  # the config's ``kind``
    LABEL: ClassVar[str]  # how messages name this kind of server
    BUILD_PATH: ClassVar[str]  # the GET endpoint that says which build answers (for the audit trail)
    # Capabilities.
    REPORTS_PROMPT_PROGRESS: ClassVar[bool] = False  # streams progress while reading a long prompt
    COUNTS_TOKENS: ClassVar[bool] = False  # its own tokenizer over HTTP
    REPORTS_SLOTS: ClassVar[bool] = False  # per-slot state (busy, tokens decoded)
    REPORTS_METRICS: ClassVar[bool] = False  # Prometheus counters

    def __init__(
        self,
        backend: Backend,
        policy: Policy,
        *,
        http: httpx.AsyncClient | None = None,
        checked: CheckedAddress | None = None,
        timeout: httpx.Timeout = NATIVE_TIMEOUT,
    ) -> None:
        self.backend = backend
        self.native = NativeClient(backend, policy, timeout=timeout, http=http, checked=checked)

    @abstractmethod
    async def identity(self) -> Identity:
        """The model it serves, its context window and its build.

        Returns:
            Identity; fields the server does not report are None.

        Raises:
            PolicyRefusal: the address may not be used (nothing is sent).
            BackendError: any subclass, for a server that is down, refuses or answers nonsense.
        """

    @classmethod
    @abstractmethod
    def build_from(cls, answer: Any) -> str | None:
        """The build named in the JSON answer of ``BUILD_PATH``, or None if it names none."""

    @classmethod
    def chat_fields(cls, *, return_progress: bool) -> dict[str, Any]:
        """Fields of a chat request that only this kind understands."""
        return {"return_progress": True} if return_progress and cls.REPORTS_PROMPT_PROGRESS else {}

    async def count_tokens(self, text: str) -> int:
        """How many tokens the server's own tokenizer makes of ``text``.

        Raises:
            NotImplementedError: the server cannot count (``COUNTS_TOKENS`` is False).
            PolicyRefusal, BackendError: as for ``identity``.
        """
        raise NotImplementedError(f"{self.LABEL} cannot count tokens over HTTP")


class LlamaCppServer(ServerAdapter):
    KIND = "llamacpp"
    LABEL = "llama-server"
    BUILD_PATH = "/props"
    REPORTS_PROMPT_PROGRESS = True
    COUNTS_TOKENS = True
    REPORTS_SLOTS = True
    REPORTS_METRICS = True

    async def identity(self) -> Identity:
        props = await self.native.props()
        return Identity(props.model, props.n_ctx, props.build)

    @classmethod
    def build_from(cls, answer: Any) -> str | None:
        return (str(answer.get("build_info") or "") or None) if isinstance(answer, dict) else None

    async def count_tokens(self, text: str) -> int:
        return await self.native.tokenize(text)


class OllamaServer(ServerAdapter):
    KIND = "ollama"
    LABEL = "Ollama"
    BUILD_PATH = "/api/version"

    async def identity(self) -> Identity:
        """The configured model; its context window only while it is loaded (``/api/ps``)."""
        loaded = await self.native.ollama_ps()
        wanted = next((m for m in loaded if m.name == self.backend.model), None)
        return Identity(self.backend.model, wanted.context_length if wanted else None, None)

    @classmethod
    def build_from(cls, answer: Any) -> str | None:
        return (str(answer.get("version") or "") or None) if isinstance(answer, dict) else None


ADAPTERS: dict[str, type[ServerAdapter]] = {cls.KIND: cls for cls in (LlamaCppServer, OllamaServer)}


def adapter_class(kind: str) -> type[ServerAdapter]:
    """The adapter for a config ``kind`` (the config only lets known kinds through)."""
    return ADAPTERS[kind]


def adapter_for(backend: Backend, policy: Policy, **kw: Any) -> ServerAdapter:
    return adapter_class(backend.kind)(backend, policy, **kw)
