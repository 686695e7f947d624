"""One-glance status of a configured backend: is it up, which model, how much context."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from backends.errors import ModelLoading, ServerTimeout, ServerUnreachable
from backends.native import NativeClient
from backends.policy import AddressClass, check_backend
from workspace.config import Backend, Policy
from workspace.errors import ChambersError


@dataclass(frozen=True)
class BackendStatus:
    name: str
    health: str  # "ok", "loading", "down", "refused", "error"
    model: str | None = None
    n_ctx: int | None = None
    build: str | None = None
    address_class: str | None = None
    problem: str | None = None  # plain-words reason when health is not "ok"

    @property
    def ok(self) -> bool:
        return self.health == "ok"


async def probe_backend(backend: Backend, policy: Policy) -> BackendStatus:
    """Ask ``backend`` who it is. Never raises for a server problem: it is reported."""
    try:
        klass = check_backend(backend, policy)
    except ChambersError as exc:
        return BackendStatus(backend.name, "refused", problem=exc.message)
    native = NativeClient(backend, policy)
    try:
        if backend.kind == "llamacpp":
            health = await native.health()
            if not health.ok:
                return BackendStatus(
                    backend.name, "loading", address_class=klass.value, problem=health.status
                )
            props = await native.props()
            return BackendStatus(
                backend.name, "ok", model=props.model, n_ctx=props.n_ctx, build=props.build,
                address_class=klass.value,
            )  # fmt: skip
        version = await native.ollama_version()
        loaded = await native.ollama_ps()
        wanted = next((m for m in loaded if m.name == backend.model), None)
        return BackendStatus(
            backend.name, "ok", model=backend.model, n_ctx=wanted.context_length if wanted else None,
            build=f"ollama {version}", address_class=klass.value,
        )  # fmt: skip
    except ModelLoading as exc:
        return BackendStatus(backend.name, "loading", address_class=klass.value, problem=exc.message)
    except ChambersError as exc:
        state = "down" if isinstance(exc, ServerUnreachable | ServerTimeout) else "error"
        return BackendStatus(backend.name, state, address_class=klass.value, problem=exc.message)


async def probe_all(backends: tuple[Backend, ...], policy: Policy) -> list[BackendStatus]:
    return list(await asyncio.gather(*(probe_backend(b, policy) for b in backends)))


__all__ = ["AddressClass", "BackendStatus", "probe_all", "probe_backend"]
