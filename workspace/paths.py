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
from dataclasses import dataclass
from pathlib import Path

import platformdirs

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
        return cls(
            config_file=Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml",
            data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
        )


def cache_dir() -> Path:
    """The shared cache for built and downloaded artefacts (not per-home)."""
    override = os.environ.get("CHAMBERS_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir(APP_NAME))


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
