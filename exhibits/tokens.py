"""Words PDF keeps outside strings, and the spellings a web address gives a word.

Name objects carry text too: ``/Project#20Nightjar`` is "Project Nightjar", a
producer's private key or value can be any name, and a content stream names
its resources. A link's address spells "Project Nightjar" as
``Project+Nightjar`` and a dash as ``%2D``, even twice over (``%252D``). So
names are read with their ``#xx`` escapes undone, and addresses URL-decoded
until they stop changing, before the search.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

_NAME = re.compile(rb"/([^\s/\[\]()<>{}%\x00]+)")
_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")
_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}|\+")
MAX_DECODINGS = 4  # "%25252D" is a dash encoded three times over; more than this is not an address


def name_text(raw: bytes) -> str:
    """A name's text, its ``#xx`` escapes undone (UTF-8 where it decodes so, else byte for byte)."""
    value = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), raw)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


def names(source: bytes) -> list[str]:
    """Every name object in PDF source (dictionary keys too), decoded."""
    return [name_text(m.group(1)) for m in _NAME.finditer(source)]


def url_views(text: str) -> list[str]:
    """``text``, then as many URL decodings of it as change it: what a browser makes of an address."""
    views = [text]
    while _ENCODED.search(views[-1]) and len(views) <= MAX_DECODINGS:
        decoded = unquote_plus(views[-1])
        if decoded == views[-1]:
            break
        views.append(decoded)
    return views


def with_url_views(text: str) -> str:
    """``text`` followed by its URL decodings, for a search that must find an encoded secret."""
    return "\n".join(url_views(text))
