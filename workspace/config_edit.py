"""Changing the attorney's config from the workstation: roles moved between backends, the theme.

The new text is rendered with tomli-w and parsed back with the very checks used at start-up before
anything is written, so a save can never leave a file that chambers would refuse at the next start.
tomli-w writes no comments, so the attorney's hand-written file is kept beside it as
``config.toml.bak``; a later save does not replace that copy with an already comment-less one.
Both files are written atomically: a failed save leaves the old config exactly as it was.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from workspace.config import ROLES, Config, ConfigError, UiSettings, config_to_toml, load_config, parse_config
from workspace.errors import ChambersError
from workspace.paths import write_atomically


class ConfigWriteError(ChambersError):
    title = "The config could not be saved"

    def __init__(self, file: Path, exc: OSError) -> None:
        where = exc.filename or file
        super().__init__(
            f"Writing {where} failed ({exc.strerror or exc}). Nothing was changed: {file} is as it was. "
            f"Make the folder {file.parent} writable by you (for example `chmod u+w {file.parent}`), "
            "or edit the file by hand, then save again."
        )
        self.file = str(file)


@dataclass(frozen=True)
class Saved:
    config: Config  # as parsed back from the text that was written
    backup: Path | None  # where the previous file was kept, or None when the .bak already held it


def backup_file(config_file: Path) -> Path:
    return config_file.with_name(config_file.name + ".bak")


def assign_roles(config: Config, assignments: Mapping[str, str | None]) -> Config:
    """``config`` with each role given to the named backend and taken from the one that had it.

    A role mapped to None keeps no backend, which is refused when it had one: the settings screen
    offers no way to do that, but a step without a server would only fail later, mid-run.
    """
    names = {b.name for b in config.backends}
    for role, name in assignments.items():
        if role not in ROLES:
            raise ConfigError(
                config.file, "roles", f"unknown role '{role}'; expected one of {', '.join(ROLES)}"
            )
        if name is not None and name not in names:
            raise ConfigError(config.file, "backends", f"no backend named '{name}' for the role '{role}'")
        if name is None and any(role in b.roles for b in config.backends):
            raise ConfigError(config.file, "backends", f"the role '{role}' would be left without a backend")
    backends = []
    for backend in config.backends:
        kept = [r for r in backend.roles if assignments.get(r, backend.name) == backend.name]
        added = [r for r in ROLES if assignments.get(r) == backend.name and r not in kept]
        backends.append(replace(backend, roles=tuple(kept + added)))
    return replace(config, backends=tuple(backends))


def with_theme(config: Config, theme: str | None) -> Config:
    return replace(config, ui=UiSettings(theme=theme))


def checked_text(config: Config) -> tuple[str, Config]:
    """The TOML chambers would write for ``config``, and that text parsed back with the loader's checks."""
    text = config_to_toml(config)
    return text, parse_config(tomllib.loads(text), config.file)


def save_config(config: Config) -> Saved:
    """Write ``config`` to ``config.file`` (which must exist), keeping the previous file as ``.bak``.

    Raises:
        ConfigError: the new config does not pass the start-up checks (nothing is written).
        ConfigWriteError: the folder or a file cannot be written (the old config is intact).
    """
    path = Path(config.file)
    text, parsed = checked_text(config)
    bak = backup_file(path)
    try:
        old = path.read_bytes()
        keep = not (bak.exists() and _written_by_chambers(old, config.file))
        if keep:
            write_atomically(bak, old)
        write_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise ConfigWriteError(path, exc) from exc
    return Saved(config=parsed, backup=bak if keep else None)


def update_config_file(path: Path, change: Callable[[Config], Config]) -> Saved:
    """Load the file as it is on disk now (hand edits since the start are kept), change it, save it."""
    return save_config(change(load_config(path)))


def _written_by_chambers(old: bytes, file: str) -> bool:
    """True when ``old`` is exactly what chambers writes: it has no comments worth a backup."""
    try:
        return checked_text(parse_config(tomllib.loads(old.decode("utf-8")), file))[0].encode("utf-8") == old
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ChambersError):
        return False
