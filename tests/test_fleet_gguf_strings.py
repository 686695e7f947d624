"""The tensor table reader steps over string arrays by their length prefixes, read in one numpy pass.

The pass takes any offset followed by seven zero bytes for a short string's prefix, so these files
hold what could mislead it: empty strings, runs of NUL bytes inside strings, strings of 255 and 256
bytes and longer, and arrays larger than its first window. Each file is written by gguf-py's own
writer and read back by gguf-py's reader, and the table read here must match it entry for entry,
with the integer after the arrays (which only an exact walk lands on) read right.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from gguf import GGUFReader, GGUFWriter

from backends.fleet.gguf_tensors import GGUFTableError, read_layout


def _tricky(rng: random.Random, n: int, rate: float) -> list[str]:
    """Short words, with one in ``1 / rate`` of them of a kind that ends a run of the pass."""
    words = []
    for _ in range(n):
        pick = rng.random() / rate
        if pick < 0.3:
            words.append("")
        elif pick < 0.6:
            words.append("a" + "\x00" * rng.randint(6, 12) + "b")  # a zero run that reads like a prefix
        elif pick < 0.85:
            words.append("x" * rng.choice((255, 256, 257, 300, 1500)))
        elif pick < 1.0:
            words.append("é" * rng.randint(100, 200))  # two bytes each: long in bytes, not in characters
        else:
            words.append("".join(rng.choice("abcdefgh Ġ") for _ in range(rng.randint(1, 12))))
    return words


def _write(path: Path, arrays: dict[str, list[str]]) -> None:
    writer = GGUFWriter(str(path), "llama")
    writer.add_uint32("before.count", 7)
    for key, values in arrays.items():
        writer.add_array(key, values)
    writer.add_uint32("after.count", 4242)  # read only where every array before it was stepped over exactly
    writer.add_string("after.name", "tail")
    for i in range(3):
        writer.add_tensor(f"blk.{i}.w.weight", np.arange(32 * (i + 1), dtype=np.float32).reshape(i + 1, 32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def _theirs(path: Path) -> list[tuple[str, tuple[int, ...], str, int, int]]:
    return [
        (t.name, tuple(int(d) for d in t.shape), t.tensor_type.name, int(t.n_bytes), int(t.data_offset))
        for t in GGUFReader(str(path)).tensors
    ]


@pytest.mark.parametrize(("seed", "rate"), [(1, 0.01), (2, 0.03), (3, 0.2)])
def test_string_arrays_that_could_mislead_the_pass_are_stepped_over_exactly(
    tmp_path: Path, seed: int, rate: float
) -> None:
    rng = random.Random(seed)
    arrays = {
        "tokenizer.ggml.tokens": _tricky(rng, 6000, rate),
        "short.words": ["".join(rng.choice("abc") for _ in range(rng.randint(1, 9))) for _ in range(4000)],
        "empty.words": [""] * 300,  # one long zero run: every offset in it looks like a prefix
        "long.words": ["y" * rng.randint(256, 2000) for _ in range(200)],
        "one.word": ["z"],
        "no.words": [],
    }
    path = tmp_path / "strings.gguf"
    _write(path, arrays)
    layout = read_layout(path)
    assert [(t.name, t.shape, t.type_name, t.n_bytes, t.offset) for t in layout.tensors] == _theirs(path)
    assert layout.ints["before.count"] == 7 and layout.ints["after.count"] == 4242


def test_a_file_cut_inside_a_string_array_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "strings.gguf"
    _write(path, {"tokenizer.ggml.tokens": _tricky(random.Random(9), 3000, 0.02)})
    whole = path.read_bytes()
    for end in (200, 5000, 20_000, len(whole) // 2):
        cut = tmp_path / f"cut-{end}.gguf"
        cut.write_bytes(whole[:end])
        with pytest.raises(GGUFTableError, match="cannot be read as a GGUF model"):
            read_layout(cut)
