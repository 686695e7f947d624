"""Checks of single config values, so that whatever passes ``config`` cannot crash a command later.

A URL with a newline in it, a NaN temperature or an array nested ten thousand
deep all parse as TOML. Each check here returns the problem in words (or None),
and the config reader turns that into an error naming the file and the key.
"""

from __future__ import annotations

import ipaddress
import math
import re
import unicodedata
from urllib.parse import urlsplit

import idna

MAX_NESTING = 32  # far deeper than any chambers config; tomllib recurses per level
_NETLOC = re.compile(r"(\[[^\[\]]+\]|[^\[\]:@]+)(:[0-9]{1,5})?")
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
# An operator's network broader than this is not an office network but most of the internet.
MIN_PREFIX = {4: 8, 6: 16}


def url_problem(url: str, *, base: bool = True) -> str | None:
    """What is wrong with ``url`` as a server address, or None.

    ``base``: the URL is a base that paths are appended to, so it may not carry a
    query or a fragment.
    """
    bad = next((c for c in url if _is_control(c)), None)
    if bad is not None:
        return f"it contains the invisible or control character U+{ord(bad):04X}; retype the address"
    if not url or url != url.strip() or " " in url:
        return "it is empty or contains spaces"
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # an unbalanced "[" for an IPv6 address
        return f"it cannot be read as a URL ({exc}; an IPv6 address goes in brackets: http://[fd00::1]:8080)"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "expected a URL with a scheme, such as http://127.0.0.1:8080"
    if "@" in parts.netloc:
        return "it carries a user name or password; chambers does not send credentials in a URL"
    if base and (parts.query or parts.fragment or url.endswith(("?", "#"))):
        return "a server address takes no ?query or #fragment"
    if not _NETLOC.fullmatch(parts.netloc):  # urlsplit forgives what httpx refuses: "[::1]0:80", "h:"
        return "expected host:port after the scheme, such as 127.0.0.1:8080 or [fd00::1]:8080"
    host = parts.hostname or ""
    problem = _host_problem(host, bracketed=parts.netloc.startswith("["))
    if problem:
        return problem
    try:
        port = parts.port
    except ValueError:
        return "the port is not a number from 1 to 65535"
    if port == 0 or (parts.netloc.endswith(":") and port is None):
        return "the port is not a number from 1 to 65535"
    return None


def _is_control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def _host_problem(host: str, *, bracketed: bool) -> str | None:
    if not host:
        return "the address has no host"
    if bracketed:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f"'{host}' in brackets is not an IPv6 address"
        return None
    if re.fullmatch(r"[0-9.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return f"'{host}' is not a valid IPv4 address"
        return None
    try:  # the IDNA 2008 rules httpx applies (Python's own "idna" codec is the laxer IDNA 2003)
        ascii_host = host if host.isascii() else idna.encode(host.lower()).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return f"'{host}' is not a valid host name"
    labels = ascii_host.rstrip(".").split(".")
    if len(ascii_host) > 253 or not all(_LABEL.match(label) for label in labels):
        return f"'{host}' is not a valid host name (letters, digits and hyphens, dot-separated)"
    return None


def range_problem(value: float, low: float, high: float, *, low_open: bool = False) -> str | None:
    """What is wrong with ``value`` for a setting from ``low`` to ``high``, or None."""
    if not math.isfinite(value):
        return f"expected a finite number from {low:g} to {high:g}, got {value}"
    if value < low or value > high or (low_open and value == low):
        above = f"above {low:g}" if low_open else f"from {low:g}"
        return f"expected a number {above} to {high:g}, got {value:g}"
    return None


def private_network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """One ``[policy] private_networks`` entry, such as ``100.64.0.0/10``.

    Raises:
        ValueError: not a network, or one so broad it cannot be an office network.
    """
    net = ipaddress.ip_network(text.strip(), strict=False)
    if net.prefixlen < MIN_PREFIX[net.version]:
        raise ValueError(
            f"/{net.prefixlen} is broader than any office network (at most /{MIN_PREFIX[net.version]})"
        )
    return net


def nesting_too_deep(text: str, limit: int = MAX_NESTING) -> int | None:
    """The line on which arrays or inline tables nest deeper than ``limit``, or None.

    tomllib recurses once per level and dies with RecursionError (no line, no
    file) on a few thousand; this scan finds the place first. It skips strings
    and comments, so brackets inside them do not count.
    """
    depth, line, i, n = 0, 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                step = 2 if text[i] == "\\" and c == '"' else 1  # an escape hides the next character
                newlines = text.count("\n", i, i + step)
                if newlines and len(quote) == 1:
                    break  # an unclosed one-line string: tomllib reports it
                line += newlines
                i += step
            i += len(quote)
            continue
        elif c in "[{":
            depth += 1
            if depth > limit:
                return line
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None
