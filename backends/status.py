"""One-glance status of configured backends: one poll of the fleet's ServerPoller.

The workstation's backend list and the dashboard ask the same questions
(policy class, health, model, context, build), so they share one poller rather
than two copies of the same calls and the same error-to-state mapping.
"""

from __future__ import annotations

import asyncio

from backends.fleet.servers import ServerPoller, ServerSample
from workspace.config import Backend, Policy

BackendStatus = ServerSample


async def probe_backend(backend: Backend, policy: Policy) -> BackendStatus:
    """Ask ``backend`` who it is. Never raises for a server problem: it is reported."""
    return await ServerPoller(backend, policy).poll()


async def probe_all(backends: tuple[Backend, ...], policy: Policy) -> list[BackendStatus]:
    return list(await asyncio.gather(*(probe_backend(b, policy) for b in backends)))
