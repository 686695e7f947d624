"""``chambers bench --sweep PROFILE --vary KEY=V1,V2``: one server per variant, the realistic prompt set on each.

Each variant is the profile with some flags changed (every combination of
the ``--vary`` lists). Its server is started on a free loopback port, the
bench's drafting prompts are run on it (warm-up calls excluded), and it is
stopped before the next one starts, so variants never share a machine's
memory. A variant that does not load (out of memory, a bad ``-ot`` regex) is
a row with the server's own error, and the sweep goes on. Every row keeps
the exact command line and environment it ran with.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backends.adapters import LlamaCppServer
from backends.fleet.bench import Bench, BenchSettings, LengthResult, Progress
from backends.fleet.profiles import CACHE_TYPES, FLASH_ATTN, SPLIT_MODES, LaunchProfile, command, environment
from backends.fleet.serve import server_environment
from backends.local_server import LlamaServerProcess, LocalServerError, free_port
from workspace.audit import AuditLog
from workspace.config import Backend, Policy
from workspace.errors import ChambersError

DEFAULT_FLOOR_TOK_S = 40.0
LOAD_TIMEOUT_S = 600.0  # a large model on slow disks takes minutes to load


class BadVary(ChambersError):
    title = "Bad --vary"


def _ints(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def _choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(text)
        return text

    return parse


def _split(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split("/"))  # 3/1 : commas already separate the variants


OFFLOAD = "offload"  # an axis that sets several profile fields at once


def _offload(text: str) -> dict[str, Any]:
    """One way of keeping MoE weights on the CPU, the others cleared: ``gpu`` (none), ``cpu-moe``,
    ``n-cpu-moe:K`` (the first K layers' experts), ``ot:RULE RULE`` (-ot rules, e.g. chambers experts --place's)."""
    cleared: dict[str, Any] = {"override_tensor": (), "cpu_moe": False, "n_cpu_moe": None}
    kind, _, arg = text.partition(":")
    if kind == "gpu" and not arg:
        return cleared
    if kind == "cpu-moe" and not arg:
        return {**cleared, "cpu_moe": True}
    if kind == "n-cpu-moe":
        return {**cleared, "n_cpu_moe": _ints(arg)}
    if kind == "ot" and arg.split():
        return {**cleared, "override_tensor": tuple(arg.split())}
    raise ValueError(text)


# --vary key -> (profile field, parser of one value, words for the error)
VARY_KEYS: dict[str, tuple[str, Callable[[str], Any], str]] = {
    "n-cpu-moe": ("n_cpu_moe", _ints, "a whole number of MoE layers kept on the CPU"),
    "np": ("parallel", lambda t: max(1, _ints(t)), "a number of slots (1 or more)"),
    "c": ("ctx_size", _ints, "a context size in tokens"),
    "ngl": ("n_gpu_layers", _ints, "a number of layers on the GPU"),
    "ts": ("tensor_split", _split, "a tensor split such as 3/1"),
    "sm": ("split_mode", _choice(SPLIT_MODES), f"one of {', '.join(SPLIT_MODES)}"),
    "fa": ("flash_attn", _choice(FLASH_ATTN), f"one of {', '.join(FLASH_ATTN)}"),
    "ctk": ("cache_type_k", _choice(CACHE_TYPES), f"one of {', '.join(CACHE_TYPES)}"),
    "ctv": ("cache_type_v", _choice(CACHE_TYPES), f"one of {', '.join(CACHE_TYPES)}"),
    "ot": ("override_tensor", lambda t: tuple(t.split()), "-ot rules (several on one line: spaces between)"),
    OFFLOAD: (OFFLOAD, _offload, "gpu, cpu-moe, n-cpu-moe:K or ot:RULES"),
}
VARY_ALIASES = {
    "n_cpu_moe": "n-cpu-moe",
    "parallel": "np",
    "ctx": "c",
    "ctx-size": "c",
    "n-gpu-layers": "ngl",
    "override-tensor": "ot",
    "tensor-split": "ts",
    "split-mode": "sm",
    "flash-attn": "fa",
}


@dataclass(frozen=True)
class Variant:
    label: str  # "n-cpu-moe=1 np=2"
    profile: LaunchProfile


def _label(key: str, i: int, text: str, from_file: bool) -> str:
    """A variant's name in the table: its value, or its number where the value is a line of -ot rules."""
    if (key == "ot" and from_file) or (key == OFFLOAD and text.startswith("ot:")):
        return f"{key}={'ot' if key == OFFLOAD else ''}#{i + 1}"
    return f"{key}={text}"


