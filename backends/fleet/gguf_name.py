"""The name a GGUF file gives its own model (``general.name``), read from the file's header alone.

A model served under its file path shows in stats and training under that path, while the same file
served by the demo shows under a short name: two names, so his pairs look like two models'. Serving a
file under one name derived from the file itself (or the backend's configured name) keeps one.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import BinaryIO

_MAGIC = b"GGUF"
_STRING = 8
_ARRAY = 9
# Byte widths of the fixed-size value types (uint8 .. float64, bool), by the GGUF type number.
_WIDTH = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_MAX_KEYS = 4096  # a header claiming more is not one to trust


def _u32(fh: BinaryIO) -> int:
    return int(struct.unpack("<I", fh.read(4))[0])


def _u64(fh: BinaryIO) -> int:
    return int(struct.unpack("<Q", fh.read(8))[0])


def _string(fh: BinaryIO) -> bytes:
    return fh.read(_u64(fh))


def _skip(fh: BinaryIO, kind: int) -> None:
    if kind == _STRING:
        fh.seek(_u64(fh), 1)
    elif kind == _ARRAY:
        inner, count = _u32(fh), _u64(fh)
        if inner in _WIDTH:
            fh.seek(_WIDTH[inner] * count, 1)
        else:
            for _ in range(count):
                _skip(fh, inner)
    elif kind in _WIDTH:
        fh.seek(_WIDTH[kind], 1)
    else:
        raise ValueError(f"unknown GGUF value type {kind}")


def general_name(path: Path) -> str | None:
    """``general.name`` from ``path``'s header; None when the file is no GGUF or names no model."""
    try:
        with open(path, "rb") as fh:
            if fh.read(4) != _MAGIC:
                return None
            _u32(fh)  # version
            _u64(fh)  # tensor count
            keys = _u64(fh)
            for _ in range(min(keys, _MAX_KEYS)):
                key, kind = _string(fh), _u32(fh)
                if key == b"general.name" and kind == _STRING:
                    return _string(fh).decode("utf-8", "replace").strip() or None
                _skip(fh, kind)
    except (OSError, struct.error, ValueError):
        return None
    return None


def served_name(path: Path) -> str | None:
    """The name a server of ``path`` is given: its ``general.name`` made a slug, with the file's size
    (so two quantizations of one model stay apart); None when the header names no model."""
    name = general_name(path)
    if name is None:
        return None
    slug = re.sub(r"[^a-z0-9.]+", "-", name.casefold()).strip("-")
    size = path.stat().st_size
    return f"{slug}-{size // 1_000_000}mb" if slug else None
