"""The attorney's config: read with tomllib, written with tomli-w, checked strictly.

Every error names the file, the key (``backends[2].roles[0]``) and what was
expected, because the person reading it is not a programmer and must be able to
fix the file by hand. Unknown keys are errors too: a misspelt ``allow_remote``
must never silently become "not allowed" or, worse, the other way round.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from workspace.config_checks import nesting_too_deep, private_network, range_problem, url_problem
from workspace.errors import ChambersError

ROLES = ("router", "gate", "drafter", "heavy", "reviewer", "extractor")
KINDS = ("llamacpp", "ollama")
DEFAULT_MIN_DECODE_TOK_S = 40.0
TELEMETRY_KINDS = ("nvml", "dcgm", "recorded")
DEFAULT_REFRESH_S = 1.0
MAX_GPU_INDEX = 1023
MIN_REFRESH_S = 0.5  # NVML is polled at no more than 2 Hz: the driver serialises its calls


class ConfigError(ChambersError):
    title = "The config file has a problem"

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        where = f"{file}: `{key}`" if key else f"{file}"
        super().__init__(f"{where}: {problem}. Fix it in the file and start chambers again.")
        self.file = str(file)
        self.key = key


class ConfigMissing(ChambersError):
    title = "No config file yet"

    def __init__(self, file: Path) -> None:
        super().__init__(
            f"There is no config at {file}. Run `chambers init` to write a starter "
            "config, then set the addresses of your model servers in it."
        )
        self.file = str(file)


class NoBackendForRole(ChambersError):
    title = "No model server for this step"

    def __init__(self, role: str, file: str) -> None:
        super().__init__(
            f"No backend in {file} has the role '{role}'. Add '{role}' to the roles of "
            "one backend. chambers never sends a step to a server it was not given."
        )
        self.role = role


@dataclass(frozen=True)
class Sampling:
    """Per-backend sampling. ``None`` leaves the server's own default in place."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repeat_penalty: float | None = None
    seed: int | None = None
    max_tokens: int | None = None

    def as_dict(self) -> dict[str, float | int]:
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}


@dataclass(frozen=True)
class LoraRef:
    """A LoRA adapter a backend's requests carry (llama-server loads it with ``--lora NAME.gguf``)."""

    name: str
    scale: float = 1.0


@dataclass(frozen=True)
class Board:
    name: str
    host: str
    gpus: tuple[int, ...]


@dataclass(frozen=True)
class Backend:
    name: str
    kind: str
    url: str
    roles: tuple[str, ...] = ()
    board: str | None = None
    model: str | None = None
    sampling: Sampling = field(default_factory=Sampling)
    min_decode_tok_s: float = DEFAULT_MIN_DECODE_TOK_S
    allow_remote: bool = False
    remote_reason: str | None = None
    lora: tuple[LoraRef, ...] = ()
    weights: str | None = None  # the model file (or HF folder) the server loads: the base to train on


@dataclass(frozen=True)
class Policy:
    local_only: bool = True
    # The operator's own networks beyond loopback, RFC 1918, ULA and link-local (a VPN range).
    private_networks: tuple[str, ...] = ()


@dataclass(frozen=True)
class TelemetrySourceConfig:
    """Where one host's GPU figures come from: ``nvml`` (this host), ``dcgm`` (an
    exporter's ``url``, or a saved copy at ``path``) or ``recorded`` (a JSON ``path``)."""

    kind: str
    host: str = "localhost"
    url: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class DashboardSettings:
    refresh_s: float = DEFAULT_REFRESH_S


@dataclass(frozen=True)
class UiSettings:
    """The workstation's look (``[ui]``). The theme is a name; an unknown one means the default theme,
    since this layer does not know which themes the TUI has."""

    theme: str | None = None


@dataclass(frozen=True)
class ExportSettings:
    """The Word exports (``[export]``): ``template`` is a .docx whose styles and page set-up they take."""

    template: str | None = None

    @property
    def template_path(self) -> Path | None:
        return Path(self.template).expanduser() if self.template else None


