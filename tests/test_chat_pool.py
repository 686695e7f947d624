"""The chat client keeps one connection pool and waits on nothing on the event loop, and the
local-only policy holds exactly as it does for a client per call.

A name's answers come from a scripted resolver, standing in for a DNS server (none can run here
without a network namespace; tests/test_policy_namespace.py runs the real resolver against one).
The chat server is tests/support/stream_server.py, a llama-server stand-in that keeps connections alive as
llama-server does, so a second call can reuse the first one's connection. Every ``socket.connect``
is recorded, and one to a non-loopback address is refused on the spot.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from backends.addresses import AddressClass
from backends.chat import ChatClient, ChatRequest
from backends.endpoint import Endpoint
from backends.errors import PolicyRefusal
from tests.conftest import make_backend
from tests.support.scripted_network import ScriptedResolver, loopback_connections  # noqa: F401 (the connections fixture)
from tests.support.stream_server import StreamServer
from workspace.audit import AuditLog, AuditRecord
from workspace.config import Policy, Sampling

NAME = "drafter.office.test"
ASK = ChatRequest([{"role": "user", "content": "Draft a caption."}], sampling=Sampling(max_tokens=5))


@pytest.mark.parametrize(
    ("answer", "klass"),
    [
        ("127.0.0.1", AddressClass.LOOPBACK),
        ("192.168.1.20", AddressClass.PRIVATE),
        ("8.8.8.8", None),
        ("2001:0:808:808::1", None),  # Teredo: wraps a public IPv4 address
        (None, None),  # does not resolve
    ],
)
async def test_a_name_resolved_off_the_loop_is_judged_exactly_as_before(
    monkeypatch: pytest.MonkeyPatch, answer: str | None, klass: AddressClass | None
) -> None:
    dns = ScriptedResolver(monkeypatch, NAME, [answer])
    endpoint = Endpoint("rebinder", f"http://{NAME}:8080", Policy())
    if klass is None:
        with pytest.raises(PolicyRefusal) as on_loop:
            await endpoint.check_async("drafter")
        with pytest.raises(PolicyRefusal) as blocking:
            endpoint.check("drafter")
        assert on_loop.value.message == blocking.value.message
        assert (
            "'rebinder'" in on_loop.value.message and (answer or "does not resolve") in on_loop.value.message
        )
    else:
        checked = await endpoint.check_async("drafter")
        assert checked == endpoint.check("drafter")
        assert checked.klass is klass and checked.ips == (answer,) and checked.host == NAME
    loop_thread = threading.get_ident()
    assert dns.asked == 2 and dns.threads[0] != loop_thread and dns.threads[1] == loop_thread


async def test_a_long_lived_client_checks_every_call_again_and_a_refused_one_sends_nothing(
    monkeypatch: pytest.MonkeyPatch, connections: list[Any], isolated_home: Path
) -> None:
    dns = ScriptedResolver(monkeypatch, NAME, ["127.0.0.1", "127.0.0.1", "8.8.8.8"])
    log = AuditLog(isolated_home / "a.db")
    with StreamServer() as server:
        chats: list[dict[str, Any]] = []
        stream = server._stream

        async def counted(writer: Any, body: dict[str, Any]) -> None:
            chats.append(body)
            await stream(writer, body)

        monkeypatch.setattr(server, "_stream", counted)
        backend = make_backend(f"http://{NAME}:{server.port}", name="rebinder")
        async with ChatClient(backend, Policy(), log) as client:
            first = await client.complete(ASK, role="drafter")
            second = await client.complete(ASK, role="drafter")
            assert first.text == second.text == "tok " * 5
            # /props keeps a pooled connection; each streamed answer opens and closes its own, so
            # none is sent into a pooled connection the server may be closing.
            assert [a[0] for a in connections] == ["127.0.0.1", "127.0.0.1", "127.0.0.1"]

            # The same client's next lookup answers a public address: refused, nothing sent.
            with pytest.raises(PolicyRefusal) as refused:
                await client.complete(ASK, role="drafter")
        assert "rebinder" in refused.value.message and "8.8.8.8" in refused.value.message
    assert dns.asked == 3  # each call resolves the name again, once
    assert len(chats) == 2 and len(connections) == 3
    assert [(r.outcome, r.checked_ip) for r in reversed(log.recent())] == [
        ("completed", "127.0.0.1"),
        ("completed", "127.0.0.1"),
        ("refused", None),
    ]


async def test_the_audit_record_is_written_off_the_loop_before_the_call_returns(isolated_home: Path) -> None:
    writers: list[int] = []

    class WatchedLog(AuditLog):
        def record(self, rec: AuditRecord) -> int:
            writers.append(threading.get_ident())
            return super().record(rec)

    log = WatchedLog(isolated_home / "a.db")
    with StreamServer() as server:
        async with ChatClient(make_backend(server.url), Policy(), log) as client:
            finished = await client.complete(ASK, role="drafter")
            (row,) = log.recent()  # written by the time complete() returns
    assert row.outcome == "completed" and row.response_text == finished.text
    assert writers and threading.get_ident() not in writers


def test_a_client_is_reopened_on_a_new_loop_and_refused_on_a_loop_still_running_elsewhere() -> None:
    with StreamServer() as server:
        client = ChatClient(make_backend(server.url, name="shared"), Policy(), None)
        opened, release = threading.Event(), threading.Event()

        async def hold_open() -> None:
            await client.complete(ASK)
            opened.set()
            await asyncio.to_thread(release.wait)
            await client.aclose()

        other = threading.Thread(target=asyncio.run, args=(hold_open(),))
        other.start()
        try:
            assert opened.wait(30)
            with pytest.raises(RuntimeError, match=r"'shared'.*another event loop"):
                asyncio.run(client.complete(ASK))
        finally:
            release.set()
            other.join(30)

        async def call_and_close() -> str:
            async with client:
                return (await client.complete(ASK)).text

        # Closed on its own loop, the client opens a new pool on the next loop, and again after that.
        assert asyncio.run(call_and_close()) == asyncio.run(call_and_close()) == "tok " * 5
