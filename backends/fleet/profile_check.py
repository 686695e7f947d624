"""Does each running server match its launch profile? ``/props`` against the profile, difference by difference.

A server started by hand, or by an older unit file, drifts from its profile
without anyone noticing: another model file, a different context or slot
count, other sampling defaults, other adapters, another llama.cpp build. The
doctor names each difference, and which of the profile's keys a running
server does not report, so that nobody reads their silence as a pass.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from backends.fleet.profiles import SAMPLING_FLAGS, LaunchProfile
from backends.fleet.topology_lint import Finding
from backends.server_facts import Props

_VERSION = re.compile(
    r"version:\s*(?P<number>\S+)\s*\((?:build\s+(?P<build>\d+),\s*commit\s+(?P<commit>[^)\s]+)|(?P<hash>[^)\s]+))\)"
)


def binary_build(binary: Path) -> str | None:
    """``b7000-abc1234`` style build of a llama-server binary, from ``--version`` (None if it cannot say)."""
    try:
        result = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return build_from_version_text(result.stdout + result.stderr)


def build_from_version_text(text: str) -> str | None:
    """``--version`` output -> the server's ``build_info``: "version: 7000 (abc1234)" is "b7000-abc1234",
    "version: 0.6.0-dev (build 0, commit unknown)" is "b0-unknown"."""
    match = _VERSION.search(text)
    if match is None:
        return None
    if match.group("build") is not None:
        return f"b{match.group('build')}-{match.group('commit')}"
    return f"b{match.group('number')}-{match.group('hash')}"


# The profile's keys /props does not report (at the pinned llama-server): the doctor cannot check them.
UNREPORTED = (
    "n_gpu_layers",
    "tensor_split",
    "split_mode",
    "override_tensor",
    "cpu_moe",
    "n_cpu_moe",
    "cache_type_k",
    "cache_type_v",
    "flash_attn",
    "extra_args",
)


def sampling_differences(profile: LaunchProfile, props: Props) -> list[str]:
    """Each sampling default of the profile the server does not have (``default_generation_settings``)."""
    params = (props.raw.get("default_generation_settings") or {}).get("params") or {}
    out = []
    for key in SAMPLING_FLAGS:
        wanted, running = profile.sampling.get(key), params.get(key)
        if wanted is None or not isinstance(running, int | float):
            continue
        if abs(float(running) - float(wanted)) > 1e-4:  # the server keeps floats in single precision
            out.append(
                f"samples with {key} {float(running):g}, the profile says {float(wanted):g} "
                f"({SAMPLING_FLAGS[key]})"
            )
    return out


def adapter_differences(
    profile: LaunchProfile, loaded_paths: list[str] | None, configured: tuple[str, ...] = ()
) -> list[str]:
    """The profile's LoRA files against the ones the server loaded (``loaded_paths``; None: not known).
    ``configured``: the names its backend's requests carry, which `serve` loads from the registry."""
    if loaded_paths is None:
        return []
    wanted = {Path(p).name for p in (*profile.lora, *profile.adapters)} | {f"{n}.gguf" for n in configured}
    names = {Path(p).name for p in loaded_paths}
    out = [
        f"has not loaded the LoRA adapter {w} the profile loads"
        for w in profile.lora
        if Path(w).name not in names
    ]
    out += [
        f"loads the LoRA adapter {p}, which neither the profile nor its backend names"
        for p in loaded_paths
        if Path(p).name not in wanted
    ]
    return out


def unchecked_keys(profile: LaunchProfile) -> list[str]:
    """The keys ``profile`` sets that a running server does not report."""
    defaults = LaunchProfile(profile.name, profile.model)
    return [k for k in UNREPORTED if getattr(profile, k) != getattr(defaults, k)]


def props_differences(profile: LaunchProfile, props: Props, expected_build: str | None) -> list[str]:
    """Each way the running server differs from ``profile``, in words."""
    out = sampling_differences(profile, props)
    raw = props.raw
    running_model = str(raw.get("model_path") or "")
    if running_model and Path(running_model).name != Path(profile.model).name:
        out.append(f"runs model {Path(running_model).name}, the profile says {Path(profile.model).name}")
    if profile.ctx_size:
        # /props gives the context of one slot; the server divides -c among its slots unless unified.
        slots = props.total_slots or profile.parallel or 1
        wanted = {profile.ctx_size, profile.ctx_size // slots}
        if props.n_ctx is not None and props.n_ctx not in wanted:
            out.append(f"has n_ctx {props.n_ctx} per slot, the profile says -c {profile.ctx_size}")
    if profile.parallel and props.total_slots is not None and props.total_slots != profile.parallel:
        out.append(f"has {props.total_slots} slots, the profile says -np {profile.parallel}")
    if expected_build and props.build and props.build != expected_build:
        out.append(f"is build {props.build}, the profile's binary is {expected_build}")
    return out


def profile_findings(
    profiles: tuple[LaunchProfile, ...],
    props_by_backend: dict[str, Props | None],
    builds: dict[str, str | None],
    loaded_by_backend: dict[str, list[str] | None] | None = None,
    configured: dict[str, tuple[str, ...]] | None = None,
) -> list[Finding]:
    findings = []
    for profile in profiles:
        if profile.backend is None or profile.backend not in props_by_backend:
            continue
        props = props_by_backend[profile.backend]
        if props is None:
            continue  # the backend check already says it is down
        subject = f"backend {profile.backend}"
        differences = [
            *props_differences(profile, props, builds.get(profile.name)),
            *adapter_differences(
                profile,
                (loaded_by_backend or {}).get(profile.backend),
                (configured or {}).get(profile.backend, ()),
            ),
        ]
        for difference in differences:
            findings.append(Finding("warning", subject, f"{difference} (profile {profile.name})"))
        if unchecked := unchecked_keys(profile):
            findings.append(
                Finding(
                    "info",
                    subject,
                    f"not checked, as a running llama-server does not report them: "
                    f"{', '.join(unchecked)} (profile {profile.name})",
                )
            )
    return findings
