"""Does each running server match its launch profile? ``/props`` against the profile, difference by difference.

A server started by hand, or by an older unit file, drifts from its profile
without anyone noticing: another model file, a different context or slot
count, another llama.cpp build. The doctor names each difference.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from backends.fleet.profiles import LaunchProfile
from backends.fleet.topology_lint import Finding
from backends.native import Props

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


def props_differences(profile: LaunchProfile, props: Props, expected_build: str | None) -> list[str]:
    """Each way the running server differs from ``profile``, in words."""
    out = []
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
) -> list[Finding]:
    findings = []
    for profile in profiles:
        if profile.backend is None or profile.backend not in props_by_backend:
            continue
        props = props_by_backend[profile.backend]
        if props is None:
            continue  # the backend check already says it is down
        for difference in props_differences(profile, props, builds.get(profile.name)):
            findings.append(Finding("warning", f"backend {profile.backend}",
                                    f"{difference} (profile {profile.name})"))  # fmt: skip
    return findings
