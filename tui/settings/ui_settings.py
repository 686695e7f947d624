"""Where the chosen theme is kept: the config's ``[ui]`` table, or ``ui.toml`` when there is no config file.

The theme lives in ``config.toml`` (``[ui] theme``) beside the backends, saved through
``workspace.config_edit`` (which keeps the file's comments). ``ui.toml``,
where earlier versions kept it, is still read when the config names no theme, and is still written
when the app runs on a config that is not a file on disk (the tests', or one built in code): a
theme change must never create a config file as a side effect.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from workspace.paths import Paths, write_atomically


def ui_file() -> Path:
    return Paths.from_environment().config_file.with_name("ui.toml")


def load_theme(file: Path | None = None) -> str | None:
    """The saved theme's name, or None (no file, no key, or a file that is not TOML: the default then)."""
    path = file or ui_file()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    theme = data.get("ui", {}).get("theme") if isinstance(data.get("ui"), dict) else None
    return theme if isinstance(theme, str) and theme else None


def save_theme(name: str, file: Path | None = None) -> None:
    import tomli_w

    write_atomically(file or ui_file(), tomli_w.dumps({"ui": {"theme": name}}).encode("utf-8"))


def persist_theme(name: str, config_file: Path) -> None:
    """Keep ``name`` for the next start: in the config file when it exists, else in ui.toml."""
    if config_file.is_file():
        from workspace.config_edit import update_config_file, with_theme

        update_config_file(config_file, lambda config: with_theme(config, name))
    else:
        save_theme(name)