@dataclass(frozen=True)
class Config:
    file: str
    policy: Policy
    boards: tuple[Board, ...]
    backends: tuple[Backend, ...]
    telemetry: tuple[TelemetrySourceConfig, ...] = ()
    dashboard: DashboardSettings = field(default_factory=DashboardSettings)
    ui: UiSettings = field(default_factory=UiSettings)
    # ``[[profiles]]`` (llama-server launch profiles) as raw tables: backends.fleet.profiles checks them,
    # since only the fleet knows llama-server's flags.
    profiles: tuple[Mapping[str, Any], ...] = ()
    export: ExportSettings = field(default_factory=ExportSettings)

    def backend_for_role(self, role: str) -> Backend:
        """The one backend configured for ``role``; there is no fallback."""
        for backend in self.backends:
            if role in backend.roles:
                return backend
        raise NoBackendForRole(role, self.file)

    def backend_named(self, name: str) -> Backend:
        for backend in self.backends:
            if backend.name == name:
                return backend
        raise ChambersError(f"No backend named '{name}' in {self.file}.", title="Unknown backend")


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


_TOP_TABLES = ("policy", "boards", "backends", "telemetry", "dashboard", "ui", "export")
_TABLE_HEADER = re.compile(r"^[ \t]*(\[\[?)[ \t]*([A-Za-z0-9_-]+)", re.MULTILINE)


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


def parse_config(data: Mapping[str, Any], file: str) -> Config:
    reader = _Reader(file)
    reader.no_unknown_keys(
        data, "", {"policy", "boards", "backends", "telemetry", "dashboard", "ui", "profiles", "export"}
    )
    policy_table = reader.table(data, "policy", "policy", required=False)
    reader.no_unknown_keys(policy_table, "policy", {"local_only", "private_networks"})
    networks = reader.list_of(policy_table, "private_networks", "policy", str,
                              'a list of networks such as ["100.64.0.0/10"]', default=[])  # fmt: skip
    for j, net in enumerate(networks):
        try:
            private_network(net)
        except ValueError as exc:
            raise ConfigError(reader.file, f"policy.private_networks[{j}]", f"'{net}': {exc}") from None
    policy = Policy(
        local_only=reader.boolean(policy_table, "local_only", "policy", default=True),
        private_networks=tuple(networks),
    )

    boards = tuple(
        _parse_board(reader, item, f"boards[{i}]")
        for i, item in enumerate(reader.array_of_tables(data, "boards"))
    )
    _no_duplicates(reader, [b.name for b in boards], "boards", "board name")
    board_names = {b.name for b in boards}

    backends = tuple(
        _parse_backend(reader, item, f"backends[{i}]", board_names)
        for i, item in enumerate(reader.array_of_tables(data, "backends"))
    )
    _no_duplicates(reader, [b.name for b in backends], "backends", "backend name")
    _one_backend_per_role(reader, backends)
    telemetry = tuple(
        _parse_telemetry(reader, item, f"telemetry[{i}]")
        for i, item in enumerate(reader.array_of_tables(data, "telemetry"))
    )
    _no_duplicates(reader, [t.host for t in telemetry], "telemetry", "telemetry host")
    dashboard_table = reader.table(data, "dashboard", "dashboard", required=False)
    reader.no_unknown_keys(dashboard_table, "dashboard", {"refresh_s"})
    refresh = reader.number(dashboard_table, "refresh_s", "dashboard", float, default=DEFAULT_REFRESH_S)
    if range_problem(refresh, MIN_REFRESH_S, 60):
        raise ConfigError(
            reader.file,
            "dashboard.refresh_s",
            f"expected seconds between {MIN_REFRESH_S} and 60, got {refresh}",
        )
    ui_table = reader.table(data, "ui", "ui", required=False)
    reader.no_unknown_keys(ui_table, "ui", {"theme"})
    theme = reader.string(ui_table, "theme", "ui", default=None)
    if theme is not None and not theme.strip():
        raise ConfigError(reader.file, "ui.theme", "expected a theme name such as 'chambers-dark', got ''")
    export_table = reader.table(data, "export", "export", required=False)
    reader.no_unknown_keys(export_table, "export", {"template"})
    template = reader.string(export_table, "template", "export", default=None)
    if template is not None and not template.strip():
        raise ConfigError(reader.file, "export.template", "expected the path of a .docx, got ''")
    return Config(
        file=file, policy=policy, boards=boards, backends=backends, telemetry=telemetry,
        dashboard=DashboardSettings(refresh_s=refresh), ui=UiSettings(theme=theme),
        profiles=tuple(reader.array_of_tables(data, "profiles")),
        export=ExportSettings(template=template),
    )  # fmt: skip


