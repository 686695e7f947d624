"""The one file hash: the same digest as hashing the bytes whole, and a folder's digest that follows
its files' names and contents."""

from __future__ import annotations

import hashlib
from pathlib import Path

from workspace.digest import file_sha256, tree_sha256


def test_a_file_larger_than_a_block_hashes_as_its_bytes(tmp_path: Path) -> None:
    data = bytes(range(256)) * (3 * 4096 + 7)  # about 3 MiB, not a whole number of blocks
    file = tmp_path / "model.gguf"
    file.write_bytes(data)
    assert file_sha256(file) == hashlib.sha256(data).hexdigest()
    assert file_sha256(str(file)) == file_sha256(file)
    assert tree_sha256(file) == file_sha256(file)


def test_a_folder_digest_changes_with_a_name_or_a_content(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "sub").mkdir(parents=True)
    (base / "config.json").write_text("{}")
    (base / "sub" / "weights.bin").write_bytes(b"\x00" * 10)
    first = tree_sha256(base)
    assert tree_sha256(base) == first
    (base / "sub" / "weights.bin").write_bytes(b"\x01" * 10)
    changed = tree_sha256(base)
    assert changed != first
    (base / "sub" / "weights.bin").rename(base / "sub" / "other.bin")
    assert tree_sha256(base) not in (first, changed)
