"""A whole session opens connections only to the addresses in the config.

Every ``socket.connect`` in the process is recorded (asyncio's event loop and
httpx both end in ``socket.socket.connect``), then compared with the set of
configured backend addresses.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from backends.chat import ChatClient, ChatRequest
from backends.errors import PolicyRefusal
from backends.local_server import LlamaServerProcess
from backends.status import probe_all
from workspace.audit import AuditLog
from workspace.config import Backend, Config, Policy, config_to_toml, load_config


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    seen: list[Any] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    yield seen


def configured(config: Config) -> set[tuple[str, int]]:
    out = set()
    for b in config.backends:
        parts = urlsplit(b.url)
        out.add((parts.hostname or "", parts.port or 80))
    return out


async def test_session_connects_only_to_configured_addresses(
    llama_server: LlamaServerProcess, isolated_home: Path, connections: list[Any]
) -> None:
    file = isolated_home / "config.toml"
    file.parent.mkdir(parents=True)
    backend = Backend(name="local", kind="llamacpp", url=llama_server.url, roles=("drafter", "reviewer"))
    file.write_text(config_to_toml(Config(str(file), Policy(), (), (backend,))))

    config = load_config(file)
    statuses = await probe_all(config.backends, config.policy)
    assert [s.health for s in statuses] == ["ok"]
    log = AuditLog(isolated_home / "a.db")
    request = ChatRequest([{"role": "user", "content": "Say hello."}])
    request.sampling = type(request.sampling)(max_tokens=8)
    async with ChatClient(config.backend_for_role("drafter"), config.policy, log) as client:
        finished = await client.complete(request, role="drafter")
    assert finished.timings is not None
    (row,) = log.recent()  # complete() has already written its audit record
    assert row.outcome == "completed" and row.response_text == finished.text

    assert connections, "the guard saw no connection at all, so it is not watching"
    assert {(a[0], a[1]) for a in connections} <= configured(config)


async def test_refused_backend_opens_no_connection(connections: list[Any], isolated_home: Path) -> None:
    backend = Backend(name="cloud", kind="llamacpp", url="http://8.8.8.8:8080", roles=("drafter",))
    log = AuditLog(isolated_home / "a.db")
    async with ChatClient(backend, Policy(local_only=True), log) as client:
        with pytest.raises(PolicyRefusal):
            await client.complete(ChatRequest([{"role": "user", "content": "hi"}]), role="drafter")
    (row,) = log.recent()
    assert row.outcome == "refused" and "8.8.8.8" in row.error
    statuses = await probe_all((backend,), Policy(local_only=True))
    assert statuses[0].health == "refused"
    assert connections == []