def _parse_telemetry(reader: _Reader, item: Mapping[str, Any], key: str) -> TelemetrySourceConfig:
    reader.no_unknown_keys(item, key, {"kind", "host", "url", "path"})
    kind = reader.string(item, "kind", key)
    if kind not in TELEMETRY_KINDS:
        raise ConfigError(
            reader.file, f"{key}.kind", f"expected one of {', '.join(TELEMETRY_KINDS)}; got '{kind}'"
        )
    url = reader.string(item, "url", key, default=None)
    path = reader.string(item, "path", key, default=None)
    if url is not None:
        _check_url(reader, url, f"{key}.url", base=False)
    wants = {"nvml": "neither url nor path (NVML reads this host)",
             "dcgm": "either url (the exporter's /metrics) or path (a saved copy), not both",
             "recorded": "a path to a recording and no url"}  # fmt: skip
    ok = {"nvml": url is None and path is None, "dcgm": (url is None) != (path is None),
          "recorded": path is not None and url is None}  # fmt: skip
    if not ok[kind]:
        raise ConfigError(reader.file, key, f"a '{kind}' source takes {wants[kind]}")
    return TelemetrySourceConfig(
        kind=kind, host=reader.string(item, "host", key, default="localhost"), url=url, path=path
    )


def _parse_board(reader: _Reader, item: Mapping[str, Any], key: str) -> Board:
    reader.no_unknown_keys(item, key, {"name", "host", "gpus"})
    gpus = reader.list_of(item, "gpus", key, int, "a list of GPU indices such as [4, 5, 8, 9]")
    for j, gpu in enumerate(gpus):
        if not 0 <= gpu <= MAX_GPU_INDEX:
            raise ConfigError(
                reader.file, f"{key}.gpus[{j}]", f"expected a GPU index from 0 to {MAX_GPU_INDEX}, got {gpu}"
            )
    _no_duplicates(reader, [str(g) for g in gpus], f"{key}.gpus", "GPU index")
    return Board(
        name=reader.string(item, "name", key),
        host=reader.string(item, "host", key, default="localhost"),
        gpus=tuple(gpus),
    )


_BACKEND_KEYS = {
    "name", "kind", "url", "roles", "board", "model", "sampling",
    "min_decode_tok_s", "allow_remote", "remote_reason", "lora", "weights",
}  # fmt: skip
_SAMPLING_TYPES: dict[str, type] = {
    "temperature": float, "top_p": float, "top_k": int, "min_p": float,
    "repeat_penalty": float, "seed": int, "max_tokens": int,
}  # fmt: skip
INT32_MAX = 2**31 - 1
# (low, high, whether the value must be above low). seed -1 means "random" to llama.cpp.
_SAMPLING_RANGES: dict[str, tuple[float, float, bool]] = {
    "temperature": (0, 5, False), "top_p": (0, 1, False), "top_k": (0, INT32_MAX, False),
    "min_p": (0, 1, False), "repeat_penalty": (0, 10, True), "seed": (-1, 2**32 - 1, False),
    "max_tokens": (1, INT32_MAX, False),
}  # fmt: skip


def _parse_backend(reader: _Reader, item: Mapping[str, Any], key: str, board_names: set[str]) -> Backend:
    reader.no_unknown_keys(item, key, _BACKEND_KEYS)
    name = reader.string(item, "name", key)
    kind = reader.string(item, "kind", key)
    if kind not in KINDS:
        raise ConfigError(reader.file, f"{key}.kind", f"expected one of {', '.join(KINDS)}; got '{kind}'")
    url = reader.string(item, "url", key)
    _check_url(reader, url, f"{key}.url")
    roles = reader.list_of(item, "roles", key, str, 'a list of roles such as ["drafter"]', default=[])
    for j, role in enumerate(roles):
        if role not in ROLES:
            raise ConfigError(
                reader.file,
                f"{key}.roles[{j}]",
                f"unknown role '{role}'; expected one of {', '.join(ROLES)}",
            )
    board = reader.string(item, "board", key, default=None)
    if board is not None and board not in board_names:
        known = ", ".join(sorted(board_names)) or "none defined"
        raise ConfigError(
            reader.file, f"{key}.board", f"no [[boards]] entry named '{board}' (boards: {known})"
        )
    sampling_table = reader.table(item, "sampling", f"{key}.sampling", required=False)
    reader.no_unknown_keys(sampling_table, f"{key}.sampling", set(_SAMPLING_TYPES))
    sampling = Sampling(
        **{
            name_: reader.in_range(sampling_table, name_, f"{key}.sampling", typ, _SAMPLING_RANGES[name_])
            for name_, typ in _SAMPLING_TYPES.items()
            if name_ in sampling_table
        }
    )
    min_tok = reader.in_range(
        item, "min_decode_tok_s", key, float, (0, 1e6, False), default=DEFAULT_MIN_DECODE_TOK_S
    )
    allow_remote = reader.boolean(item, "allow_remote", key, default=False)
    remote_reason = reader.string(item, "remote_reason", key, default=None)
    if allow_remote and not (remote_reason and remote_reason.strip()):
        raise ConfigError(
            reader.file,
            f"{key}.remote_reason",
            "allow_remote = true needs a remote_reason saying why this backend may leave the office",
        )
    lora = _parse_lora(reader, item, key, kind)
    return Backend(
        name=name,
        kind=kind,
        url=url.rstrip("/"),
        roles=tuple(roles),
        board=board,
        model=reader.string(item, "model", key, default=None),
        sampling=sampling,
        min_decode_tok_s=min_tok if min_tok is not None else DEFAULT_MIN_DECODE_TOK_S,
        allow_remote=allow_remote,
        remote_reason=remote_reason,
        lora=lora,
        weights=reader.string(item, "weights", key, default=None),
    )


