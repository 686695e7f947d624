"""The sha256 of a file or a folder, the one place chambers hashes what is on disk.

``hashlib.file_digest`` reads the file in blocks (a model or a production's sources can be many
gigabytes) without a loop of our own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path | str) -> str:
    """The hex sha256 of the file at ``path``."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def tree_sha256(path: Path) -> str:
    """The sha256 of a file, or of a folder: every file in it (sorted by name), each by its relative
    name and its own digest, so a renamed or changed file changes the folder's."""
    if not path.is_dir():
        return file_sha256(path)
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(file.relative_to(path).as_posix().encode() + b"\0" + file_sha256(file).encode() + b"\n")
    return digest.hexdigest()
