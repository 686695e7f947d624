"""The tensor table of a GGUF file (name, shape, type, bytes), read without loading its metadata.

gguf-py's ``GGUFReader`` turns every metadata value into numpy views, and a model's vocabulary is
tens of thousands of strings: seconds per file. Planning needs only the tensor table, so the
metadata is skipped over here, value by value, and the table after it is read.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

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


def _u(fh: BinaryIO, fmt: str) -> int:
    size = struct.calcsize(fmt)
    data = fh.read(size)
    if len(data) != size:
        raise EOFError
    return int(struct.unpack(fmt, data)[0])


def _skip_value(fh: BinaryIO, kind: int) -> None:
    if kind in _SCALAR:
        fh.seek(_SCALAR[kind], 1)
    elif kind == _STRING:
        fh.seek(_u(fh, "<Q"), 1)
    elif kind == _ARRAY:
        inner, count = _u(fh, "<I"), _u(fh, "<Q")
        if inner in _SCALAR:
            fh.seek(_SCALAR[inner] * count, 1)
        else:
            for _ in range(count):
                _skip_value(fh, inner)
    else:
        raise ValueError(f"unknown metadata value type {kind}")


def read_tensor_table(path: Path) -> list[TensorInfo]:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    try:
        with open(path, "rb") as fh:
            if fh.read(4) != b"GGUF":
                raise ValueError("no GGUF magic at the start")
            _u(fh, "<I")  # version
            n_tensors, n_kv = _u(fh, "<Q"), _u(fh, "<Q")
            for _ in range(n_kv):
                fh.seek(_u(fh, "<Q"), 1)  # the key
                _skip_value(fh, _u(fh, "<I"))
            table = []
            for _ in range(n_tensors):
                name = fh.read(_u(fh, "<Q")).decode("utf-8")
                shape = tuple(_u(fh, "<Q") for _ in range(_u(fh, "<I")))
                qtype = GGMLQuantizationType(_u(fh, "<I"))
                _u(fh, "<Q")  # the data offset
                block, size = GGML_QUANT_SIZES[qtype]
                n = 1
                for d in shape:
                    n *= d
                table.append(TensorInfo(name, shape, qtype.name, n // block * size))
            return table
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
        raise GGUFTableError(f"{path} cannot be read as a GGUF model ({exc or 'it ends early'}).") from None
