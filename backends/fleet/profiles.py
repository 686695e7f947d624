"""Launch profiles (``[[profiles]]``): how one llama-server is started on one board.

A profile names the model file, the board (its GPUs become
``CUDA_VISIBLE_DEVICES``; the attorney never types that), the offload and
split flags, context and slots, KV cache types, flash attention, LoRA files,
extra flags and the role's sampling defaults. ``command`` and ``environment``
turn it into exactly what is run, so ``serve``, the systemd unit and a sweep
all start the same thing. Errors name the file and the key, like the rest of
the config.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from backends.adapters import adapter_class
from backends.errors import PolicyRefusal
from backends.fleet.gguf_name import served_name
from backends.fleet.serve_policy import check_listen_host, remote_flag_problem
from backends.lora import launch_flags
from workspace.config import Board, Config, ConfigError
from workspace.errors import ChambersError

# The sampling set the seed attorney tested on his drafting roles.
SEED_SAMPLING = {"temperature": 0.7, "repeat_penalty": 1.2, "min_p": 0.01, "top_p": 0.95, "top_k": 40}
SAMPLING_FLAGS = {
    "temperature": "--temp",
    "repeat_penalty": "--repeat-penalty",
    "min_p": "--min-p",
    "top_p": "--top-p",
    "top_k": "--top-k",
}
SPLIT_MODES = ("none", "layer", "row", "tensor")
CACHE_TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
FLASH_ATTN = ("on", "off", "auto")
DEFAULT_PORT = 8080
# Flags a profile sets from its own keys; in extra_args they would silently fight them.
MANAGED_FLAGS = frozenset(
    """
    -m --model --host --port -ngl --n-gpu-layers --gpu-layers -ts --tensor-split -sm --split-mode
    -ot --override-tensor --cpu-moe -cmoe --n-cpu-moe -ncmoe -c --ctx-size -np --parallel -ctk
    --cache-type-k -ctv --cache-type-v -fa --flash-attn --lora --temp --repeat-penalty --min-p
    --top-p --top-k --api-key --api-key-file
    """.split()
)


@dataclass(frozen=True)
class LaunchProfile:
    name: str
    model: str
    boards: tuple[str, ...] = ()  # normally one; two only to be refused (or allowed with a reason)
    gpus: tuple[int, ...] = ()  # host GPU indices, from the boards
    host: str = "localhost"  # the boards' host
    backend: str | None = None  # the [[backends]] entry this server answers for
    listen_host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    n_gpu_layers: int | None = None
    tensor_split: tuple[float, ...] = ()
    split_mode: str | None = None
    override_tensor: tuple[str, ...] = ()
    cpu_moe: bool = False
    n_cpu_moe: int | None = None
    ctx_size: int | None = None
    parallel: int | None = None
    cache_type_k: str | None = None
    cache_type_v: str | None = None
    flash_attn: str | None = None
    lora: tuple[str, ...] = ()
    # The files of the adapters its backend's requests name (lora = [{ name = ... }]), resolved by the
    # caller from the adapter registry: loaded at scale 0, each request switches its own on.
    adapters: tuple[str, ...] = ()
    extra_args: tuple[str, ...] = ()
    sampling: dict[str, float] = field(default_factory=lambda: dict(SEED_SAMPLING))
    binary: str | None = None  # a llama-server of its own; else the one chambers builds
    alias: str | None = None
    allow_remote: bool = False  # with remote_reason: extra_args may make the server download
    remote_reason: str | None = None
    # The file of the API key the server demands (``--api-key-file``), set by the caller from the
    # data folder (backends.server_key): every chambers client sends the key.
    api_key_file: str | None = None

    def with_changes(self, **changes: Any) -> LaunchProfile:
        return dataclasses.replace(self, **changes)


class ProfileError(ConfigError):
    title = "A launch profile has a problem"


def command(profile: LaunchProfile, binary: Path | str) -> list[str]:
    """The exact llama-server command line of ``profile``."""
    p = profile
    cmd = [str(binary), "-m", p.model, "--host", p.listen_host, "--port", str(p.port)]
    if p.alias:
        cmd += ["--alias", p.alias]
    if p.api_key_file:
        cmd += ["--api-key-file", p.api_key_file]
    if p.n_gpu_layers is not None:
        cmd += ["-ngl", str(p.n_gpu_layers)]
    if p.tensor_split:
        cmd += ["--tensor-split", ",".join(f"{x:g}" for x in p.tensor_split)]
    if p.split_mode:
        cmd += ["--split-mode", p.split_mode]
    for rule in p.override_tensor:
        cmd += ["-ot", rule]
    if p.cpu_moe:
        cmd.append("--cpu-moe")
    if p.n_cpu_moe is not None:
        cmd += ["--n-cpu-moe", str(p.n_cpu_moe)]
    if p.ctx_size is not None:
        cmd += ["-c", str(p.ctx_size)]
    if p.parallel is not None:
        cmd += ["-np", str(p.parallel)]
    if p.cache_type_k:
        cmd += ["--cache-type-k", p.cache_type_k]
    if p.cache_type_v:
        cmd += ["--cache-type-v", p.cache_type_v]
    if p.flash_attn:
        cmd += ["--flash-attn", p.flash_attn]
    for adapter in p.lora:
        cmd += ["--lora", adapter]
    cmd += launch_flags(list(p.adapters))
    for key, flag in SAMPLING_FLAGS.items():
        if key in p.sampling:
            cmd += [flag, f"{p.sampling[key]:g}"]
    return cmd + list(p.extra_args)


def environment(profile: LaunchProfile) -> dict[str, str]:
    """What the server's environment gains: its GPUs, numbered as NVML and nvidia-smi number them."""
    # CUDA numbers GPUs fastest-first by default; PCI order is the order the boards were written in.
    env = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": ",".join(str(g) for g in profile.gpus)}
    if not profile.gpus:
        env["CUDA_VISIBLE_DEVICES"] = ""  # a CPU profile: keep every GPU out of it
    return env


