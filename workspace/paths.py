"""Where chambers keeps its files.

Everything the attorney owns (config, database) lives under one home: the
platform's config and data folders, or ``$CHAMBERS_HOME`` when it is set
(tests always set it to a temporary folder). Downloaded and built artefacts
(the llama-server binary, the demo model) live in the user cache folder,
deliberately outside ``CHAMBERS_HOME``: they are large, identical for every
home, and rebuilding llama-server costs minutes. ``$CHAMBERS_CACHE_DIR``
moves that cache.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

APP_NAME = "chambers"


@dataclass(frozen=True)
class Paths:
    config_file: Path
    data_dir: Path

    @property
    def database_file(self) -> Path:
        return self.data_dir / "chambers.sqlite3"

    @classmethod
    def from_environment(cls) -> Paths:
        """Paths for this process; nothing is created until something is written."""
        home = os.environ.get("CHAMBERS_HOME")
        if home:
            root = Path(home).expanduser()
            return cls(config_file=root / "config.toml", data_dir=root / "data")
        import platformdirs  # here, not at the top: a start with CHAMBERS_HOME set (tests, scripts) never needs it

        return cls(
            config_file=Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml",
            data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
        )


def cache_dir() -> Path:
    """The shared cache for built and downloaded artefacts (not per-home)."""
    override = os.environ.get("CHAMBERS_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME))


def temp_name(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place: ``.NAME.PID.tmp`` beside it.

    The same folder keeps the rename atomic; the leading dot hides it; the process id tells, after a
    crash, whether its writer is still alive (``exhibits.pending`` removes the orphans).
    """
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def sync_file(path: Path) -> None:
    """Wait until what was written to ``path`` is on disk."""
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def write_temp(path: Path, data: bytes) -> Path:
    """Write ``data`` under ``path``'s temporary name, on disk before returning; ``publish`` renames it."""
    tmp = temp_name(path)
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return tmp


def publish(tmp: Path, path: Path) -> None:
    """Rename a complete temporary file to its final name, once it is on disk."""
    sync_file(tmp)
    os.replace(tmp, path)


@contextmanager
def atomic_file(path: Path, *, encoding: str | None = None) -> Iterator[IO[Any]]:
    """A file to write ``path`` through: it appears whole when the block ends, or not at all.

    Text with ``encoding``, bytes without. The data goes to ``temp_name(path)``, on disk before the
    rename; an exception in the block removes the temporary file and leaves ``path`` as it was.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_name(path)
    try:
        with open(tmp, "w" if encoding else "wb", encoding=encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new, never half."""
    with atomic_file(path) as fh:
        fh.write(data)
