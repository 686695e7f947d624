"""The config's tables, each key declared once with how it is read and checked (see ``schema``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from workspace.config.errors import NoBackendForRole, UnknownRole
from workspace.config.schema import (
    Problem,
    Read,
    checked,
    flag,
    key_table,
    list_of,
    number,
    one_of,
    raw_tables,
    schema,
    setting,
    table,
    tables,
    text,
    whole,
    within,
)
from workspace.config_checks import private_network, range_problem, url_problem
from workspace.errors import ChambersError

ROLES = ("router", "gate", "drafter", "heavy", "reviewer", "support", "extractor")
# The server kinds a backend may name, and those whose requests choose LoRA adapters. Each is a
# ``ServerAdapter`` class in backends (backends.adapters); the config is read below that layer (no room
# imports backends to read its settings), so the names are listed here too, and a test holds the two
# lists to the adapters' registry and their ``SERVES_LORA`` flags.
KINDS = ("llamacpp", "ollama")
LORA_KINDS = {"llamacpp": "llama-server"}  # kind -> how messages name it
DEFAULT_MIN_DECODE_TOK_S = 40.0
TELEMETRY_KINDS = ("nvml", "dcgm", "recorded")
DEFAULT_REFRESH_S = 1.0
MAX_GPU_INDEX = 1023
MIN_REFRESH_S = 0.5  # NVML is polled at no more than 2 Hz: the driver serialises its calls
INT32_MAX = 2**31 - 1


def _address(*, base: bool) -> Callable[[str], str | None]:
    """The check of a server address; ``base``: paths are appended to it, so no ?query or #fragment."""

    def problem(url: str) -> str | None:
        found = url_problem(url, base=base)
        return None if found is None else f"{found}; got {url!r}"

    return problem


def _not_blank(expected: str) -> Callable[[str], str | None]:
    return lambda value: None if value.strip() else f"expected {expected}, got ''"


_THEME: Read[str] = checked(text, _not_blank("a theme name such as 'chambers-dark'"))
_TEMPLATE: Read[str] = checked(text, _not_blank("the path of a .docx"))
_EXPORTER_URL: Read[str] = checked(text, _address(base=False))


def _base_url(value: object, key: str) -> str:
    return checked(text, _address(base=True))(value, key).rstrip("/")


def _network(net: str) -> str | None:
    try:
        private_network(net)
    except ValueError as exc:
        return f"'{net}': {exc}"
    return None


def _role(role: str) -> str | None:
    return None if role in ROLES else f"unknown role '{role}'; expected one of {', '.join(ROLES)}"


def _gpu(index: int) -> str | None:
    ok = 0 <= index <= MAX_GPU_INDEX
    return None if ok else f"expected a GPU index from 0 to {MAX_GPU_INDEX}, got {index}"


def _lora_scale(scale: float) -> str | None:
    return None if -4.0 <= scale <= 4.0 else f"expected a scale between -4 and 4, got {scale}"


def _refresh(seconds: float) -> str | None:
    if range_problem(seconds, MIN_REFRESH_S, 60) is None:
        return None
    return f"expected seconds between {MIN_REFRESH_S} and 60, got {seconds}"


@schema
class Sampling:
    """Per-backend sampling. ``None`` leaves the server's own default in place."""

    temperature: float | None = setting(within(number, 0, 5), default=None)
    top_p: float | None = setting(within(number, 0, 1), default=None)
    top_k: int | None = setting(within(whole, 0, INT32_MAX), default=None)
    min_p: float | None = setting(within(number, 0, 1), default=None)
    repeat_penalty: float | None = setting(within(number, 0, 10, low_open=True), default=None)
    seed: int | None = setting(within(whole, -1, 2**32 - 1), default=None)  # -1 is "random" to llama.cpp
    max_tokens: int | None = setting(within(whole, 1, INT32_MAX), default=None)

    def as_dict(self) -> dict[str, float | int]:
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}


@schema
class LoraRef:
    """A LoRA adapter a backend's requests carry (llama-server loads it with ``--lora NAME.gguf``)."""

    name: str = setting(text)
    scale: float = setting(checked(number, _lora_scale), default=1.0)


@schema
class Board:
    name: str = setting(text)
    host: str = setting(text, absent="localhost")
    gpus: tuple[int, ...] = setting(
        list_of(checked(whole, _gpu), "a list of GPU indices such as [4, 5, 8, 9]", unique="GPU index")
    )


@schema
class Backend:
    name: str = setting(text)
    kind: str = setting(one_of(KINDS))
    url: str = setting(_base_url)
    roles: tuple[str, ...] = setting(
        list_of(checked(text, _role), 'a list of roles such as ["drafter"]'), default=()
    )
    board: str | None = setting(text, default=None)
    model: str | None = setting(text, default=None)
    sampling: Sampling = setting(table(Sampling), default_factory=Sampling)
    min_decode_tok_s: float = setting(within(number, 0, 1e6), default=DEFAULT_MIN_DECODE_TOK_S)
    allow_remote: bool = setting(flag, default=False)
    remote_reason: str | None = setting(text, default=None)
    # ``lora = [{ name = "demand-v3", scale = 1.0 }]``: adapters every request of this backend carries.
    lora: tuple[LoraRef, ...] = setting(
        tables(
            LoraRef,
            words='a list such as [{ name = "demand-v3", scale = 1.0 }]',
            unique=("name", "adapter name"),
        ),
        default=(),
    )
    # The model file (or HF folder) the server loads: the base to train on.
    weights: str | None = setting(text, default=None)

    def problem(self) -> Problem | None:
        if self.allow_remote and not (self.remote_reason and self.remote_reason.strip()):
            return Problem(
                "remote_reason",
                "allow_remote = true needs a remote_reason saying why this backend may leave the office",
            )
        if self.lora and self.kind not in LORA_KINDS:
            kinds = " or ".join(f'{label} (kind = "{kind}")' for kind, label in LORA_KINDS.items())
            return Problem("lora", f'only {kinds} serves LoRA adapters; this backend is kind = "{self.kind}"')
        return None


