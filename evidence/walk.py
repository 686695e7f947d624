"""Listing a matter's source files: following folder links once, reporting loops and dead links.

A source tree may hold symbolic links. A link that points outside its source
folder is listed with a notice and not read, unless the attorney asks for
links to be followed (``--follow-links``, for a shared "Exhibits" folder
linked into several matters): whatever it points at was never given to
chambers as evidence, and may be anything on the machine. Links inside the
folder are followed, but each real folder is visited once, so a link that
points back up the tree is reported instead of walked forever.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Notice:
    path: str
    kind: str  # quarantined | error | encrypted | skipped | unread | repaired | note | loop | missing | vanished | outside
    message: str


@dataclass
class SourceListing:
    root: Path
    files: list[Path] = field(default_factory=list)
    complete: bool = True  # False when the folder was missing or vanished: its records are kept


def list_sources(
    roots: list[Path], notices: list[Notice], *, follow_links: bool = False
) -> list[SourceListing]:
    listings = []
    for root in roots:
        listing = SourceListing(root=root)
        if not root.is_dir():
            listing.complete = False
            notices.append(
                Notice(
                    str(root),
                    "missing",
                    f"The source folder {root} is not there (moved, or a drive not mounted?). Its documents "
                    "stay indexed as they were; mount or restore it and run the ingest again.",
                )
            )
        else:
            _walk(
                root,
                listing,
                notices,
                seen=set(),
                inside=None if follow_links else Path(os.path.realpath(root)),
            )
        listings.append(listing)
    return listings


def _walk(
    folder: Path,
    listing: SourceListing,
    notices: list[Notice],
    seen: set[tuple[int, int]],
    inside: Path | None,
) -> None:
    try:
        info = folder.stat()
        key = (info.st_dev, info.st_ino)
        if key in seen:
            notices.append(
                Notice(
                    str(folder),
                    "loop",
                    f"{folder} is a link back to a folder already read (a symlink loop); it was not read "
                    "again. Remove the link if it is a mistake.",
                )
            )
            return
        seen.add(key)
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except FileNotFoundError:
        listing.complete = False
        return
    except OSError as exc:
        notices.append(
            Notice(
                str(folder), "error", f"{folder} could not be listed ({exc.strerror}). Check its permissions."
            )
        )
        listing.complete = False
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
            is_file = entry.is_file()
            if entry.is_symlink() and not (is_dir or is_file):
                os.stat(path)  # raises: the link is broken or loops
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                message = f"{path} is a symbolic link that loops back on itself; it was skipped. Remove or fix the link."
                notices.append(Notice(str(path), "loop", message))
            else:
                message = f"{path} is a symbolic link to something that is not there; it was skipped. Fix or remove the link."
                notices.append(Notice(str(path), "error", message))
            continue
        if inside is not None and entry.is_symlink():
            target = Path(os.path.realpath(path))
            if not target.is_relative_to(inside):
                notices.append(Notice(str(path), "outside", outside_notice(path, target, listing.root)))
                continue
        if is_dir:
            _walk(path, listing, notices, seen, inside)
        elif is_file:
            listing.files.append(path)


def outside_notice(link: Path, target: Path, root: Path) -> str:
    return (
        f"{link} is a symbolic link to {target}, outside the source folder {root}; it was not read. Copy "
        "what it points to into the folder, or run the ingest with --follow-links to read it there."
    )