def _parse_lora(reader: _Reader, item: Mapping[str, Any], key: str, kind: str) -> tuple[LoraRef, ...]:
    """``lora = [{ name = "demand-v3", scale = 1.0 }]``: adapters every request of this backend carries."""
    value = item.get("lora", [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise reader._wrong(f"{key}.lora", 'a list such as [{ name = "demand-v3", scale = 1.0 }]', value)
    if value and kind != "llamacpp":
        raise ConfigError(
            reader.file, f"{key}.lora", 'only llama-server (kind = "llamacpp") serves LoRA adapters'
        )
    refs = []
    for j, entry in enumerate(value):
        reader.no_unknown_keys(entry, f"{key}.lora[{j}]", {"name", "scale"})
        scale = reader.number(entry, "scale", f"{key}.lora[{j}]", float, default=1.0)
        if not -4.0 <= scale <= 4.0:
            raise ConfigError(
                reader.file, f"{key}.lora[{j}].scale", f"expected a scale between -4 and 4, got {scale}"
            )
        refs.append(LoraRef(name=reader.string(entry, "name", f"{key}.lora[{j}]"), scale=scale))
    _no_duplicates(reader, [r.name for r in refs], f"{key}.lora", "adapter name")
    return tuple(refs)


def _check_url(reader: _Reader, url: str, key: str, *, base: bool = True) -> None:
    problem = url_problem(url, base=base)
    if problem is not None:
        raise ConfigError(reader.file, key, f"{problem}; got {url!r}")


def _no_duplicates(reader: _Reader, names: list[str], key: str, what: str) -> None:
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise ConfigError(reader.file, f"{key}[{i}]", f"duplicate {what} '{name}'; each must be unique")
        seen.add(name)


def _one_backend_per_role(reader: _Reader, backends: tuple[Backend, ...]) -> None:
    owner: dict[str, str] = {}
    for i, backend in enumerate(backends):
        for role in backend.roles:
            if role in owner:
                raise ConfigError(
                    reader.file,
                    f"backends[{i}].roles",
                    f"role '{role}' is already given to backend '{owner[role]}'; "
                    "each role goes to exactly one backend",
                )
            owner[role] = backend.name


_TYPE_WORDS = {str: "a string", int: "a whole number", float: "a number", bool: "true or false"}


class _Reader:
    """Typed access to the parsed TOML with errors that name file and key."""

    _MISSING = object()

    def __init__(self, file: str) -> None:
        self.file = file

    def _get(self, table: Mapping[str, Any], name: str, prefix: str, default: Any) -> Any:
        if name in table:
            return table[name]
        if default is self._MISSING:
            raise ConfigError(self.file, _join(prefix, name), "is required but missing")
        return default

    def _wrong(self, key: str, expected: str, value: Any) -> ConfigError:
        return ConfigError(self.file, key, f"expected {expected}, got {_describe(value)}")

    def string(self, table: Mapping[str, Any], name: str, prefix: str, default: Any = _MISSING) -> Any:
        value = self._get(table, name, prefix, default)
        if value is not None and not isinstance(value, str):
            raise self._wrong(_join(prefix, name), "a string", value)
        return value

    def boolean(self, table: Mapping[str, Any], name: str, prefix: str, default: Any = _MISSING) -> Any:
        value = self._get(table, name, prefix, default)
        if not isinstance(value, bool):
            raise self._wrong(_join(prefix, name), "true or false", value)
        return value

    def number(
        self, table: Mapping[str, Any], name: str, prefix: str, typ: type, default: Any = _MISSING
    ) -> Any:
        value = self._get(table, name, prefix, default)
        ok = isinstance(value, int) if typ is int else isinstance(value, int | float)
        if value is None or isinstance(value, bool) or not ok:
            raise self._wrong(_join(prefix, name), _TYPE_WORDS[typ], value)
        return typ(value)

    def in_range(
        self, table: Mapping[str, Any], name: str, prefix: str, typ: type,
        bounds: tuple[float, float, bool], default: Any = _MISSING,
    ) -> Any:  # fmt: skip
        """A number that is finite and within ``bounds`` (low, high, whether low itself is excluded)."""
        value = self.number(table, name, prefix, typ, default)
        low, high, low_open = bounds
        problem = range_problem(value, low, high, low_open=low_open)
        if problem is not None:
            raise ConfigError(self.file, _join(prefix, name), problem)
        return value

    def table(self, table: Mapping[str, Any], name: str, key: str, required: bool) -> Mapping[str, Any]:
        value = self._get(table, name, "", self._MISSING if required else {})
        if not isinstance(value, dict):
            raise self._wrong(key, "a table", value)
        return value

    def array_of_tables(self, table: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
        value = table.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self._wrong(name, f"[[{name}]] tables", value)
        return value

    def list_of(
        self,
        table: Mapping[str, Any],
        name: str,
        prefix: str,
        typ: type,
        expected: str,
        default: Any = _MISSING,
    ) -> list[Any]:
        value = self._get(table, name, prefix, default)
        key = _join(prefix, name)
        if not isinstance(value, list):
            raise self._wrong(key, expected, value)
        for j, item in enumerate(value):
            if not isinstance(item, typ) or isinstance(item, bool) is not (typ is bool):
                raise self._wrong(f"{key}[{j}]", _TYPE_WORDS[typ], item)
        return value

    def no_unknown_keys(self, table: Mapping[str, Any], prefix: str, known: set[str]) -> None:
        for name in table:
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f"did you mean '{close[0]}'? " if close else ""
                raise ConfigError(
                    self.file,
                    _join(prefix, name),
                    f"unknown key; {hint}expected one of {', '.join(sorted(known))}",
                )


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _describe(value: Any) -> str:
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


def starter_config_text() -> str:
    """The commented starter config that ``chambers init`` writes."""
    return (Path(__file__).with_name("starter_config.toml")).read_text(encoding="utf-8")


def config_to_toml(config: Config) -> str:
    """Serialise ``config`` with tomli-w, for configs chambers generates (the demo's, the tests').

    tomli-w writes no comments; saves into the attorney's own file go through ``workspace.config_edit``."""
    import tomli_w

    def backend_dict(b: Backend) -> dict[str, Any]:
        out: dict[str, Any] = {"name": b.name, "kind": b.kind, "url": b.url, "roles": list(b.roles)}
        if b.board:
            out["board"] = b.board
        if b.model:
            out["model"] = b.model
        out["min_decode_tok_s"] = b.min_decode_tok_s
        if b.allow_remote:
            out["allow_remote"] = True
            out["remote_reason"] = b.remote_reason
        if b.weights:
            out["weights"] = b.weights
        if b.lora:
            out["lora"] = [{"name": r.name, "scale": r.scale} for r in b.lora]
        if sampling := b.sampling.as_dict():
            out["sampling"] = sampling
        return out

    policy: dict[str, Any] = {"local_only": config.policy.local_only}
    if config.policy.private_networks:
        policy["private_networks"] = list(config.policy.private_networks)
    doc: dict[str, Any] = {
        "policy": policy,
        "boards": [{"name": b.name, "host": b.host, "gpus": list(b.gpus)} for b in config.boards],
        "backends": [backend_dict(b) for b in config.backends],
    }
    if config.telemetry:
        doc["telemetry"] = [
            {k: v for k, v in (("kind", t.kind), ("host", t.host), ("url", t.url), ("path", t.path)) if v}
            for t in config.telemetry
        ]
    if config.dashboard != DashboardSettings():
        doc["dashboard"] = {"refresh_s": config.dashboard.refresh_s}
    if config.ui.theme:
        doc["ui"] = {"theme": config.ui.theme}
    if config.profiles:
        doc["profiles"] = [dict(p) for p in config.profiles]
    if config.export.template:
        doc["export"] = {"template": config.export.template}
    return tomli_w.dumps(doc)
