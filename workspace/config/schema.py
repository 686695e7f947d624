"""A config table declared once, and read, checked and written from that one declaration.

A config class is a frozen dataclass made with ``@schema``. Each TOML key of its table is a field
made with ``setting(read, ...)``: the field's name is the key, ``read`` turns the TOML value into
the field's type or says what is wrong with it (mypy checks that what ``read`` returns is the
field's type), and the field's default is the value when the key is absent. From these fields
come the table's key set (any other key is an error), the reader (``read_table``) and the writer
(``written``). A class may also say what is wrong with its table as a whole (a key that needs
another) in a ``problem()`` method.

Every refusal is a ``Wrong`` naming the key (``backends[2].roles[0]``) and what was expected, in
words for a reader who is not a programmer; the loader adds the file's name.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeVar, dataclass_transform, runtime_checkable

from workspace.config_checks import range_problem

T = TypeVar("T")
C = TypeVar("C")
N = TypeVar("N", int, float)

# How a TOML value becomes a setting: (the value, its key) -> the setting, or raises Wrong.
Read = Callable[[object, str], T]
_MISSING: Any = dataclasses.MISSING
_SETTING = "chambers.config.setting"


class Wrong(Exception):
    """A value the schema refuses: ``key`` names it, ``problem`` says what was expected."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


class Problem(NamedTuple):
    """What is wrong with a table as a whole: ``key`` is relative to the table ("" for the table)."""

    key: str
    text: str


@runtime_checkable
class HasProblem(Protocol):
    def problem(self) -> Problem | None: ...


@dataclass(frozen=True)
class _Setting:
    read: Read[Any]
    absent: Any  # the value when the key is absent but the Python field has no default


def setting(
    read: Read[T],
    *,
    default: T = _MISSING,
    default_factory: Callable[[], T] = _MISSING,
    absent: T = _MISSING,
) -> T:
    """A field that is a TOML key, read with ``read``.

    ``default``/``default_factory`` are the dataclass's (and so the value of an absent key).
    ``absent`` is for a key that is optional in the file but required when the class is built in
    code (a board's ``host``): its value when the key is missing. Without either the key is required.
    """
    options: dict[str, Any] = {"default": default, "default_factory": default_factory}
    made: T = field(**options, metadata={_SETTING: _Setting(read, absent)})
    return made


@dataclass_transform(frozen_default=True, field_specifiers=(setting, field))
def schema(cls: type[C]) -> type[C]:
    """``cls`` as a frozen dataclass whose ``setting`` fields are its table's keys."""
    return dataclass(frozen=True)(cls)


def _settings(cls: type) -> list[tuple[dataclasses.Field[Any], _Setting]]:
    return [(f, f.metadata[_SETTING]) for f in dataclasses.fields(cls) if _SETTING in f.metadata]


def keys_of(cls: type) -> tuple[str, ...]:
    """The TOML keys of ``cls``'s table, in the order they are declared."""
    return tuple(f.name for f, _ in _settings(cls))


def read_table(cls: type[C], value: object, key: str, **given: object) -> C:
    """``value`` (a TOML table at ``key``) read into ``cls``; ``given`` are fields that are not keys."""
    if not isinstance(value, Mapping):
        raise wrong(key, "a table", value)
    settings = _settings(cls)
    no_unknown_keys(value, key, {f.name for f, _ in settings})
    values: dict[str, object] = dict(given)
    for f, how in settings:
        at = join(key, f.name)
        if f.name in value:
            values[f.name] = how.read(value[f.name], at)
        elif how.absent is not _MISSING:
            values[f.name] = how.absent
        elif f.default is _MISSING and f.default_factory is _MISSING:
            raise Wrong(at, "is required but missing")
    build: Callable[..., C] = cls
    made = build(**values)
    problem = made.problem() if isinstance(made, HasProblem) else None
    if problem is not None:
        raise Wrong(join(key, problem.key), problem.text)
    return made


def written(obj: object) -> dict[str, Any]:
    """The TOML table of a ``@schema`` object, leaving out unset values, empty lists and empty tables."""
    out: dict[str, Any] = {}
    for f, _ in _settings(type(obj)):
        value = _written_value(getattr(obj, f.name))
        if value not in (None, [], {}):
            out[f.name] = value
    return out


