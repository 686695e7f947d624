"""Changing the attorney's config from the workstation: roles moved between backends, the theme.

The file is his: written by hand, with comments saying why each server is where it is. So a save
edits the parsed document in place with tomlkit, which keeps every comment, blank line and
layout it does not touch: a role taken from a backend is removed from its ``roles`` array, a role
given is appended, the theme's value is replaced (or a ``[ui]`` table added at the end). The new
text is then parsed back with the very checks used at start-up, and must give exactly the config
asked for, before anything is written; the write is atomic, so a failed save leaves the old file
exactly as it was.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from workspace.config import ROLES, Config, ConfigError, UiSettings, load_config, parse_config
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


class ConfigChangedOutside(ChambersError):
    title = "The config file changed outside chambers"

    def __init__(self, file: Path, clashes: list[str]) -> None:
        super().__init__(
            f"{file} was edited since Settings opened, and the edit gives a role another backend than "
            f"the one you chose on screen: {'; '.join(clashes)}. Nothing was saved, so your edit in the "
            "file is kept. Leave Settings (Esc) and open it again (F10) to see the file as it is now, "
            "then choose again."
        )


@dataclass(frozen=True)
class SavedConfig:
    config: Config  # as parsed back from the text that was written
    edited_outside: bool = False  # the file held changes made by hand since the screen showed it


def owner(config: Config, role: str) -> str | None:
    """The name of the backend that has ``role``, or None."""
    return next((b.name for b in config.backends if role in b.roles), None)


def clashing_roles(shown: Config, on_disk: Config, chosen: Mapping[str, str | None]) -> list[str]:
    """The roles chosen on screen that the file, edited meanwhile, gives to yet another backend.

    ``shown`` is the config the screen was built from, ``on_disk`` the file as it is now. A role
    moved by hand and left alone on screen is no clash (the save does not touch it), nor is a hand
    move to the very backend chosen on screen.
    """
    return [
        role
        for role, name in chosen.items()
        if owner(on_disk, role) != owner(shown, role) and owner(on_disk, role) != name
    ]


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


def edited_text(text: str, config: Config) -> str:
    """``text`` (the file as it is) with the roles and theme of ``config``, everything else untouched.

    Raises:
        ConfigError: the text is not TOML, or ``config`` differs from it in more than roles and theme
            (this editor changes nothing else, so it refuses rather than drop a change).
    """
    try:
        document = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        raise ConfigError(config.file, "", f"is not valid TOML ({exc})") from None
    tables = document.get("backends", [])
    for table in tables:
        wanted = next((b.roles for b in config.backends if b.name == table.get("name")), None)
        if wanted is not None:
            _set_roles(table, wanted)
    _set_theme(document, config.ui.theme)
    new = tomlkit.dumps(document)
    parsed = parse_config(tomllib.loads(new), config.file)
    if parsed != config:
        raise ConfigError(
            config.file,
            "",
            "changed in more than roles and the theme, which is all Settings may save; "
            "make the other changes by hand in the file",
        )
    return new


def _set_roles(table: Any, wanted: tuple[str, ...]) -> None:
    """Remove the roles no longer wanted and append the new ones, so the array keeps its layout."""
    if "roles" not in table:
        if wanted:
            table["roles"] = list(wanted)
        return
    roles = table["roles"]
    for index in reversed(range(len(roles))):
        if roles[index] not in wanted:
            del roles[index]
    for role in wanted:
        if role not in roles:
            roles.append(role)


def _set_theme(document: Any, theme: str | None) -> None:
    ui = document.get("ui")
    if theme is None:
        if ui is not None and "theme" in ui:
            del ui["theme"]
        return
    if ui is None:
        ui = tomlkit.table()
        ui["theme"] = theme
        document["ui"] = ui
    elif ui.get("theme") != theme:
        ui["theme"] = theme


def save_config(config: Config) -> SavedConfig:
    """Write the roles and theme of ``config`` into ``config.file`` (which must exist), keeping its comments.

    Raises:
        ConfigError: the new config does not pass the start-up checks (nothing is written).
        ConfigWriteError: the folder or the file cannot be written (the old config is intact).
    """
    path = Path(config.file)
    try:
        old = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(path, "", "is not UTF-8 text; save it as UTF-8") from None
    except OSError as exc:
        raise ConfigWriteError(path, exc) from exc
    text = edited_text(old, config)
    try:
        write_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise ConfigWriteError(path, exc) from exc
    return SavedConfig(config=parse_config(tomllib.loads(text), config.file))


def update_config_file(path: Path, change: Callable[[Config], Config]) -> SavedConfig:
    """Load the file as it is on disk now (hand edits since the start are kept), change it, save it."""
    return save_config(change(load_config(path)))
