"""``chambers serve --unit PROFILE``: a systemd service that runs the profile's llama-server.

systemd restarts it on failure and keeps its output in the journal
(``journalctl -u chambers-NAME``); chambers only writes the file. The command
line is the one ``serve`` runs, quoted for systemd: each argument in double
quotes with backslash and quote escaped, ``%`` doubled (specifiers) and ``$``
doubled (variable expansion), so an ``-ot`` regex reaches the server intact.
``parse_exec_start`` reverses the quoting to check a written unit where
``systemd-analyze`` is not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from backends.fleet.profiles import LaunchProfile, command, environment
from workspace.paths import write_atomically

UNIT_PREFIX = "chambers-"


def unit_name(profile: LaunchProfile) -> str:
    return UNIT_PREFIX + re.sub(r"[^A-Za-z0-9:_.\\-]", "-", profile.name) + ".service"


def quote(arg: str) -> str:
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{escaped}"'


def unit_text(profile: LaunchProfile, binary: Path | str) -> str:
    env = environment(profile)
    lines = [
        "[Unit]",
        f"Description=llama-server for chambers profile {profile.name}",
        "After=network-online.target",
        "Wants=network-online.target",
        "",
        "[Service]",
        "Type=exec",
        *(f"Environment={quote(f'{k}={v}')}" for k, v in env.items()),
        "ExecStart=" + " ".join(quote(a) for a in command(profile, binary)),
        "Restart=on-failure",
        "RestartSec=5",
        "TimeoutStopSec=30",
        "KillSignal=SIGTERM",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        "",
    ]
    return "\n".join(lines)


def write_unit(profile: LaunchProfile, binary: Path | str, folder: Path) -> Path:
    """Write the unit into ``folder`` through a temp file; returns its path."""
    target = folder / unit_name(profile)
    write_atomically(target, unit_text(profile, binary).encode("utf-8"))
    return target


def parse_exec_start(value: str) -> list[str]:
    """The argv systemd would run for an ``ExecStart=`` value made of quoted words (``quote``)."""
    args, i = [], 0
    while i < len(value):
        if value[i] == " ":
            i += 1
            continue
        if value[i] != '"':
            raise ValueError(f"unquoted word at column {i}: {value[i : i + 20]!r}")
        i += 1
        word = []
        while i < len(value) and value[i] != '"':
            escaped = value[i] == "\\" and i + 1 < len(value)
            doubled = value[i] in "%$" and value[i + 1 : i + 2] == value[i]
            if escaped or doubled:
                i += 1
            word.append(value[i])
            i += 1
        if i >= len(value):
            raise ValueError("unterminated quote")
        args.append("".join(word))
        i += 1
    return args


def parse_unit(text: str) -> dict[str, list[str]]:
    """``Section.Key`` -> values, in order (keys such as Environment repeat)."""
    out: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"line without '=': {line!r}")
        out.setdefault(f"{section}.{key.strip()}", []).append(value.strip())
    return out


def systemd_verify(unit: Path) -> tuple[bool, str] | None:
    """``systemd-analyze verify`` of ``unit``: (ok, its output), or None where it is not installed."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        return None
    result = subprocess.run(
        [tool, "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    output = (result.stdout + result.stderr).strip()
    # verify exits 0 on directives it ignores ("Failed to parse ..., ignoring"): any line about our file counts
    about_unit = [line for line in output.splitlines() if unit.name in line]
    return result.returncode == 0 and not about_unit, output