def profiles_from_config(config: Config) -> tuple[LaunchProfile, ...]:
    parsed = tuple(_parse(config, raw, f"profiles[{i}]") for i, raw in enumerate(config.profiles))
    seen: set[str] = set()
    for i, p in enumerate(parsed):
        if p.name in seen:
            raise ProfileError(config.file, f"profiles[{i}].name", f"duplicate profile name '{p.name}'")
        seen.add(p.name)
    return parsed


def listen_refusals(config: Config) -> list[str]:
    """What the policy says against each profile's listen_host (``chambers config`` shows them).

    Raises:
        ProfileError: a profile does not parse (``extra_args`` that download included).
    """
    refusals = []
    for p in profiles_from_config(config):
        try:
            check_listen_host(p.name, p.listen_host, p.port, config.policy)
        except PolicyRefusal as exc:
            refusals.append(exc.message)
    return refusals


def profile_named(config: Config, name: str) -> LaunchProfile:
    profiles = profiles_from_config(config)
    for p in profiles:
        if p.name == name:
            return p
    raise UnknownProfile(name, [p.name for p in profiles], config.file)


class UnknownProfile(ChambersError):
    """The name given on the command line matches no profile: the name is the typo, not the file."""

    title = "No such launch profile"

    def __init__(self, name: str, known: list[str], file: Path | str) -> None:
        close = get_close_matches(name, known, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        listed = (
            f"The profiles in {file} are: {', '.join(known)}."
            if known
            else (f"{file} has no [[profiles]] yet; add one to serve a model.")
        )
        super().__init__(f"There is no profile named '{name}'.{hint} {listed} Check the name you typed.")


class _Keys:
    """Typed reads of one profile table; every error names the file and ``profiles[i].key``."""

    def __init__(self, config: Config, raw: Mapping[str, Any], key: str) -> None:
        self.file, self.raw, self.key = config.file, raw, key

    def fail(self, name: str, problem: str) -> ProfileError:
        return ProfileError(self.file, f"{self.key}.{name}" if name else self.key, problem)

    def get(self, name: str, types: type | tuple[type, ...], words: str, default: Any = None) -> Any:
        if name not in self.raw:
            return default
        value = self.raw[name]
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise self.fail(name, f"expected {words}, got {str(value).lower()}")
        if not isinstance(value, types):
            raise self.fail(name, f"expected {words}, got {value!r}")
        return value

    def choice(self, name: str, choices: tuple[str, ...]) -> str | None:
        value = self.get(name, str, f"one of {', '.join(choices)}")
        if value is not None and value not in choices:
            raise self.fail(name, f"expected one of {', '.join(choices)}; got '{value}'")
        return value

    def count(self, name: str, minimum: int) -> int | None:
        value = self.get(name, int, "a whole number")
        if value is not None and value < minimum:
            raise self.fail(name, f"expected a whole number >= {minimum}, got {value}")
        return value

    def strings(self, name: str) -> tuple[str, ...]:
        value = self.get(name, list, "a list of strings", [])
        for j, item in enumerate(value):
            if not isinstance(item, str) or not item:
                raise self.fail(f"{name}[{j}]", f"expected a non-empty string, got {item!r}")
        return tuple(value)


_KEYS = frozenset(
    """
    name model board backend port listen_host n_gpu_layers tensor_split split_mode override_tensor
    cpu_moe n_cpu_moe ctx_size parallel cache_type_k cache_type_v flash_attn lora extra_args
    sampling binary alias allow_remote remote_reason
    """.split()
)


def _parse(config: Config, raw: Mapping[str, Any], key: str) -> LaunchProfile:
    k = _Keys(config, raw, key)
    for name in raw:
        if name not in _KEYS:
            raise k.fail(name, f"unknown key; expected one of {', '.join(sorted(_KEYS))}")
    name = k.get("name", str, "a profile name")
    model = k.get("model", str, "the path of a GGUF model file")
    if not name or not model:
        raise k.fail("name" if not name else "model", "is required but missing")
    boards, gpus, host = _boards(config, k)
    port, listen_host, backend = _address(config, k)
    split = k.get("tensor_split", list, "a list of numbers such as [3, 1]", [])
    if not all(isinstance(x, int | float) and not isinstance(x, bool) and x >= 0 for x in split):
        raise k.fail("tensor_split", f"expected a list of numbers >= 0, got {split!r}")
    if split and gpus and len(split) != len(gpus):
        raise k.fail("tensor_split", f"has {len(split)} parts but the board gives {len(gpus)} GPUs")
    flash = k.get("flash_attn", (str, bool), "on, off or auto")
    if isinstance(flash, bool):
        flash = "on" if flash else "off"
    elif flash is not None and flash not in FLASH_ATTN:
        raise k.fail("flash_attn", f"expected on, off or auto; got '{flash}'")
    extra = k.strings("extra_args")
    for arg in extra:
        if arg.split("=", 1)[0] in MANAGED_FLAGS:
            raise k.fail("extra_args", f"'{arg}' is set by the profile's own keys; use those instead")
    allow_remote = bool(k.get("allow_remote", bool, "true or false"))
    reason = k.get("remote_reason", str, "a sentence saying why this server may download")
    if allow_remote and not (reason and reason.strip()):
        raise k.fail("remote_reason", "allow_remote = true needs a remote_reason saying why it may download")
    problem = remote_flag_problem(extra, allow_remote, reason)
    if problem:
        raise k.fail("extra_args", problem)
    return LaunchProfile(
        name=name,
        model=_model_path(config, model),
        boards=boards,
        gpus=gpus,
        host=host,
        backend=backend,
        listen_host=listen_host,
        port=port,
        n_gpu_layers=k.count("n_gpu_layers", 0),
        tensor_split=tuple(float(x) for x in split),
        split_mode=k.choice("split_mode", SPLIT_MODES),
        override_tensor=k.strings("override_tensor"),
        cpu_moe=bool(k.get("cpu_moe", bool, "true or false")),
        n_cpu_moe=k.count("n_cpu_moe", 0),
        ctx_size=k.count("ctx_size", 0),
        parallel=k.count("parallel", 1),
        cache_type_k=k.choice("cache_type_k", CACHE_TYPES),
        cache_type_v=k.choice("cache_type_v", CACHE_TYPES),
        flash_attn=flash,
        lora=tuple(_model_path(config, p) for p in k.strings("lora")),
        extra_args=extra,
        sampling=_sampling(k),
        binary=k.get("binary", str, "the path of a llama-server binary"),
        alias=k.get("alias", str, "a model alias") or _one_name(config, backend, _model_path(config, model)),
        allow_remote=allow_remote,
        remote_reason=reason,
    )


def _one_name(config: Config, backend: str | None, model: str) -> str | None:
    """The name the server reports for its model when the profile gives no alias: the backend's own
    ``model`` where the config names one (the name the demo and every run record), else the GGUF's
    own name, never the file path, so one model keeps one name in stats and training."""
    for entry in config.backends:
        if entry.name == backend and entry.model:
            return entry.model
    return served_name(Path(model))


def _model_path(config: Config, raw: str) -> str:
    path = Path(raw).expanduser()
    return str(path if path.is_absolute() else Path(config.file).parent / path)


def _boards(config: Config, k: _Keys) -> tuple[tuple[str, ...], tuple[int, ...], str]:
    value = k.get("board", (str, list), 'a board name such as "board-a"')
    names = [value] if isinstance(value, str) else list(value or [])
    by_name: dict[str, Board] = {b.name: b for b in config.boards}
    for j, name in enumerate(names):
        if name not in by_name:
            known = ", ".join(sorted(by_name)) or "none defined"
            where = "board" if isinstance(value, str) else f"board[{j}]"
            raise k.fail(where, f"no [[boards]] entry named '{name}' (boards: {known})")
    hosts = {by_name[n].host for n in names}
    if len(hosts) > 1:
        raise k.fail(
            "board",
            f"names boards on different hosts ({', '.join(sorted(hosts))}); "
            "one llama-server runs on one host",
        )
    gpus = tuple(g for n in names for g in by_name[n].gpus)
    return tuple(names), gpus, hosts.pop() if hosts else "localhost"


def _address(config: Config, k: _Keys) -> tuple[int, str, str | None]:
    backend = k.get("backend", str, "the name of a [[backends]] entry")
    port = k.count("port", 1)
    listen = k.get("listen_host", str, "an address such as 127.0.0.1", "127.0.0.1")
    if backend is not None:
        match = [b for b in config.backends if b.name == backend]
        if not match:
            known = ", ".join(b.name for b in config.backends) or "none defined"
            raise k.fail("backend", f"no [[backends]] entry named '{backend}' (backends: {known})")
        url = urlsplit(match[0].url)
        if not adapter_class(match[0].kind).STARTED_BY_PROFILES:
            raise k.fail("backend", f"backend '{backend}' is {match[0].kind}; a profile starts llama-server")
        if port is not None and url.port and port != url.port:
            raise k.fail("port", f"is {port} but backend '{backend}' is at {match[0].url}; drop one of them")
        port = port or url.port or DEFAULT_PORT
    if port is not None and port > 65535:
        raise k.fail("port", f"expected a port number up to 65535, got {port}")
    return port or DEFAULT_PORT, listen, backend


def _sampling(k: _Keys) -> dict[str, float]:
    table = k.get("sampling", dict, "a table such as { temperature = 0.7 }", {})
    out = dict(SEED_SAMPLING)
    for name, value in table.items():
        if name not in SAMPLING_FLAGS:
            raise k.fail(f"sampling.{name}", f"unknown key; expected one of {', '.join(SAMPLING_FLAGS)}")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise k.fail(f"sampling.{name}", f"expected a number, got {value!r}")
        out[name] = value
    return out
