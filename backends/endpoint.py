"""The one way out: every HTTP request chambers makes is checked here and sent to the checked address.

A server's name is resolved once, every address it resolves to is classified
(backends.addresses), and the request is then sent to exactly those addresses:
the transport rewrites the URL to the checked IP while the ``Host`` header and
the TLS server name keep the name. So a name that answers 127.0.0.1 when it is
checked and a public address a moment later (DNS rebinding) never reaches the
public address: nothing resolves the name a second time.

The transport refuses any request that does not carry its check, so code that
forgot to ask the policy cannot send anything either. Proxies from the
environment are ignored (``trust_env=False``) and redirects are not followed:
both would send the request somewhere that was never checked. Every client
chambers opens is made by ``async_client`` or ``sync_client``.

A backend on this machine or the office network is sent the key of the servers chambers serves
(backends.server_key); answers are inflated and capped here too (backends.answer_caps).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import httpx

from backends.addresses import (
    AddressClass,
    IPNetwork,
    classify_ip,
    least_local,
    parse_ip,
    parse_private_network,
)
from backends.answer_caps import STREAM, metered
from backends.errors import BadAddress, PolicyRefusal
from backends.server_key import current_key
from workspace.config import Backend, Policy

CHECKED = "chambers.checked_address"  # the request extension that carries the check
WITHOUT_KEY = "chambers.without_key"  # request extension: send no API key (the doctor's probe)
KEYED_CLASSES = (AddressClass.LOOPBACK, AddressClass.PRIVATE)  # where the served servers' key may go
DEFAULT_PORTS = {"http": 80, "https": 443}
POOL_LIMITS = httpx.Limits(max_connections=32, max_keepalive_connections=16)
FRESH_LIMITS = httpx.Limits(max_connections=32, max_keepalive_connections=0)  # every request a new connection
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS"})
SAFE_TO_RESEND = "chambers.safe_to_resend"  # request extension: a POST that changes nothing (/tokenize)
# What a request on a connection the server had already closed fails with, before any answer.
STALE_CONNECTION = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


@cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client: building one loads the CA bundle, about 20 ms that
    httpx would otherwise spend on each new client, even for plain http."""
    return ssl.create_default_context()


@dataclass(frozen=True)
class CheckedAddress:
    """A server the policy allowed, and the addresses its name had when it was checked."""

    name: str  # the backend's (or telemetry source's) name in the config
    url: str  # as written in the config
    host: str  # the host as sent in ``Host`` and TLS SNI (IDNA-encoded)
    port: int
    ips: tuple[str, ...]  # every address the name resolved to, in the resolver's order
    klass: AddressClass
    api_key: str | None = field(default=None, repr=False)  # sent to it (backends.server_key)

    @property
    def ip(self) -> str:
        """The address connections go to first (the audit trail records it)."""
        return self.ips[0]

    def extensions(self) -> dict[str, Any]:
        """Pass as ``extensions=`` with each request; the transport refuses a request without it."""
        return {CHECKED: self}


