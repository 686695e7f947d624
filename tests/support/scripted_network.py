"""What the local-only policy tests share: a guard on every connection, and a scripted resolver.

The guard records every ``socket.connect`` and refuses one to a non-loopback address on the
spot, so no test can reach the internet whatever the code under test does. The scripted resolver
replaces ``socket.getaddrinfo`` for one name where a test needs that name to answer differently
from one lookup to the next (DNS rebinding): it stands in for a DNS server, which cannot run here
without a network namespace (tests/test_policy_namespace.py runs the real resolver against one).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(name="connections")
def loopback_connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every connect; a connect to anything but loopback is recorded and refused.

    A module that imports ``loopback_connections`` has the ``connections`` fixture."""
    seen: list[Any] = []
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1"):
            raise ConnectionRefusedError(f"test guard: no connection to {address[0]}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield seen


class ScriptedResolver:
    """Answers ``name`` with the next of ``answers`` (the last repeats; None: the name does not
    resolve), noting the thread that asked; every other name goes to the real resolver."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str, answers: list[str | None]) -> None:
        self.name, self.answers, self.asked, self.threads = name, answers, 0, list[int]()
        real = socket.getaddrinfo

        def getaddrinfo(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
            if (host.decode() if isinstance(host, bytes) else host) != self.name:
                return real(host, port, *args, **kw)
            self.threads.append(threading.get_ident())
            ip = self.answers[min(self.asked, len(self.answers) - 1)]
            self.asked += 1
            if ip is None:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            family = socket.AF_INET6 if ":" in ip else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (ip, int(port or 0)))]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
