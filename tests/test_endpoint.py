"""The one way out: resolve once, connect to the checked address, refuse what was not checked.

Where a test needs a name to answer differently from one lookup to the next (DNS
rebinding), ``socket.getaddrinfo`` is replaced by a scripted resolver: it stands in
for a DNS server, which cannot be run here without a network namespace (the same
attack against a real resolver is in tests/test_policy_namespace.py). Every
``socket.connect`` is recorded, and one to a non-loopback address is refused on the
spot, so no test can reach the internet whatever the code under test does.
"""

from __future__ import annotations

import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import backends.endpoint as endpoint
from backends.adapters import LlamaCppServer, OllamaServer
from backends.chat import ChatClient, ChatRequest
from backends.errors import BadAddress, NotAModelServer, PolicyRefusal
from backends.fleet.dcgm_source import DcgmSource
from backends.fleet.servers import ServerPoller
from tests.conftest import make_backend
from tests.support.fakes import chunk, fake_server, send_json, send_sse
from tests.support.scripted_network import ScriptedResolver, loopback_connections  # noqa: F401 (the connections fixture)
from workspace.audit import AuditLog
from workspace.config import Policy

CHAT = ("POST", "/v1/chat/completions")
PROPS = ("GET", "/props")
ASK = ChatRequest([{"role": "user", "content": "Draft a caption."}])


def chat_routes(hosts: list[str]) -> dict[tuple[str, str], Any]:
    def props(h: BaseHTTPRequestHandler) -> None:
        hosts.append(h.headers["Host"])
        send_json(h, 200, {"build_info": "b1"})

    def chat(h: BaseHTTPRequestHandler) -> None:
        hosts.append(h.headers["Host"])
        send_sse(h, [chunk("Hello."), chunk(finish="stop"), "data: [DONE]\n\n"])

    return {PROPS: props, CHAT: chat}


async def test_a_rebinding_name_is_resolved_once_and_its_public_answer_never_reached(
    monkeypatch: pytest.MonkeyPatch, connections: list[Any], isolated_home: Path
) -> None:
    hosts: list[str] = []
    with fake_server(chat_routes(hosts)) as url:
        port = int(url.rsplit(":", 1)[1])
        dns = ScriptedResolver(monkeypatch, "drafter.office.test", ["127.0.0.1", "8.8.8.8"])
        log = AuditLog(isolated_home / "a.db")
        backend = make_backend(f"http://drafter.office.test:{port}", name="rebinder")
        async with ChatClient(backend, Policy(), log) as client:
            finished = await client.complete(ASK, role="drafter")
        assert finished.text == "Hello."
        assert dns.asked == 1  # one lookup for the check, the build request and the call together
        assert {a[0] for a in connections} == {"127.0.0.1"}
        assert hosts == [f"drafter.office.test:{port}"] * 2  # the Host header keeps the name
        (row,) = log.recent()
        assert row.outcome == "completed" and row.checked_ip == "127.0.0.1"

        # The next call's lookup answers the public address: refused, naming backend and address.
        connections.clear()
        with pytest.raises(PolicyRefusal) as refused:
            async with ChatClient(backend, Policy(), log) as client:
                await client.complete(ASK, role="drafter")
        assert "rebinder" in refused.value.message and "8.8.8.8" in refused.value.message
        assert connections == []


def make_certificate(folder: Path, name: str) -> tuple[Path, Path]:
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            f"/CN={name}",
            "-addext",
            f"subjectAltName=DNS:{name}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return key, cert


async def test_tls_sends_and_verifies_the_name_while_connecting_to_the_checked_address(
    monkeypatch: pytest.MonkeyPatch, connections: list[Any], tmp_path: Path
) -> None:
    name = "ollama.office.test"
    key, cert = make_certificate(tmp_path, name)
    server_names: list[str | None] = []
    hosts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hosts.append(self.headers["Host"])
            send_json(self, 200, {"version": "0.33.1"})

        def log_message(self, *args: Any) -> None:
            pass

    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    server_tls.sni_callback = lambda _sock, sni, _ctx: server_names.append(sni)  # type: ignore[assignment, func-returns-value]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.socket = server_tls.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    trusting = ssl.create_default_context(cafile=str(cert))
    monkeypatch.setattr(endpoint, "tls_context", lambda: trusting)
    try:
        ScriptedResolver(monkeypatch, name, ["127.0.0.1"])
        backend = make_backend(f"https://{name}:{httpd.server_address[1]}", kind="ollama")
        assert await OllamaServer(backend, Policy()).version() == "0.33.1"
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert server_names == [name]  # SNI carried the name, and the certificate was checked against it
    assert hosts == [f"{name}:{httpd.server_address[1]}"]
    assert {a[0] for a in connections} == {"127.0.0.1"}


