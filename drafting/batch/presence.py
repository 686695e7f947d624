"""Who else is at work on this database: the open workstation, and a running batch.

Each is an advisory lock (``flock``) on a small file in the data folder, held for as long as the
workstation is open or the batch runs. The kernel drops a lock when its holder dies, kill -9
included, so a crash never leaves the workstation "open" or a batch "running". A batch runner
tests the workstation's lock before each job it starts, so opening the workstation in the middle
of a batch frees a slot for the attorney as soon as a job ends.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from workspace.errors import ChambersError

WORKSTATION_LOCK = "workstation.lock"


class BatchBusy(ChambersError):
    title = "The batch is already running"


def _lock_file(database_file: Path, name: str) -> Path:
    return database_file.parent / name


@contextmanager
def _held(path: Path, *, tries: int = 1, sign: bool = True) -> Iterator[IO[str] | None]:
    """The lock on ``path``, or None when another process (or another open here) holds it.

    ``tries``: a holder to be tries again for a moment, since a process only testing the lock holds
    it for an instant. ``sign``: write this process's id in the file, to name the holder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - closed below, after the lock is dropped
    try:
        for attempt in range(tries):
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == tries - 1:
                    yield None
                    return
                time.sleep(0.01)
        if sign:
            fh.seek(0)
            fh.truncate()
            fh.write(str(os.getpid()))
            fh.flush()
        try:
            yield fh
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    finally:
        fh.close()


@contextmanager
def workstation_present(database_file: Path) -> Iterator[bool]:
    """Held while the workstation is open on ``database_file``; yields False when another one holds it."""
    with _held(_lock_file(database_file, WORKSTATION_LOCK), tries=50) as fh:
        yield fh is not None


def workstation_open(database_file: Path) -> bool:
    """Whether a workstation has ``database_file`` open now."""
    path = _lock_file(database_file, WORKSTATION_LOCK)
    if not path.exists():
        return False
    with _held(path, sign=False) as fh:
        return fh is None


@contextmanager
def batch_lock(database_file: Path, name: str) -> Iterator[None]:
    """Held while batch ``name`` runs; a second runner of the same batch is refused, naming the first."""
    path = _lock_file(database_file, f"batch-{name}.lock")
    with _held(path) as fh:
        if fh is None:
            holder = path.read_text(encoding="utf-8").strip() or "another process"
            raise BatchBusy(
                f"Batch '{name}' is being run by process {holder}. Wait for it, or stop it with Ctrl+C "
                f"there; `chambers batch run {name}` afterwards resumes where it stopped."
            )
        yield