class Endpoint:
    """One server chambers may talk to, and the policy that decides whether it may.

    Args:
        name: how the config names it (backend name, or the telemetry source's host).
        url: its base URL from the config.
        policy: the local-only policy and the operator's private networks.
        what: the word for it in messages ("backend", "telemetry source").
        allow_remote: the config's explicit permission to use a public address.
    """

    def __init__(
        self, name: str, url: str, policy: Policy, *, what: str = "backend", allow_remote: bool = False
    ) -> None:
        self.name = name
        self.url = url
        self.policy = policy
        self.what = what
        self.allow_remote = allow_remote

    @classmethod
    def for_backend(cls, backend: Backend, policy: Policy) -> Endpoint:
        return cls(backend.name, backend.url, policy, allow_remote=backend.allow_remote)

    def check(self, role: str | None = None) -> CheckedAddress:
        """Resolve the name once and classify every address it has.

        Blocks while the name resolves: on an event loop, use ``check_async``.

        Raises:
            BadAddress: the URL cannot be used at all (bad characters, scheme, host or port).
            PolicyRefusal: the name does not resolve, or an address is public and may not be used.
        """
        host, port = self._host_port()
        try:
            ips = resolve(host, port)
        except (OSError, UnicodeError) as exc:
            raise self._unresolved(role, exc) from exc
        return self._classified(role, host, port, ips)

    async def check_async(self, role: str | None = None) -> CheckedAddress:
        """``check`` for code on an event loop: the name resolves in the loop's resolver thread.

        The same resolver answers (``socket.getaddrinfo``), once, and the same rules judge every
        address it gives; only the waiting moves off the loop.
        """
        host, port = self._host_port()
        try:
            ips = await resolve_async(host, port)
        except (OSError, UnicodeError) as exc:
            raise self._unresolved(role, exc) from exc
        return self._classified(role, host, port, ips)

    def _host_port(self) -> tuple[str, int]:
        """The host (IDNA-encoded, lower case) and port of the URL.

        Raises:
            BadAddress: the URL cannot be used at all.
        """
        try:
            url = httpx.URL(self.url)
        except httpx.InvalidURL as exc:
            raise self._bad(f"it is not a valid URL ({exc})") from exc
        if url.scheme not in DEFAULT_PORTS or not url.raw_host:
            raise self._bad("it needs http:// or https:// and a host, such as http://127.0.0.1:8080")
        return url.raw_host.decode("ascii").lower(), url.port or DEFAULT_PORTS[url.scheme]

    def _classified(self, role: str | None, host: str, port: int, ips: list[str]) -> CheckedAddress:
        """The check of ``ips``, every address the name resolved to.

        Raises:
            PolicyRefusal: an address is public and may not be used.
        """
        networks = private_networks(self.policy)
        klass = least_local(classify_ip(ip, networks) for ip in ips)
        if klass is AddressClass.PUBLIC and self.policy.local_only and not self.allow_remote:
            raise PolicyRefusal(self._public_message(_step(role), ips, networks))
        key = current_key() if self.what == "backend" and klass in KEYED_CLASSES else None
        return CheckedAddress(self.name, self.url, host, port, tuple(ips), klass, key)

    def _unresolved(self, role: str | None, exc: BaseException) -> PolicyRefusal:
        return PolicyRefusal(
            f"{_step(role)} cannot use {self.what} '{self.name}': its host '{httpx.URL(self.url).host}' "
            f"({self.url}) does not resolve ({exc}). Check the address in the config; chambers will not "
            "try anywhere else."
        )

    def _public_message(self, step: str, ips: list[str], networks: tuple[IPNetwork, ...]) -> str:
        public = [ip for ip in ips if classify_ip(ip, networks) is AddressClass.PUBLIC]
        where = f"{self.url} ({', '.join(ips)})"
        remedy = (
            "Point it at a server in the office; if that address is on a network of your own (a VPN), "
            "add the network to private_networks under [policy]"
        )
        if self.what == "backend":
            remedy += (
                ", or, if this server may see client documents, set allow_remote = true and a "
                "remote_reason for it in the config"
            )
        return (
            f"{step} cannot use {self.what} '{self.name}': {where} is a public internet address "
            f"({', '.join(public)}), and the policy is local-only. {remedy}."
        )

    def _bad(self, problem: str) -> BadAddress:
        return BadAddress(
            f"The address of {self.what} '{self.name}' cannot be used: {problem}. Fix url in the "
            f"config ({self.url!r}); nothing was sent.",
            backend=self.name,
            url=self.url,
        )


def _step(role: str | None) -> str:
    return f"The {role} step" if role else "chambers"


def _literal(host: str) -> str | None:
    """``host`` itself when it is an IP address (brackets of an IPv6 literal dropped), else None."""
    try:
        parse_ip(host.strip("[]"))
    except ValueError:
        return None
    return host.strip("[]")


