"""The workstation's own settings (the theme), kept in ``ui.toml`` beside the config file.

Written with tomli-w into a file of its own so that choosing a theme never rewrites the
attorney's hand-written ``config.toml`` (tomli-w would drop its comments). Read once by the app
factory; written by a thread worker when the theme changes.
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
