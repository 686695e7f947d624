"""Where an export may be written, and what to tell the attorney when it cannot be.

The place is checked before a single pair is read, so a mistyped path fails at once rather than
after minutes of work; whatever the operating system refuses later (a read-only disk, a full one) is
turned into the same kind of error. Either way the message names the path, says what is wrong with
it in plain words, and what to do next; the write itself goes through ``workspace.paths``'
``atomic_file``, so nothing half-written is left under any name.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from corrections.errors import ExportNotWritten
from workspace.paths import atomic_file

NEXT_STEP = "Nothing was written. Choose a file in a folder you can write to (your home folder, for example)."


def checked_target(out: Path, fmt: str) -> Path:
    """``out`` if an export can be written there; a missing folder is fine (it is created)."""
    if out.name in ("", ".", ".."):
        raise ExportNotWritten(f"'{out}' is a folder's name, not a file's. {NEXT_STEP}")
    if out.is_dir():
        raise ExportNotWritten(
            f"{out} is a folder. Nothing was written. Add a file name to it, for example "
            f"{out / f'corrections-{fmt}.jsonl'}, and export again."
        )
    blocker = _file_in_the_way(out)
    if blocker is not None:
        raise ExportNotWritten(f"{blocker} is a file, not a folder, so {out} cannot be written. {NEXT_STEP}")
    return out


@contextmanager
def export_file(out: Path) -> Iterator[IO[Any]]:
    """The text file to write ``out`` through: whole when the block ends, or not at all; what the
    operating system refuses (opening, writing, the final rename) becomes ``ExportNotWritten``."""
    try:
        with atomic_file(out, encoding="utf-8") as fh:
            yield fh
    except OSError as exc:
        raise not_written(out, exc) from exc


def not_written(out: Path, exc: OSError) -> ExportNotWritten:
    """The error for a write the operating system refused, in plain words."""
    folder = out.parent
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return ExportNotWritten(
            f"The disk holding {folder} is full, so {out} was not written. Nothing was written. Free some "
            "space there, or choose a file on another disk, and export again."
        )
    reason = {
        errno.EACCES: f"you may not write in {folder} (permission denied)",
        errno.EPERM: f"you may not write in {folder} (permission denied)",
        errno.EROFS: f"{folder} is on a read-only disk",
        errno.ENOENT: f"{folder} takes no new files",
        errno.EISDIR: f"{out} is a folder",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EEXIST: "a part of the path is a file, not a folder",
    }.get(exc.errno or 0, exc.strerror or str(exc))
    return ExportNotWritten(f"{out} could not be written: {reason}. {NEXT_STEP}")


def _file_in_the_way(out: Path) -> Path | None:
    """The nearest existing folder above ``out``, when it is in fact a file (``notes.txt/sft.jsonl``)."""
    for parent in out.absolute().parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None
