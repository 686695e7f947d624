"""What a killed chambers leaves behind, removed at the next start.

Two kinds of leftovers: a temporary file ``.NAME.PID.tmp`` (``workspace.paths.temp_name``) that a save
was writing when its process died, and a hidden ``.NAME.partial`` folder a training run was filling
(gigabytes, sometimes). A temporary file names its writer's process, so it is removed only when that
process is gone. A partial folder is claimed by its run with an exclusive lock on
``.NAME.partial.lock`` beside it; the operating system drops the lock when the process dies, however
it dies, so a folder whose lock can be taken belongs to nobody.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

_TEMP = re.compile(r"^\.(.+)\.(\d+)\.tmp$")
_PARTIAL = re.compile(r"^\.(.+)\.partial$")


def process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process holds that number: treat it as the writer, to be safe
        return True
    return True


def remove_stale_temps(folder: Path, names: Iterable[str] | None = None) -> list[Path]:
    """Remove ``.NAME.PID.tmp`` whose process is gone (of the given file names; None: of any, for a
    folder only chambers writes in); returns what went."""
    wanted = None if names is None else set(names)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:  # no folder yet, or not readable: nothing of ours to clear
        return removed
    for entry in entries:
        match = _TEMP.match(entry.name)
        named = match is not None and (wanted is None or match[1] in wanted)
        ours = named and entry.is_file(follow_symlinks=False)
        if ours and match is not None and not process_alive(int(match[2])):
            Path(entry.path).unlink(missing_ok=True)
            removed.append(Path(entry.path))
    return removed


def _lock_file(partial: Path) -> Path:
    return partial.with_name(partial.name + ".lock")


class PartialClaim:
    """A run's hold on its partial folder: released by :meth:`release`, or by the process's death."""

    def __init__(self, partial: Path) -> None:
        partial.parent.mkdir(parents=True, exist_ok=True)
        self.lock = _lock_file(partial)
        self._fd: int | None = os.open(self.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def release(self) -> None:
        if self._fd is not None:
            self.lock.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:  # a run that raised: the lock goes with the object
        self.release()


def claim_partial(partial: Path) -> PartialClaim:
    """Claim ``partial`` for this process (waits while another live run holds it)."""
    return PartialClaim(partial)


def remove_stale_partials(folder: Path) -> list[Path]:
    """Remove ``.NAME.partial`` folders in ``folder`` that no live process holds; returns what went."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not (_PARTIAL.match(entry.name) and entry.is_dir(follow_symlinks=False)):
            continue
        partial = Path(entry.path)
        lock = _lock_file(partial)
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # a run is filling it now
            os.close(fd)
            continue
        try:
            shutil.rmtree(partial, ignore_errors=True)
            lock.unlink(missing_ok=True)
            removed.append(partial)
        finally:
            os.close(fd)
    return removed


def clear_leftovers(config_file: Path, data_dir: Path, adapters: Path) -> list[Path]:
    """Everything a killed process left: the config folder's temporary saves, those in the data folder
    and the folders directly in it (exports, units, reports), and partial adapters."""
    removed = remove_stale_temps(config_file.parent, [config_file.name, "ui.toml"])
    removed += remove_stale_temps(data_dir)
    try:
        folders = [Path(e.path) for e in os.scandir(data_dir) if e.is_dir(follow_symlinks=False)]
    except OSError:
        folders = []
    for folder in folders:
        removed += remove_stale_temps(folder)
    return removed + remove_stale_partials(adapters)
