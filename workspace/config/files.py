"""The config file: read with tomllib and checked against the schema, or written with tomli-w."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workspace.config.errors import ConfigError, ConfigMissing
from workspace.config.model import Config
from workspace.config.schema import Wrong, keys_of, read_table, written
from workspace.config_checks import nesting_too_deep

_TOP_TABLES = keys_of(Config)
_TABLE_HEADER = re.compile(r"^[ \t]*(\[\[?)[ \t]*([A-Za-z0-9_-]+)", re.MULTILINE)


def load_config(path: Path) -> Config:
    """Read and check the config at ``path``.

    Raises:
        ConfigMissing: the file does not exist.
        ConfigError: the file is not valid TOML or does not match the schema.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigMissing(path) from None
    except OSError as exc:
        raise ConfigError(path, "", f"cannot be read ({exc.strerror})") from exc
    try:
        text = raw.decode("utf-8-sig")  # editors on Windows start the file with a byte-order mark
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(path, "", f"is not UTF-8 text (line {line}); save it as UTF-8") from None
    deep = nesting_too_deep(text)
    if deep is not None:
        raise ConfigError(path, "", f"line {deep} nests lists or tables too deeply to be a chambers config")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _misnamed_table(path, text, exc) or ConfigError(
            path, "", f"is not valid TOML ({exc})"
        ) from None
    except (RecursionError, ValueError) as exc:  # anything else the parser trips on
        raise ConfigError(path, "", f"cannot be read as TOML ({type(exc).__name__}: {exc})") from None
    return parse_config(data, str(path))


def parse_config(data: Mapping[str, Any], file: str) -> Config:
    """``data`` (parsed TOML) checked against the schema; errors name ``file`` and the key."""
    try:
        return read_table(Config, data, "", file=file)
    except Wrong as exc:
        raise ConfigError(file, exc.key, exc.problem) from None


def _misnamed_table(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> ConfigError | None:
    """A TOML error caused by a misspelt table name, said as such.

    ``[[backend]]`` followed by ``[backends.sampling]`` is valid until the second backend, where the
    TOML reader says "Cannot declare ('backends', 'sampling') twice": true, but the mistake is the name.
    """
    for match in _TABLE_HEADER.finditer(text):
        name = match[2]
        if name in _TOP_TABLES:
            continue
        line = text.count("\n", 0, match.start()) + 1
        brackets = ("[[", "]]") if match[1] == "[[" else ("[", "]")
        close = difflib.get_close_matches(name, _TOP_TABLES, n=1)
        hint = f"did you mean `{brackets[0]}{close[0]}{brackets[1]}`? " if close else ""
        return ConfigError(
            path,
            name,
            f"line {line}: `{brackets[0]}{name}{brackets[1]}` is not a table chambers knows; {hint}"
            f"the tables are {', '.join(_TOP_TABLES)} (the TOML reader then stopped: {exc})",
        )
    return None


def starter_config_text() -> str:
    """The commented starter config that ``chambers init`` writes."""
    return (Path(__file__).parent / "starter_config.toml").read_text(encoding="utf-8")


def config_to_toml(config: Config) -> str:
    """Serialise ``config`` with tomli-w, for configs chambers generates (the demo's, the tests').

    tomli-w writes no comments; saves into the attorney's own file go through ``workspace.config_edit``."""
    import tomli_w

    return tomli_w.dumps(written(config))