def _addresses(infos: list[Any]) -> list[str]:
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` names, in the resolver's order (an IP literal is itself)."""
    literal = _literal(host)
    if literal is not None:
        return [literal]
    return _addresses(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))


async def resolve_async(host: str, port: int) -> list[str]:
    """``resolve`` without blocking the running loop: the loop asks ``socket.getaddrinfo`` in a thread."""
    literal = _literal(host)
    if literal is not None:
        return [literal]
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return _addresses(infos)


def private_networks(policy: Policy) -> tuple[IPNetwork, ...]:
    """The operator's networks (already checked when the config was read)."""
    return _networks(policy.private_networks)


@cache
def _networks(cidrs: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(parse_private_network(n) for n in cidrs)


def _pinned(request: httpx.Request, ip: str, checked: CheckedAddress) -> httpx.Request:
    """``request`` sent to ``ip``; ``Host`` (already set) and the TLS server name keep the name.

    The check's API key goes in ``Authorization`` unless the request has one of its own or asks
    to go without (``WITHOUT_KEY``)."""
    ours = (CHECKED, WITHOUT_KEY, SAFE_TO_RESEND, STREAM)
    extensions = {k: v for k, v in request.extensions.items() if k not in ours}
    if request.url.scheme == "https":
        extensions["sni_hostname"] = checked.host
    headers = request.headers
    if checked.api_key and not request.extensions.get(WITHOUT_KEY) and "authorization" not in headers:
        headers = headers.copy()
        headers["Authorization"] = f"Bearer {checked.api_key}"
    return httpx.Request(
        request.method,
        request.url.copy_with(host=ip.split("%", 1)[0]),
        headers=headers,
        stream=request.stream,
        extensions=extensions,
    )


def _checked_for(request: httpx.Request) -> CheckedAddress:
    checked = request.extensions.get(CHECKED)
    url = request.url
    port = url.port or DEFAULT_PORTS.get(url.scheme, 0)
    if not isinstance(checked, CheckedAddress) or (url.raw_host.decode("ascii").lower(), port) != (
        checked.host,
        checked.port,
    ):
        raise PolicyRefusal(
            f"A request to {url.scheme}://{url.host}:{port} was stopped: the local-only policy had not "
            "checked that address. This is a fault in chambers; please report it."
        )
    return checked


def _resendable(request: httpx.Request) -> bool:
    return request.method in IDEMPOTENT or request.extensions.get(SAFE_TO_RESEND) is True


class PinnedAsyncTransport(httpx.AsyncBaseTransport):
    """Sends each request to the addresses its check found, trying them in order.

    Every answer is inflated and capped as it is read (backends.answer_caps). A streamed answer
    goes on a connection of its own, never a pooled one the server may be closing. An idempotent
    request whose pooled connection turns out closed (the server dropped it without saying
    ``Connection: close``, so the pool could not know) is sent once more on a fresh connection:
    the server answered nothing, so nothing is sent twice that it acted on.
    """

    def __init__(self, limits: httpx.Limits = POOL_LIMITS) -> None:
        self._inner = httpx.AsyncHTTPTransport(verify=tls_context(), trust_env=False, limits=limits)
        self._fresh = httpx.AsyncHTTPTransport(verify=tls_context(), trust_env=False, limits=FRESH_LIMITS)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        checked = _checked_for(request)
        streamed = request.extensions.get(STREAM) is True
        first = self._fresh if streamed else self._inner
        try:
            response = await self._send(first, request, checked)
        except STALE_CONNECTION:
            if streamed or not _resendable(request):
                raise
            response = await self._send(self._fresh, request, checked)
        try:
            return metered(request, response)
        except BaseException:
            await response.aclose()
            raise

    async def _send(
        self, transport: httpx.AsyncHTTPTransport, request: httpx.Request, checked: CheckedAddress
    ) -> httpx.Response:
        failure: httpx.ConnectError | None = None
        for ip in checked.ips:  # nothing was sent when a connection fails, so the next one may be tried
            try:
                return await transport.handle_async_request(_pinned(request, ip, checked))
            except httpx.ConnectError as exc:
                failure = exc
        assert failure is not None  # a check always has at least one address
        raise failure

    async def aclose(self) -> None:
        await self._inner.aclose()
        await self._fresh.aclose()


class PinnedTransport(httpx.BaseTransport):
    """The blocking twin of PinnedAsyncTransport (telemetry is read in worker threads)."""

    def __init__(self, limits: httpx.Limits = POOL_LIMITS) -> None:
        self._inner = httpx.HTTPTransport(verify=tls_context(), trust_env=False, limits=limits)
        self._fresh = httpx.HTTPTransport(verify=tls_context(), trust_env=False, limits=FRESH_LIMITS)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        checked = _checked_for(request)
        streamed = request.extensions.get(STREAM) is True
        try:
            response = self._send(self._fresh if streamed else self._inner, request, checked)
        except STALE_CONNECTION:
            if streamed or not _resendable(request):
                raise
            response = self._send(self._fresh, request, checked)
        try:
            return metered(request, response)
        except BaseException:
            response.close()
            raise

    def _send(
        self, transport: httpx.HTTPTransport, request: httpx.Request, checked: CheckedAddress
    ) -> httpx.Response:
        failure: httpx.ConnectError | None = None
        for ip in checked.ips:
            try:
                return transport.handle_request(_pinned(request, ip, checked))
            except httpx.ConnectError as exc:
                failure = exc
        assert failure is not None
        raise failure

    def close(self) -> None:
        self._inner.close()
        self._fresh.close()


def async_client(
    timeout: httpx.Timeout | float = 10.0, limits: httpx.Limits = POOL_LIMITS
) -> httpx.AsyncClient:
    """A pooled client that sends only checked requests, never through a proxy, never redirected."""
    return httpx.AsyncClient(
        transport=PinnedAsyncTransport(limits), timeout=timeout, trust_env=False, follow_redirects=False
    )


async def open_async_client(
    timeout: httpx.Timeout | float = 10.0, limits: httpx.Limits = POOL_LIMITS
) -> httpx.AsyncClient:
    """``async_client`` made in a worker thread, for code on an event loop.

    The first client of a process loads the CA bundle and httpx's transport modules, tens of
    milliseconds (over a hundred on a busy machine) that would otherwise stall the loop. Making a
    client binds it to no loop; its connections belong to the loop that first uses it.
    """
    return await asyncio.to_thread(async_client, timeout, limits)


def sync_client(timeout: httpx.Timeout | float = 10.0, limits: httpx.Limits = POOL_LIMITS) -> httpx.Client:
    """The blocking twin of ``async_client``."""
    return httpx.Client(
        transport=PinnedTransport(limits), timeout=timeout, trust_env=False, follow_redirects=False
    )
