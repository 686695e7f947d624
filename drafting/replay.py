"""Send a stored conversation again, exactly, to a role's server with one LoRA adapter at a chosen scale.

The eval of an adapter asks the same server the same messages twice, at adapter scale 0 and 1, at
temperature 0, so the only difference between the two answers is the adapter. The scale travels in
the request's own ``lora`` field; the server's global scale (shared by every request in flight) is
never touched.
"""

from __future__ import annotations

from backends.chat import ChatClient, ChatRequest
from backends.endpoint import Endpoint, open_async_client
from backends.errors import HTTP_FAILURES, transport_error
from backends.lora import AdapterMissing, LoadedAdapter, fetch_loaded, missing_message
from workspace.audit import AuditLog
from workspace.config import Backend, LoraRef, Policy, Sampling


async def adapter_id(backend: Backend, policy: Policy, name: str) -> int:
    """The id ``backend``'s server gave the adapter ``name``.

    Raises:
        AdapterMissing: the server did not load it (the message says how to start it with it).
        PolicyRefusal, ServerUnreachable: as for any call to that backend.
    """
    checked = await Endpoint.for_backend(backend, policy).check_async()
    try:
        async with await open_async_client(10.0) as client:
            loaded: list[LoadedAdapter] = await fetch_loaded(client, backend, checked.extensions())
    except HTTP_FAILURES as exc:
        raise transport_error(exc, backend=backend.name, url=backend.url, path="/lora-adapters") from exc
    for adapter in loaded:
        if adapter.name == name:
            return adapter.id
    wanted = Backend(name=backend.name, kind=backend.kind, url=backend.url, lora=(LoraRef(name),))
    raise AdapterMissing(missing_message(wanted, [name], loaded), backend=backend.name, url=backend.url)


class Replayer:
    """One backend, one adapter id: ``await replayer(messages, scale)`` gives (text, tokens generated).

    Its calls share one connection pool; close it (``aclose`` or ``async with``) on the loop that used it.
    """

    def __init__(
        self,
        backend: Backend,
        policy: Policy,
        audit: AuditLog | None,
        lora_id: int,
        *,
        role: str,
        max_tokens: int,
    ) -> None:
        self.role = role
        self.client = ChatClient(backend, policy, audit)
        self.lora_id = lora_id
        self.sampling = Sampling(temperature=0.0, seed=0, max_tokens=max_tokens)
        self.decode_tok_s: list[float] = []  # the server's own decode rate per answer
        self.server_seconds = 0.0  # the server's own time on the answers: reading the prompt and decoding

    async def __aenter__(self) -> Replayer:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.client.aclose()

    async def __call__(self, messages: list[dict[str, str]], scale: float) -> tuple[str, int]:
        request = ChatRequest(
            list(messages), sampling=self.sampling, extra={"lora": [{"id": self.lora_id, "scale": scale}]}
        )
        finished = await self.client.complete(request, role=self.role)
        if finished.timings is not None:
            self.decode_tok_s.append(finished.timings.predicted_per_second)
            self.server_seconds += (finished.timings.prompt_ms + finished.timings.predicted_ms) / 1000
        tokens = finished.usage.completion_tokens if finished.usage else 0
        return finished.text, tokens
