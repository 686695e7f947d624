"""Send a stored conversation again, exactly, to a role's server with one LoRA adapter at a chosen scale.

The eval of an adapter asks the same server the same messages twice, at adapter scale 0 and 1, at
temperature 0, so the only difference between the two answers is the adapter. The scale travels in
the request's own ``lora`` field; the server's global scale (shared by every request in flight) is
never touched.

Each answer is computed from the whole prompt (``cache_prompt`` off). With the prompt cache on, the server
reads only the part of a prompt its slot has not seen, in a differently shaped batch, and at temperature 0
that is enough to change the answer: the same pair would score differently depending on what the server
answered just before. The cost is the server reading every prompt in full.
"""

from __future__ import annotations

import httpx

from backends.adapters import adapter_for
from backends.chat import ChatClient, ChatRequest
from backends.lora import AdapterMissing, missing_message
from workspace.audit import AuditLog
from workspace.config import Backend, LoraRef, Policy, Sampling


async def adapter_id(backend: Backend, policy: Policy, name: str) -> int:
    """The id ``backend``'s server gave the adapter ``name``.

    Raises:
        AdapterMissing: the server did not load it (the message says how to start it with it).
        PolicyRefusal, ServerUnreachable: as for any call to that backend.
    """
    loaded = await adapter_for(backend, policy, timeout=httpx.Timeout(10.0)).loaded_adapters()
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
        self.decoded_tokens = 0  # what the server decoded, and its time decoding them
        self.decode_seconds = 0.0
        self.prompt_seconds = 0.0  # the server's time reading the prompts

    @property
    def decode_rate(self) -> float:
        """The server's decode rate over every answer so far, in tokens per second (0 before any)."""
        return self.decoded_tokens / self.decode_seconds if self.decode_seconds else 0.0

    async def __aenter__(self) -> Replayer:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.client.aclose()

    async def __call__(self, messages: list[dict[str, str]], scale: float) -> tuple[str, int]:
        request = ChatRequest(
            list(messages),
            sampling=self.sampling,
            extra={"lora": [{"id": self.lora_id, "scale": scale}], "cache_prompt": False},
        )
        finished = await self.client.complete(request, role=self.role)
        if finished.timings is not None:
            self.decode_tok_s.append(finished.timings.predicted_per_second)
            self.decoded_tokens += finished.timings.predicted_n
            self.decode_seconds += finished.timings.predicted_ms / 1000
            self.prompt_seconds += finished.timings.prompt_ms / 1000
        tokens = finished.usage.completion_tokens if finished.usage else 0
        return finished.text, tokens
