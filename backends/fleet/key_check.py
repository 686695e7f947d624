"""The doctor's question to each server that takes an API key: does it answer a request that carries none?

One that does is open to every web page in a browser on a machine that can reach it, since
llama-server allows any origin with credentials. The kind's ``KEY_PATH`` (llama-server's ``/props``)
is asked, as a browser's script would ask it, without chambers' key (backends.server_key).
"""

from __future__ import annotations

import asyncio

from backends.adapters import adapter_class
from backends.endpoint import WITHOUT_KEY, Endpoint, open_async_client
from backends.errors import HTTP_FAILURES
from backends.fleet.topology_lint import Finding
from backends.server_key import KEY_FILE
from workspace.config import Backend, Policy
from workspace.errors import ChambersError

PROBE_TIMEOUT_S = 5.0


async def answers_without_key(backend: Backend, policy: Policy) -> bool | None:
    """True when ``backend`` answers its kind's ``KEY_PATH`` without a key; None when it could not be
    asked (or its kind takes no key)."""
    path = adapter_class(backend.kind).KEY_PATH
    if path is None:
        return None
    try:
        checked = await Endpoint.for_backend(backend, policy).check_async()
        async with await open_async_client(PROBE_TIMEOUT_S) as http:
            response = await http.get(
                backend.url + path, extensions={**checked.extensions(), WITHOUT_KEY: True}
            )
    except (ChambersError, *HTTP_FAILURES):
        return None  # the backend's own checks say why it cannot be reached
    return response.status_code == 200


async def key_findings(backends: list[Backend], policy: Policy) -> list[Finding]:
    """A warning for each server among ``backends`` that takes an API key and answers without one."""
    servers = [b for b in backends if adapter_class(b.kind).KEY_PATH is not None]
    answers = await asyncio.gather(*(answers_without_key(b, policy) for b in servers))
    return [
        Finding(
            "warning",
            f"backend {b.name}",
            f"answers {b.url}{adapter_class(b.kind).KEY_PATH} without an API key, so any web page open in "
            "a browser that can "
            "reach it can read from it. Start it with `chambers serve` (which gives it the key in the "
            f"data folder's {KEY_FILE}), or give it --api-key-file with that file.",
        )
        for b, open_ in zip(servers, answers, strict=True)
        if open_
    ]
