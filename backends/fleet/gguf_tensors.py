"""The tensor table of a GGUF file (name, shape, type, bytes), read without loading its metadata.

gguf-py's ``GGUFReader`` turns every metadata value into numpy views, and a model's vocabulary is
tens of thousands of strings: seconds per file. Planning needs only the tensor table, so the
metadata is stepped over here, in the memory-mapped file, by its length prefixes alone, and the table
after it is read. A string array's length prefixes are read in one numpy pass (``_skip_strings``):
a step per string in Python costs 25 ms on the tiny MoE's vocabulary and merges, against a
llama-quantize run of a third of a second.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

from workspace.errors import ChambersError

_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}  # GGUF value type -> bytes
_STRING, _ARRAY = 8, 9


class GGUFTableError(ChambersError):
    title = "The GGUF file could not be read"


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]  # ggml order: row length first
    type_name: str
    n_bytes: int
    offset: int = 0  # where its data starts, from the start of the file


_INTS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 10: "<Q", 11: "<q"}  # integer value types


@dataclass(frozen=True)
class Layout:
    tensors: list[TensorInfo]
    ints: dict[str, int]  # the integer metadata (alignment, counts), every other value stepped over


def _u(buf: mmap.mmap, off: int, fmt: str) -> tuple[int, int]:
    """The integer at ``off`` and the offset after it."""
    size = struct.calcsize(fmt)
    if off + size > len(buf):
        raise EOFError
    return int(struct.unpack_from(fmt, buf, off)[0]), off + size


def _skip_value(buf: mmap.mmap, off: int, kind: int) -> int:
    """The offset after one metadata value. A vocabulary is an array of tens of thousands of strings:
    they are stepped over by their length prefixes alone, in one tight loop over the mapped file."""
    if kind in _SCALAR:
        return off + _SCALAR[kind]
    if kind == _STRING:
        n, off = _u(buf, off, "<Q")
        return off + n
    if kind != _ARRAY:
        raise ValueError(f"unknown metadata value type {kind}")
    inner, off = _u(buf, off, "<I")
    count, off = _u(buf, off, "<Q")
    if inner in _SCALAR:
        return off + _SCALAR[inner] * count
    if inner == _STRING:
        return _skip_strings(buf, off, count)
    for _ in range(count):
        off = _skip_value(buf, off, inner)
    return off


_STRING_GUESS = 16  # bytes a window allows per string: an 8-byte prefix and a short token or merge
_UNPACK_U64 = struct.Struct("<Q").unpack_from


def _step_strings(buf: mmap.mmap, off: int, count: int) -> int:
    """The offset after ``count`` length-prefixed strings from ``off``, one prefix read at a time."""
    end = len(buf)
    for _ in range(count):
        if off + 8 > end:
            raise EOFError
        off += 8 + _UNPACK_U64(buf, off)[0]
    return off


def _skip_strings(buf: mmap.mmap, off: int, count: int) -> int:
    """The offset after ``count`` length-prefixed strings from ``off``, each length read from its own prefix.

    Every offset of a window followed by seven zero bytes may be the prefix of a string under 256
    bytes (a little-endian u64 with zero high bytes), its low byte the length. Where each such prefix
    points at the next, the run is a chain of real prefixes, exact by induction from the first, and is
    stepped over in one move. A string of 256 bytes or more, or a stray zero run inside a string that
    reads as a prefix, ends a run; there the next prefix is read by hand, so the walk is exact whatever
    the strings hold."""
    import numpy as np  # here, not at the top: the dashboard imports this module and never reads a table

    end = len(buf)
    while count:
        width = min(end - off, count * _STRING_GUESS + 64)
        if width < 8:
            raise EOFError
        chunk = buf[off : off + width]  # a copy: no numpy view may outlive the mapping it reads
        byte = np.frombuffer(chunk, np.uint8)
        zero = byte == 0
        short = zero[1 : width - 6].copy()  # offsets whose next seven bytes are all zero
        for k in range(2, 8):
            short &= zero[k : width - 7 + k]
        starts = np.flatnonzero(short)
        after = starts + 8 + byte[starts]
        breaks = np.flatnonzero(starts[1:] != after[:-1])  # a run ends at each of these indices
        if 2 * len(starts) < count or 8 * len(breaks) > len(starts):
            return _step_strings(buf, off, count)  # mostly long strings or short runs: no run to take
        pos = 0
        while count and pos + 8 <= width:
            i = int(np.searchsorted(starts, pos))
            if i < len(starts) and starts[i] == pos:
                b = int(np.searchsorted(breaks, i))
                last = int(breaks[b]) if b < len(breaks) else len(starts) - 1
                take = min(last - i + 1, count)
                pos, count = int(after[i + take - 1]), count - take
            else:
                pos, count = pos + 8 + _UNPACK_U64(chunk, pos)[0], count - 1
        off += pos
    if off > end:
        raise EOFError
    return off


def read_tensor_table(path: Path) -> list[TensorInfo]:
    return read_layout(path).tensors


def read_layout(path: Path) -> Layout:
    """The tensor table with each tensor's absolute data offset, and the integer metadata."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            if buf[:4] != b"GGUF":
                raise ValueError("no GGUF magic at the start")
            off = 8  # the magic and the version
            n_tensors, off = _u(buf, off, "<Q")
            n_kv, off = _u(buf, off, "<Q")
            ints: dict[str, int] = {}
            for _ in range(n_kv):
                key_len, off = _u(buf, off, "<Q")
                key_at = off
                kind, off = _u(buf, off + key_len, "<I")  # the value's type follows the key
                if kind in _INTS:
                    ints[bytes(buf[key_at : key_at + key_len]).decode("utf-8")] = _u(buf, off, _INTS[kind])[0]
                off = _skip_value(buf, off, kind)
            table = []
            for _ in range(n_tensors):
                name_len, off = _u(buf, off, "<Q")
                name = bytes(buf[off : off + name_len]).decode("utf-8")
                off += name_len
                n_dims, off = _u(buf, off, "<I")
                shape = []
                for _ in range(n_dims):
                    d, off = _u(buf, off, "<Q")
                    shape.append(d)
                raw_type, off = _u(buf, off, "<I")
                qtype = GGMLQuantizationType(raw_type)
                data_at, off = _u(buf, off, "<Q")
                block, size = GGML_QUANT_SIZES[qtype]
                n = 1
                for d in shape:
                    n *= d
                table.append(TensorInfo(name, tuple(shape), qtype.name, n // block * size, data_at))
            align = ints.get("general.alignment", 32)
            start = off + (-off % align)  # the data section begins at the next multiple of the alignment
            placed = [TensorInfo(t.name, t.shape, t.type_name, t.n_bytes, start + t.offset) for t in table]
            return Layout(placed, ints)
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
        raise GGUFTableError(f"{path} cannot be read as a GGUF model ({exc or 'it ends early'}).") from None
