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
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

_ESCAPE = re.compile(rb"\\\\|\\x([0-9a-f]{2})")


def path_key(path: Path | str) -> str:
    """A file's path as text that SQLite, the screen and a report can hold, losslessly.

    A name that is not UTF-8 (what ``unzip`` leaves of a Windows archive) reaches Python with its
    bad bytes as lone surrogates, which no UTF-8 store or terminal accepts. Those bytes are written
    as ``\\xNN`` and, in such a name only, a literal backslash is doubled, so :func:`key_path` can
    give back the very bytes. Every other path is its own key.
    """
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = os.fsencode(text).replace(b"\\", b"\\\\")
        return raw.decode("utf-8", "backslashreplace")
    return text


def key_path(key: str) -> Path:
    """The path a key of :func:`path_key` names.

    A key is read as escaped only when its escapes give a name that is not UTF-8 and is escaped back
    to this very key; a name on disk spelled like the key itself still wins. What stays ambiguous is
    a UTF-8 name typed with a literal ``\\xNN`` (NN from 80) that is not on disk.
    """
    literal = Path(key)
    if "\\" not in key or os.path.lexists(literal):
        return literal
    raw = _ESCAPE.sub(lambda m: bytes([int(m[1], 16)]) if m[1] else b"\\", key.encode("utf-8"))
    decoded = os.fsdecode(raw)
    return Path(decoded) if decoded != key and path_key(decoded) == key else literal


@dataclass(frozen=True)
class Notice:
    path: str
    kind: str  # quarantined | error | encrypted | skipped | unread | repaired | note | loop | missing | vanished | outside | special
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
                    path_key(root),
                    "missing",
                    f"The source folder {path_key(root)} is not there (moved, or a drive not mounted?). Its documents "
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
    shown = path_key(folder)
    try:
        info = folder.stat()
        key = (info.st_dev, info.st_ino)
        if key in seen:
            notices.append(
                Notice(
                    shown,
                    "loop",
                    f"{shown} is a link back to a folder already read (a symlink loop); it was not read "
                    "again. Remove the link if it is a mistake.",
                )
            )
            return
        seen.add(key)
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except FileNotFoundError:
        if folder == listing.root:
            listing.complete = False  # the whole source folder went: its records are kept
        else:
            notices.append(Notice(shown, "vanished", vanished_notice(shown)))
        return
    except OSError as exc:
        notices.append(
            Notice(shown, "error", f"{shown} could not be listed ({exc.strerror}). Check its permissions.")
        )
        listing.complete = False
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.name.startswith("."):
            continue
        name = path_key(path)
        try:
            is_dir = entry.is_dir()
            is_file = entry.is_file()
            if entry.is_symlink() and not (is_dir or is_file):
                info = os.stat(path)  # raises when the link is broken or loops
            elif not (is_dir or is_file):
                info = entry.stat()
        except FileNotFoundError:
            if entry.is_symlink():
                message = f"{name} is a symbolic link to something that is not there; it was skipped. Fix or remove the link."
            else:
                message = vanished_notice(name)
            notices.append(Notice(name, "error" if entry.is_symlink() else "vanished", message))
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                message = f"{name} is a symbolic link that loops back on itself; it was skipped. Remove or fix the link."
                notices.append(Notice(name, "loop", message))
            else:
                message = (
                    f"{name} could not be examined ({exc.strerror}); it was skipped. Check its permissions."
                )
                notices.append(Notice(name, "error", message))
            continue
        if inside is not None and entry.is_symlink():
            target = Path(os.path.realpath(path))
            if not target.is_relative_to(inside):
                notices.append(Notice(name, "outside", outside_notice(path, target, listing.root)))
                continue
        if is_dir:
            _walk(path, listing, notices, seen, inside)
        elif is_file:
            listing.files.append(path)
        else:
            notices.append(Notice(name, "special", special_notice(name, info.st_mode)))


def special_notice(name: str, mode: int) -> str:
    """A named pipe, socket or device in a source folder: opening it could block or never end."""
    what = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    return (
        f"{name} is {what}, not a document; it was not read (reading it could wait forever). Copy the "
        "document it stands for into the folder as a regular file."
    )


def vanished_notice(name: str) -> str:
    return (
        f"{name} was deleted (or moved) while the ingest was reading the folder, so it was not read. If "
        "it is still needed, put it back and run the ingest again."
    )


def outside_notice(link: Path, target: Path, root: Path) -> str:
    return (
        f"{path_key(link)} is a symbolic link to {path_key(target)}, outside the source folder {path_key(root)}; "
        "it was not read. Copy "
        "what it points to into the folder, or run the ingest with --follow-links to read it there."
    )
