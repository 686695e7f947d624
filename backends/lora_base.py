"""Is a server's model the base an adapter was trained on?

An adapter trained on one quantization of a model loads without complaint over another (the shapes fit)
and quietly drafts something else than what was trained and scored. The registry keeps each adapter's
base (file, size and sha256); the server says which file it loaded (``/props``' ``model_path``). Where
that file is on this machine, its path and size settle it when both match the record, its size when it
differs, and its sha256 otherwise (hashed once per file version). A file on another machine can only be
compared by name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import PurePath

from backends.lora import local_sha256


@dataclass(frozen=True)
class TrainedOn:
    """What the registry says an adapter was trained on (the caller reads the registry)."""

    adapter: str
    base_path: str
    base_sha256: str
    base_size: int | None = None  # None for an adapter registered before sizes were kept


@dataclass(frozen=True)
class ServedModel:
    """The model file a server loaded, as far as this machine can see it."""

    path: str
    size: int | None  # None: the file is not on this machine
    sha256: str | None = None  # filled in only when the comparison needed it

    @property
    def name(self) -> str:
        return PurePath(self.path.replace("\\", "/")).name


def served_model(path: str) -> ServedModel:
    try:
        return ServedModel(path, os.stat(path).st_size)
    except OSError:
        return ServedModel(path, None)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def mismatch(trained: TrainedOn, served: ServedModel) -> str | None:
    """None when ``served`` is the adapter's base (or nothing here can tell them apart); else why not,
    naming both files."""
    base_name = PurePath(trained.base_path).name
    if served.size is None:
        if served.name == base_name:
            return None
        return (
            f"adapter {trained.adapter} was trained on {trained.base_path}, but the server loads "
            f"{served.path} (another file name; that file is not on this machine, so only names are compared)"
        )
    if _same_file(served.path, trained.base_path) and trained.base_size == served.size:
        return None
    if trained.base_size is not None and trained.base_size != served.size:
        return _words(trained, served, f"{served.size:,} bytes, the base had {trained.base_size:,}")
    digest = local_sha256(served.path)
    if digest is None or digest == trained.base_sha256:
        return None
    return _words(trained, served, f"sha256 {digest[:12]}…, the base's is {trained.base_sha256[:12]}…")


def _words(trained: TrainedOn, served: ServedModel, how: str) -> str:
    return f"adapter {trained.adapter} was trained on {trained.base_path}, not on the served {served.path} ({how})"