@schema
class Policy:
    local_only: bool = setting(flag, default=True)
    # The operator's own networks beyond loopback, RFC 1918, ULA and link-local (a VPN range).
    private_networks: tuple[str, ...] = setting(
        list_of(checked(text, _network), 'a list of networks such as ["100.64.0.0/10"]'), default=()
    )


@schema
class TelemetrySourceConfig:
    """Where one host's GPU figures come from: ``nvml`` (this host), ``dcgm`` (an
    exporter's ``url``, or a saved copy at ``path``) or ``recorded`` (a JSON ``path``)."""

    kind: str = setting(one_of(TELEMETRY_KINDS))
    host: str = setting(text, default="localhost")
    url: str | None = setting(_EXPORTER_URL, default=None)
    path: str | None = setting(text, default=None)

    def problem(self) -> Problem | None:
        url, path = self.url is not None, self.path is not None
        takes = {
            "nvml": (not url and not path, "neither url nor path (NVML reads this host)"),
            "dcgm": (url != path, "either url (the exporter's /metrics) or path (a saved copy), not both"),
            "recorded": (path and not url, "a path to a recording and no url"),
        }
        ok, wants = takes[self.kind]
        return None if ok else Problem("", f"a '{self.kind}' source takes {wants}")


@schema
class DashboardSettings:
    refresh_s: float = setting(checked(number, _refresh), default=DEFAULT_REFRESH_S)


@schema
class UiSettings:
    """The workstation's look (``[ui]``). The theme is a name; an unknown one means the default theme,
    since this layer does not know which themes the TUI has."""

    theme: str | None = setting(_THEME, default=None)
    # False leaves the mouse to the terminal, so its own text selection (and copy) works again.
    mouse: bool | None = setting(flag, default=None)  # None: on


@schema
class ExportSettings:
    """The Word exports (``[export]``): ``template`` is a .docx whose styles and page set-up they take."""

    template: str | None = setting(_TEMPLATE, default=None)

    @property
    def template_path(self) -> Path | None:
        return Path(self.template).expanduser() if self.template else None


@schema
class Config:
    file: str
    policy: Policy = setting(table(Policy), absent=Policy())
    boards: tuple[Board, ...] = setting(tables(Board, unique=("name", "board name")), absent=())
    backends: tuple[Backend, ...] = setting(tables(Backend, unique=("name", "backend name")), absent=())
    telemetry: tuple[TelemetrySourceConfig, ...] = setting(
        tables(TelemetrySourceConfig, unique=("host", "telemetry host")), default=()
    )
    dashboard: DashboardSettings = setting(table(DashboardSettings), default_factory=DashboardSettings)
    ui: UiSettings = setting(table(UiSettings), default_factory=UiSettings)
    # ``[[profiles]]`` (llama-server launch profiles) as raw tables: backends.fleet.profiles checks them,
    # since only the fleet knows llama-server's flags.
    profiles: tuple[Mapping[str, Any], ...] = setting(raw_tables, default=())
    export: ExportSettings = setting(table(ExportSettings), default_factory=ExportSettings)
    keys: Mapping[str, str] = setting(key_table, default_factory=dict)  # action id -> key(s), remapped

    def problem(self) -> Problem | None:
        """A backend on a board that is not there, or a role given to two backends."""
        boards = {b.name for b in self.boards}
        for i, backend in enumerate(self.backends):
            if backend.board is not None and backend.board not in boards:
                known = ", ".join(sorted(boards)) or "none defined"
                return Problem(
                    f"backends[{i}].board", f"no [[boards]] entry named '{backend.board}' (boards: {known})"
                )
        owner: dict[str, str] = {}
        for i, backend in enumerate(self.backends):
            for role in backend.roles:
                if role in owner:
                    return Problem(
                        f"backends[{i}].roles",
                        f"role '{role}' is already given to backend '{owner[role]}'; "
                        "each role goes to exactly one backend",
                    )
                owner[role] = backend.name
        return None

    def backend_for_role(self, role: str) -> Backend:
        """The one backend configured for ``role``; there is no fallback."""
        if role not in ROLES:  # a typo, not a missing backend: adding it to a backend would be refused
            raise UnknownRole(role, ROLES)
        for backend in self.backends:
            if role in backend.roles:
                return backend
        raise NoBackendForRole(role, self.file)

    def backend_named(self, name: str) -> Backend:
        for backend in self.backends:
            if backend.name == name:
                return backend
        raise ChambersError(f"No backend named '{name}' in {self.file}.", title="Unknown backend")
