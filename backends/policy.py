"""The local-only policy: every backend address is classified before use.

Classes, most local first: loopback (this machine), private (the office LAN),
link-local, public. With ``local_only`` a public address is refused unless the
backend sets ``allow_remote`` with a reason. There is no fallback anywhere: a
refused backend fails its step, naming the backend, the role and the address.
Host names are resolved and *every* address they resolve to is classified, so a
friendly name cannot hide a public address.
"""

from __future__ import annotations

import enum
import ipaddress
import socket
from urllib.parse import urlsplit

from backends.errors import PolicyRefusal
from workspace.config import Backend, Policy


class AddressClass(enum.Enum):
    LOOPBACK = "loopback"
    PRIVATE = "private"
    LINK_LOCAL = "link-local"
    PUBLIC = "public"


def classify_ip(ip: str) -> AddressClass:
    addr = ipaddress.ip_address(ip.split("%", 1)[0])  # drop an IPv6 zone id
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped:
        addr = addr.ipv4_mapped
    # Order matters: 127/8 and 169.254/16 also count as "private" to ipaddress.
    if addr.is_loopback:
        return AddressClass.LOOPBACK
    if addr.is_link_local:
        return AddressClass.LINK_LOCAL
    if addr.is_private:
        return AddressClass.PRIVATE
    return AddressClass.PUBLIC


def resolve(host: str) -> list[str]:
    """Every IP address ``host`` names (an IP literal resolves to itself)."""
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
        return [host]
    except ValueError:
        pass
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]) for info in infos})


def classify_url(url: str) -> tuple[AddressClass, list[str]]:
    """The least local class among the addresses of ``url``'s host, and those addresses."""
    host = urlsplit(url).hostname or ""
    ips = resolve(host)
    order = list(AddressClass)
    worst = max((classify_ip(ip) for ip in ips), key=order.index)
    return worst, ips


def check_backend(backend: Backend, policy: Policy, role: str | None = None) -> AddressClass:
    """Raise PolicyRefusal if ``backend`` may not be used under ``policy``.

    Raises:
        PolicyRefusal: the address is public and the backend has no allow_remote
            reason, or the host name cannot be resolved.
    """
    step = f"the {role} step" if role else "this step"
    host = urlsplit(backend.url).hostname or backend.url
    try:
        klass, ips = classify_url(backend.url)
    except (OSError, UnicodeError) as exc:
        raise PolicyRefusal(
            f"{step.capitalize()} cannot use backend '{backend.name}': its host '{host}' "
            f"({backend.url}) does not resolve ({exc}). Check the address in the config; "
            "chambers will not try anywhere else."
        ) from exc
    if klass is AddressClass.PUBLIC and policy.local_only and not backend.allow_remote:
        raise PolicyRefusal(
            f"{step.capitalize()} cannot use backend '{backend.name}': {backend.url} "
            f"({', '.join(ips)}) is a public internet address, and the policy is local-only. "
            "Point the backend at a server in the office, or, if this server may see client "
            "documents, set allow_remote = true and a remote_reason for it in the config."
        )
    return klass