def parse_vary(spec: str) -> tuple[str, list[Any], list[str]]:
    """``KEY=V1,V2`` (``ot=@file``: one variant per line of the file) -> key, values, their labels."""
    key, sep, raw = spec.partition("=")
    key = VARY_ALIASES.get(key.strip(), key.strip())
    if not sep or key not in VARY_KEYS or not raw.strip():
        raise BadVary(f"--vary takes KEY=V1,V2 with KEY one of {', '.join(VARY_KEYS)}; got '{spec}'.")
    name, parse, words = VARY_KEYS[key]
    if raw.startswith("@"):
        path = Path(raw[1:]).expanduser()
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise BadVary(f"--vary {key}=@{path}: the file cannot be read ({exc}).") from None
        texts = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
        if not texts:
            raise BadVary(f"--vary {key}=@{path}: the file has no variants (one per line; # for comments).")
    else:
        texts = [t.strip() for t in raw.split(",") if t.strip()]
    values = []
    for text in texts:
        try:
            values.append(parse(text))
        except ValueError:
            raise BadVary(f"--vary {key}: '{text}' is not {words}.") from None
    labels = [_label(key, i, t, raw.startswith("@")) for i, t in enumerate(texts)]
    return name, values, labels


def variants(profile: LaunchProfile, specs: list[str]) -> list[Variant]:
    """Every combination of the ``--vary`` lists, each on a free loopback port."""
    axes = [parse_vary(spec) for spec in specs]
    if not axes:
        return [Variant("as profiled", profile.with_changes(listen_host="127.0.0.1", port=free_port()))]
    out = []
    for combo in itertools.product(*(list(zip(values, labels, strict=True)) for _, values, labels in axes)):
        changes: dict[str, Any] = {}
        for (name, _, _), (value, _) in zip(axes, combo, strict=True):
            changes.update(value if name == OFFLOAD else {name: value})
        label = " ".join(lab for _, lab in combo)
        out.append(Variant(label, profile.with_changes(listen_host="127.0.0.1", port=free_port(), **changes)))
    return out


@dataclass
class SweepRow:
    profile: str
    variant: str
    command: str  # exactly what ran, shell-quoted
    environment: dict[str, str]
    model: str
    error: str | None = None
    results: list[LengthResult] = field(default_factory=list)

    def worst_tg_median(self) -> float | None:
        medians = [r.tg_stats().median for r in self.results if r.runs]
        return min((m for m in medians if m is not None), default=None)


class ProfileServer(LlamaServerProcess):
    """A ``LlamaServerProcess`` that runs a profile's own command line and environment."""

    def __init__(self, profile: LaunchProfile, binary: Path, log_file: Path) -> None:
        super().__init__(
            binary, Path(profile.model), port=profile.port, log_file=log_file, env=server_environment(profile)
        )
        self.profile = profile

    def command(self) -> list[str]:
        return command(self.profile, self.binary)


_LOG_PREFIX = re.compile(r"^\d+\.\d+\.\d+\.\d+ [A-Z] ")  # llama.cpp's "0.01.079.419 E " timestamp and level
_ERROR_WORDS = ("error", "failed", "invalid", "out of memory")


def load_error(log_text: str) -> str:
    """The server's own reason for not loading: its first error line (the cause) and its last (the outcome)."""
    lines = [_LOG_PREFIX.sub("", line).strip() for line in log_text.splitlines()]
    lines = [line for line in lines if line]
    errors = list(dict.fromkeys(x for x in lines if any(w in x.lower() for w in _ERROR_WORDS)))
    picked = [errors[0], errors[-1]] if len(errors) > 1 else errors or lines[-1:]
    return " ... ".join(picked)[:400] or "it exited without a word"


def run_variant(
    variant: Variant,
    binary: Path,
    settings: BenchSettings,
    audit: AuditLog | None,
    log_dir: Path,
    on_progress: Callable[[Progress], None] | None = None,
) -> SweepRow:
    profile = variant.profile
    row = SweepRow(
        profile.name,
        variant.label,
        shlex.join(command(profile, binary)),
        environment(profile),
        Path(profile.model).name,
    )
    log = log_dir / f"sweep-{profile.name}-{profile.port}.log"
    server = ProfileServer(profile, binary, log)
    try:
        server.start(timeout=LOAD_TIMEOUT_S)
    except LocalServerError:
        server.stop()
        row.error = load_error(server.log_tail(200))
        return row
    try:
        backend = Backend(name=f"{profile.name} [{variant.label}]", kind=LlamaCppServer.KIND, url=server.url)
        bench = Bench(backend, Policy(local_only=True), audit, settings)
        try:
            asyncio.run(bench.run(on_progress))
        except ChambersError as exc:
            row.error = f"loaded, then failed while measuring: {exc.message}"
        row.results = bench.results
    finally:
        server.stop()
    return row


def run_sweep(
    profile: LaunchProfile,
    specs: list[str],
    binary: Path,
    settings: BenchSettings,
    audit: AuditLog | None,
    log_dir: Path,
    on_variant: Callable[[int, int, Variant], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> list[SweepRow]:
    """Runs every variant in turn; the rows so far survive a Ctrl-C (KeyboardInterrupt propagates)."""
    planned = variants(profile, specs)
    rows: list[SweepRow] = []
    for i, variant in enumerate(planned):
        if on_variant is not None:
            on_variant(i, len(planned), variant)
        rows.append(run_variant(variant, binary, settings, audit, log_dir, on_progress))
    return rows
