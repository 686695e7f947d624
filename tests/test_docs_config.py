"""docs/config.md lists exactly the config keys chambers declares, so the reference cannot drift.

The keys come from the declarations themselves: the ``@schema`` tables of ``workspace.config.model``
(walked from ``Config`` through every nested table) and the launch profiles' keys, which the fleet
reads (``backends.fleet.profiles``). A key is named by its table's path, as the page names it:
``backends.sampling.temperature`` is ``temperature`` under one ``[[backends]]`` entry's sampling.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

from backends.fleet.profiles import _KEYS as PROFILE_KEYS  # the profile parser's own key set
from backends.fleet.profiles import SAMPLING_FLAGS
from workspace.config import Config
from workspace.config.schema import keys_of

CONFIG_DOC = Path(__file__).resolve().parent.parent / "docs" / "config.md"
ROW_KEY = re.compile(r"^\| `([a-z_]+(?:\.[a-z_]+)*)` \|", re.MULTILINE)


def _table_class(hint: object) -> type | None:
    """The ``@schema`` class a field holds, alone or as an array of tables; None for a plain value."""
    if typing.get_origin(hint) is tuple:
        hint = typing.get_args(hint)[0]
    return hint if isinstance(hint, type) and dataclasses.is_dataclass(hint) else None


def _declared(cls: type, prefix: str = "") -> set[str]:
    hints = typing.get_type_hints(cls)
    found: set[str] = set()
    for key in keys_of(cls):
        path = f"{prefix}{key}"
        nested = _table_class(hints[key])
        found |= _declared(nested, f"{path}.") if nested is not None else {path}
    return found


def declared_keys() -> set[str]:
    keys = _declared(Config)
    # [[profiles]] is kept raw by the config and read by the fleet: its keys are the fleet's.
    keys.remove("profiles")
    keys |= {f"profiles.{k}" for k in PROFILE_KEYS if k != "sampling"}
    keys |= {f"profiles.sampling.{k}" for k in SAMPLING_FLAGS}
    return keys


def documented_keys() -> list[str]:
    return ROW_KEY.findall(CONFIG_DOC.read_text(encoding="utf-8"))


def test_the_walk_finds_nested_tables_and_profiles() -> None:
    keys = declared_keys()
    # One of each shape: a top-level table, an array of tables, a table in one, an array in one,
    # a raw key table, and the fleet's profiles with their sampling.
    expected = {
        "policy.local_only",
        "boards.gpus",
        "backends.sampling.seed",
        "backends.lora.scale",
        "keys",
        "profiles.n_cpu_moe",
        "profiles.sampling.top_k",
    }
    assert expected <= keys, sorted(expected - keys)
    assert "file" not in keys  # where the config was read from, not a key of it


def test_every_declared_key_is_documented() -> None:
    missing = sorted(declared_keys() - set(documented_keys()))
    assert not missing, f"declared in the config schema but not in docs/config.md: {missing}"


def test_every_documented_key_is_declared() -> None:
    unknown = sorted(set(documented_keys()) - declared_keys())
    assert not unknown, f"in docs/config.md but not declared by the config schema: {unknown}"


def test_each_key_is_documented_once() -> None:
    rows = documented_keys()
    twice = sorted({k for k in rows if rows.count(k) > 1})
    assert not twice, f"docs/config.md lists these keys more than once: {twice}"
