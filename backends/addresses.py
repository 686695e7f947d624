"""Which addresses are inside the office: an allow-list, not ``ipaddress.is_private``.

``ipaddress`` calls whole public ranges "private" (on Python 3.11 all of
2001::/23, which holds Teredo, whose addresses wrap a public IPv4 address, and
AMT and AS112), and its idea of private changes between Python releases. So
the question is turned round: an address is local only if it is in one of the
ranges listed here (loopback, the RFC 1918 and ULA office ranges, link-local)
or in a network the operator declared in ``[policy] private_networks``.
Everything else, special-purpose or not, is public.
"""

from __future__ import annotations

import enum
import ipaddress
from collections.abc import Iterable

from workspace.config_checks import private_network as parse_private_network

__all__ = ["AddressClass", "classify_ip", "least_local", "parse_ip", "parse_private_network"]

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressClass(enum.Enum):
    """Most local first; the order is used to find the least local of several addresses."""

    LOOPBACK = "loopback"
    PRIVATE = "private"
    LINK_LOCAL = "link-local"
    PUBLIC = "public"


def _nets(*cidrs: str) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(c) for c in cidrs)


LOOPBACK_NETS = _nets("127.0.0.0/8", "::1/128")
PRIVATE_NETS = _nets("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
LINK_LOCAL_NETS = _nets("169.254.0.0/16", "fe80::/10")


def parse_ip(text: str) -> IPAddress:
    """The address in ``text``; an IPv6 zone id (``%eth0``) is dropped and an IPv4-mapped
    IPv6 address (``::ffff:8.8.8.8``) becomes the IPv4 address it carries.

    Raises:
        ValueError: ``text`` is not an IP address.
    """
    addr = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def classify_ip(ip: str, private_networks: Iterable[IPNetwork] = ()) -> AddressClass:
    """The class of one address under the allow-list (plus the operator's own networks).

    Raises:
        ValueError: ``ip`` is not an IP address.
    """
    addr = parse_ip(ip)
    if _in(addr, LOOPBACK_NETS):
        return AddressClass.LOOPBACK
    if _in(addr, LINK_LOCAL_NETS):
        return AddressClass.LINK_LOCAL
    if _in(addr, PRIVATE_NETS) or _in(addr, private_networks):
        return AddressClass.PRIVATE
    return AddressClass.PUBLIC


def least_local(classes: Iterable[AddressClass]) -> AddressClass:
    order = list(AddressClass)
    return max(classes, key=order.index)


def _in(addr: IPAddress, nets: Iterable[IPNetwork]) -> bool:
    return any(addr.version == net.version and addr in net for net in nets)
