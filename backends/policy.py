"""The local-only policy, as the rest of chambers asks it: may this backend be used?

Classes, most local first: loopback (this machine), private (the office LAN
and the operator's own ``[policy] private_networks``), link-local, public.
With ``local_only`` a public address is refused unless the backend sets
``allow_remote`` with a reason. There is no fallback anywhere: a refused
backend fails its step, naming the backend, the role and the address. The
classification (an allow-list) is in backends.addresses; resolving once and
connecting to the checked address is backends.endpoint's job.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from backends.addresses import AddressClass, classify_ip, least_local
from backends.endpoint import DEFAULT_PORTS, Endpoint, private_networks, resolve
from workspace.config import Backend, Policy

__all__ = ["AddressClass", "check_backend", "classify_ip", "classify_url"]


def classify_url(url: str, policy: Policy | None = None) -> tuple[AddressClass, list[str]]:
    """The least local class among the addresses of ``url``'s host, and those addresses.

    Raises:
        OSError, UnicodeError: the host does not resolve (or ``url`` has no host to resolve).
    """
    try:
        parts = urlsplit(url)
        port = parts.port or DEFAULT_PORTS.get(parts.scheme, 80)
    except ValueError as exc:  # not a URL at all: no host to resolve
        raise OSError(f"'{url}' is not a URL ({exc})") from exc
    ips = resolve(parts.hostname or "", port)
    networks = private_networks(policy or Policy())
    return least_local(classify_ip(ip, networks) for ip in ips), ips


def check_backend(backend: Backend, policy: Policy, role: str | None = None) -> AddressClass:
    """Raise PolicyRefusal if ``backend`` may not be used under ``policy``.

    Raises:
        PolicyRefusal: the address is public and the backend has no allow_remote
            reason, or the host name cannot be resolved.
        BadAddress: the URL itself cannot be used.
    """
    return Endpoint.for_backend(backend, policy).check(role).klass