async def test_a_request_that_was_not_checked_is_refused(connections: list[Any]) -> None:
    with fake_server({("GET", "/health"): lambda h: send_json(h, 200, {"status": "ok"})}) as url:
        async with endpoint.async_client() as client:
            with pytest.raises(PolicyRefusal, match="had not checked that address"):
                await client.get(url + "/health")
        with endpoint.sync_client() as client, pytest.raises(PolicyRefusal):
            client.get(url + "/health")
    assert connections == []


async def test_proxy_settings_in_the_environment_are_ignored(
    monkeypatch: pytest.MonkeyPatch, connections: list[Any]
) -> None:
    proxied: list[str] = []

    def proxy(h: BaseHTTPRequestHandler) -> None:
        proxied.append(h.path)
        send_json(h, 200, {"status": "ok"})

    routes = {("GET", "/health"): lambda h: send_json(h, 200, {"status": "ok"})}
    with fake_server({("GET", "http://127.0.0.1/health"): proxy}) as proxy_url, fake_server(routes) as url:
        for var in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "HTTPS_PROXY"):
            monkeypatch.setenv(var, proxy_url)
        health = await LlamaCppServer(make_backend(url), Policy()).health()
    assert health.ok and proxied == []
    assert {a[1] for a in connections} == {int(url.rsplit(":", 1)[1])}


async def test_a_redirect_to_a_public_address_is_not_followed(connections: list[Any]) -> None:
    def moved(h: BaseHTTPRequestHandler) -> None:
        h.send_response(302)
        h.send_header("Location", "http://8.8.8.8:8080/health")
        h.send_header("Content-Length", "0")
        h.end_headers()

    with fake_server({("GET", "/health"): moved}) as url, pytest.raises(NotAModelServer):
        await LlamaCppServer(make_backend(url), Policy()).health()
    assert all(a[0] == "127.0.0.1" for a in connections)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/\n", "http://127.0.0.1:8080\x00", "http://[::1:8080"])
async def test_an_unusable_url_is_a_typed_error_everywhere(
    url: str, connections: list[Any], isolated_home: Path
) -> None:
    """Config objects can be built without the loader (the demo, the settings screen, tests):
    the endpoint layer still turns a bad URL into the attorney's error, never httpx.InvalidURL."""
    backend = make_backend(url, name="typo")
    log = AuditLog(isolated_home / "a.db")
    with pytest.raises(BadAddress) as bad:
        async with ChatClient(backend, Policy(), log) as client:
            await client.complete(ASK, role="drafter")
    assert "typo" in bad.value.message and "nothing was sent" in bad.value.message
    assert log.recent()[0].outcome == "failed"
    with pytest.raises(BadAddress):
        await LlamaCppServer(backend, Policy()).health()
    sample = await ServerPoller(backend, Policy()).poll()
    assert sample.health == "refused" and "typo" in (sample.problem or "")
    assert connections == []


def test_telemetry_is_held_to_the_policy(connections: list[Any]) -> None:
    public = DcgmSource("chassis9", url="http://8.8.8.8:9400/metrics", policy=Policy()).read()
    assert public.status.startswith("refused") and "chassis9" in public.status and "8.8.8.8" in public.status
    assert connections == []
    # Declared by the operator as an office network (a VPN range), the same address is tried.
    ours = DcgmSource(
        "chassis9", url="http://8.8.8.8:9400/metrics", policy=Policy(private_networks=("8.8.8.0/24",))
    ).read()
    assert "not reachable" in ours.status and [a[0] for a in connections] == ["8.8.8.8"]


def test_the_operators_network_is_private_for_backends_too() -> None:
    from backends.policy import AddressClass, check_backend

    backend = make_backend("http://100.100.1.2:8080", name="tailnet")
    with pytest.raises(PolicyRefusal, match="private_networks"):
        check_backend(backend, Policy())
    assert check_backend(backend, Policy(private_networks=("100.64.0.0/10",))) is AddressClass.PRIVATE


def test_no_http_client_is_made_outside_the_endpoint_layer() -> None:
    """The policy holds only if every request goes through ``backends.endpoint``."""
    root = Path(__file__).resolve().parent.parent
    offenders = []
    for file in root.glob("*/**/*.py"):
        rel = file.relative_to(root).as_posix()
        if rel.startswith(("tests/", "benchmarks/", ".")) or rel == "backends/endpoint.py":
            continue
        text = file.read_text(encoding="utf-8")
        for call in (
            "httpx.AsyncClient(",
            "httpx.Client(",
            "httpx.get(",
            "httpx.post(",
            "httpx.stream(",
            "urlopen(",
            "HTTPConnection(",
        ):
            if call in text:
                offenders.append(f"{rel}: {call}")
    assert offenders == []
