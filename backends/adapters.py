"""The registry of server kinds: each config ``kind`` and the adapter class that owns its code.

Every caller reaches a server through ``adapter_for`` and asks the adapter's capability flags
(backends.adapter_base) rather than its kind. Importing this module defines the kinds chambers
ships (llama-server, Ollama); a kind is added by defining one more ``ServerAdapter`` subclass
with a ``KIND``, which registers it.
"""

from __future__ import annotations

from typing import Any

from backends.adapter_base import KNOWN, Identity, ServerAdapter
from backends.llamacpp import LlamaCppServer
from backends.ollama import OllamaServer
from workspace.config import Backend, Policy
from workspace.errors import ChambersError

__all__ = [
    "ADAPTERS",
    "Identity",
    "LlamaCppServer",
    "OllamaServer",
    "ServerAdapter",
    "adapter_class",
    "adapter_for",
]

ADAPTERS: dict[str, type[ServerAdapter]] = KNOWN


def adapter_class(kind: str) -> type[ServerAdapter]:
    """The adapter for a config ``kind`` (the config only lets known kinds through).

    Raises:
        ChambersError: no adapter is defined for ``kind`` (a backend built in code with a kind the
            config would have refused).
    """
    try:
        return ADAPTERS[kind]
    except KeyError:
        known = ", ".join(sorted(ADAPTERS))
        raise ChambersError(
            f"There is no server adapter for kind '{kind}' (kinds: {known}); "
            "set the backend's kind to one of them.",
            title="Unknown kind of model server",
        ) from None


def adapter_for(backend: Backend, policy: Policy, **kw: Any) -> ServerAdapter:
    """A new adapter for ``backend``; keywords as ``ServerAdapter``'s (``http``, ``checked``, ``timeout``)."""
    return adapter_class(backend.kind)(backend, policy, **kw)
