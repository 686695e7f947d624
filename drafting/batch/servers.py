"""Which servers a batch job needs, and how many jobs each may hold at once.

Slots belong to a server, not to a backend's name: two roles configured as two backends at one
address share that server's slots, so everything here is keyed by URL. A llama-server says how many
sequences it decodes at once (``/props`` ``total_slots``, set with ``-np``); a kind that does not say
(Ollama) is given one job at a time.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from backends.adapters import adapter_for
from drafting.tasks import DRAFT, ROUTE, STAGE_ROLES, task_type
from workspace.config import Backend, Config, NoBackendForRole
from workspace.errors import ChambersError


@dataclass(frozen=True)
class Server:
    url: str
    backends: tuple[str, ...]  # the configured names at this address
    slots: int  # what the server says it decodes at once (1 where it cannot say)
    build: str | None
    said: str  # where ``slots`` comes from, for the plan and the progress lines


def roles_of(task: str, config: Config) -> tuple[str, ...]:
    """The config roles a job of ``task`` may send to. A router may move a draft to the heavy drafter,
    so both drafters count where a router is configured."""
    kind = task_type(task)
    roles: list[str] = []
    has_router = any("router" in b.roles for b in config.backends)
    for stage in kind.plan:
        if stage == DRAFT:
            roles.append(kind.drafter_role)
            if has_router and ROUTE in kind.plan and kind.drafter_role in ("drafter", "heavy"):
                roles += ["drafter", "heavy"]
        elif stage in STAGE_ROLES and (stage != ROUTE or has_router):
            roles.append(STAGE_ROLES[stage])
    return tuple(dict.fromkeys(roles))


def backends_of(task: str, config: Config) -> dict[str, Backend]:
    """{role: backend} for the roles a job of ``task`` uses that the config has (a missing role is the
    pipeline's to refuse, naming it)."""
    out: dict[str, Backend] = {}
    for role in roles_of(task, config):
        try:
            out[role] = config.backend_for_role(role)
        except NoBackendForRole:
            continue
    return out


async def look_up(backends: list[Backend], config: Config) -> dict[str, Server]:
    """Each distinct server's slots and build, asked once."""
    by_url: dict[str, list[Backend]] = {}
    for b in backends:
        by_url.setdefault(b.url, []).append(b)
    found = await asyncio.gather(*(_one(url, group, config) for url, group in by_url.items()))
    return {s.url: s for s in found}


async def _one(url: str, group: list[Backend], config: Config) -> Server:
    names = tuple(dict.fromkeys(b.name for b in group))
    first = group[0]
    server = adapter_for(first, config.policy)
    if not server.REPORTS_PROPS:
        return Server(
            url, names, 1, None, f"{server.LABEL} does not say how many requests it decodes at once"
        )
    try:
        props = await server.props()
    except ChambersError as exc:
        return Server(url, names, 1, None, f"its /props could not be read ({exc.title})")
    if not props.total_slots:
        return Server(url, names, 1, props.build, "its /props gives no total_slots")
    return Server(url, names, int(props.total_slots), props.build, "from its /props total_slots")


async def busy_slots(backend: Backend, config: Config) -> int | None:
    """How many sequences the server is decoding now (``/slots``; None where it cannot say)."""
    try:
        return await adapter_for(backend, config.policy).busy_slots()
    except ChambersError:
        return None