def _written_value(value: object) -> object:
    if dataclasses.is_dataclass(value):
        return written(value)
    if isinstance(value, tuple):
        return [_written_value(item) for item in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


# --- readers --------------------------------------------------------------------------------


def text(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise wrong(key, "a string", value)
    return value


def flag(value: object, key: str) -> bool:
    if not isinstance(value, bool):
        raise wrong(key, "true or false", value)
    return value


def whole(value: object, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise wrong(key, "a whole number", value)
    return value


def number(value: object, key: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise wrong(key, "a number", value)
    return float(value)


def checked(read: Read[T], check: Callable[[T], str | None]) -> Read[T]:
    """``read``, then ``check`` on what it read: a problem in words, or None."""

    def read_checked(value: object, key: str) -> T:
        result = read(value, key)
        problem = check(result)
        if problem is not None:
            raise Wrong(key, problem)
        return result

    return read_checked


def within(read: Read[N], low: float, high: float, *, low_open: bool = False) -> Read[N]:
    """A finite number from ``low`` to ``high`` (above ``low`` when ``low_open``)."""
    return checked(read, lambda n: range_problem(n, low, high, low_open=low_open))


def one_of(choices: Iterable[str]) -> Read[str]:
    allowed = tuple(choices)
    return checked(
        text, lambda s: None if s in allowed else f"expected one of {', '.join(allowed)}; got '{s}'"
    )


def list_of(item: Read[T], words: str, *, unique: str | None = None) -> Read[tuple[T, ...]]:
    """A list of ``item``s (``words`` says what a right one looks like); ``unique``: what a duplicate is."""

    def read_list(value: object, key: str) -> tuple[T, ...]:
        if not isinstance(value, list):
            raise wrong(key, words, value)
        items = tuple(item(v, f"{key}[{j}]") for j, v in enumerate(value))
        if unique is not None:
            no_duplicates([str(v) for v in items], key, unique)
        return items

    return read_list


def table(cls: type[C]) -> Read[C]:
    return lambda value, key: read_table(cls, value, key)


def tables(
    cls: type[C], *, words: str | None = None, unique: tuple[str, str] | None = None
) -> Read[tuple[C, ...]]:
    """An array of ``cls`` tables; ``unique``: the attribute no two may share, and what it is called."""

    def read_tables(value: object, key: str) -> tuple[C, ...]:
        items = raw_tables(value, key, words)
        made = tuple(read_table(cls, v, f"{key}[{i}]") for i, v in enumerate(items))
        if unique is not None:
            attribute, what = unique
            no_duplicates([str(getattr(m, attribute)) for m in made], key, what)
        return made

    return read_tables


def raw_tables(value: object, key: str, words: str | None = None) -> tuple[Mapping[str, Any], ...]:
    """An array of tables kept as they are (read by the room that knows their keys)."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise wrong(key, words or f"[[{key}]] tables", value)
    return tuple(value)


def key_table(value: object, key: str) -> Mapping[str, str]:
    """``[keys]``: action ids to keys, each a key name or several joined by commas ("ctrl+o,f3").
    Which ids exist is the workstation's to say; this layer only checks the shape."""
    if not isinstance(value, Mapping):
        raise wrong(key, 'a table of action = "key"', value)
    for action, keys in value.items():
        if not isinstance(keys, str) or not keys.strip() or any(not k.strip() for k in keys.split(",")):
            raise wrong(join(key, action), 'a key such as "ctrl+o", or keys joined by commas', keys)
    return {action: keys.replace(" ", "") for action, keys in value.items()}


# --- checks and words -----------------------------------------------------------------------


def no_unknown_keys(table: Mapping[str, Any], prefix: str, known: set[str]) -> None:
    for name in table:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise Wrong(join(prefix, name), f"unknown key; {hint}expected one of {', '.join(sorted(known))}")


def no_duplicates(names: list[str], key: str, what: str) -> None:
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise Wrong(f"{key}[{i}]", f"duplicate {what} '{name}'; each must be unique")
        seen.add(name)


def wrong(key: str, expected: str, value: object) -> Wrong:
    return Wrong(key, f"expected {expected}, got {describe(value)}")


def join(prefix: str, name: str) -> str:
    if not name:
        return prefix
    return f"{prefix}.{name}" if prefix else name


def describe(value: object) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, str):
        return f"the string '{value}'"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
