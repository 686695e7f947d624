"""Crash-consistent productions: Bates numbers and the files that carry them become durable together.

A production (or a Bates-stamped binder) passes through three committed states:

- ``pending``: its range is reserved and the temporary and final name of every
  file it will write are recorded, before any file is written;
- ``written``: every temporary file is complete and on disk (fsync), and its
  sha256 and the production's log rows are recorded;
- ``done``: every temporary file has been renamed to its final name and the
  folder synced.

A crash at any moment leaves one of these, and :func:`recover_productions`,
called before any new production and whenever the registry is read, settles
it: a pending production is rolled back (its temporary files are removed and
its numbers freed, since nothing was delivered); a written one is finished
(each temporary file whose hash matches is renamed into place), or rolled back
when one of its files is gone. A production whose process is still running
is left alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from exhibits.pdfio import sha256_file
from exhibits.store import (
    Connection,
    UnfinishedProduction,
    forget_production,
    record_done,
    unfinished_productions,
)

Step = Callable[[str], None]  # told the name of each step as it is reached (tests kill the process there)
_TEMP = re.compile(r"^\..+\.(\d+)\.tmp$")  # workspace.paths.temp_name: .NAME.PID.tmp


def fsync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (a rename lives in the folder's own entry list)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def process_alive(pid: int | None) -> bool:
    if not pid:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process holds that number: treat it as the owner, to be safe
        return True
    return True


def recover_productions(db: Connection, *, abandoned: int | None = None) -> list[str]:
    """Finish or roll back every production a crash left unfinished; returns what was done, in words.

    ``abandoned`` names a production of this very process that failed part-way: it is settled now.
    """
    done = []
    for production in unfinished_productions(db):
        if production.id != abandoned and process_alive(production.owner_pid):
            continue
        if production.state == "written" and _finish(production):
            record_done(db, production.id)
            done.append(
                f"Production {production.label} was interrupted after its files were written; it was finished."
            )
        else:
            _remove_files(production)
            forget_production(db, production.id)
            done.append(
                f"Production {production.label} was interrupted before its files were complete; it was rolled "
                "back, its temporary files removed, and its numbers are free again."
            )
        remove_stray_temps(production.out_dir)
    return done


def publish_files(db: Connection, production_id: int, files: list[tuple[Path, Path]], step: Step) -> None:
    """Rename each complete temporary file into place, make the renames durable, then mark the production done."""
    try:
        for number, (temp, final) in enumerate(files, start=1):
            os.replace(temp, final)
            step(f"renamed {number}")
        for folder in {final.parent for _, final in files}:
            fsync_folder(folder)
        step("synced")
        record_done(db, production_id)
    except Exception:
        recover_productions(db, abandoned=production_id)
        raise


def _finish(production: UnfinishedProduction) -> bool:
    """Rename every complete temporary file into place; False when a file is missing or altered."""
    plan = []
    for temp, final, sha in production.files:
        if final.exists() and not temp.exists() and sha_of(final) == sha:
            continue  # renamed before the crash
        if not temp.exists() or sha_of(temp) != sha:
            return False
        plan.append((temp, final))
    for temp, final in plan:
        os.replace(temp, final)
    for folder in {final.parent for _, final, _ in production.files}:
        fsync_folder(folder)
    return True


def _remove_files(production: UnfinishedProduction) -> None:
    """Remove the temporary files, and any final file already renamed (only if it is byte for byte ours)."""
    for temp, final, sha in production.files:
        temp.unlink(missing_ok=True)
        if sha is not None and final.exists() and sha_of(final) == sha:
            final.unlink()


def remove_stray_temps(folder: Path) -> None:
    """Temporary files chambers left in one of its output folders by a process that is gone."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        match = _TEMP.match(entry.name)
        if match and entry.is_file() and not process_alive(int(match[1])):
            entry.unlink(missing_ok=True)


def sha_of(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:
        return None
