"""The one check every writer makes: evidence and chambers' own databases are never written to.

A report, an export, a stamped copy, a binder, a redacted copy or the demo's
files may go anywhere the attorney likes except inside a matter's source
folders (his evidence: a file there could be replaced, and a
``.chambers-output`` marker dropped there would quarantine genuine evidence
at the next ingest) or onto the data folder's databases. The target is
checked three ways, because a symbolic link can hide where a write really
lands: as written, with its folder's links resolved (where a rename puts it),
and with every link resolved (where an ``open`` writes through it).

Every file an ingest read is protected too, wherever it lies: one read through a link
(``--follow-links``) sits outside the recorded folders. Such a file is known by its path with every
link resolved and by its device and inode, so neither another link nor a hard link to it, nor a bind
mount of its folder, reaches it; and no output folder (which chambers marks as its own) may hold one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from evidence.errors import WriteRefused
from evidence.store import ReadFile, all_matters, open_index, read_files
from evidence.walk import key_path, path_key

Identity = tuple[int, int]  # (st_dev, st_ino): the file itself, whatever path names it

DATABASE_SUFFIXES = ("", "-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Protected:
    """What no writer may touch: every matter's source folders and the database files."""

    sources: tuple[tuple[str, Path], ...]  # (matter, folder) as recorded and with links resolved
    databases: tuple[Path, ...]
    files: dict[Path, tuple[str, str]] = field(default_factory=dict)  # real path: (matter, path as read)
    identities: dict[Identity, tuple[str, str]] = field(default_factory=dict)  # of the files read
    folder_ids: dict[Identity, tuple[str, str]] = field(default_factory=dict)  # of the source folders


def protected_places(db_path: Path) -> Protected:
    """Every matter's source folders and the database's files."""
    matters, read = [], list[ReadFile]()
    if db_path.exists():  # no database yet: no matters, and none is created just to check a path
        with open_index(db_path) as db:
            matters, read = all_matters(db), read_files(db)
    sources: list[tuple[str, Path]] = []
    identities: dict[Identity, tuple[str, str]] = {}
    folder_ids: dict[Identity, tuple[str, str]] = {}
    for matter in matters:
        for folder in matter.sources:
            sources += [(matter.name, form) for form in dict.fromkeys([folder, _real(folder)])]
            _note_identity(folder_ids, folder, (matter.name, str(folder)))
    files: dict[Path, tuple[str, str]] = {}
    for entry in read:  # what it was when read, and what its path reaches now
        what = (entry.matter, entry.path)
        path = key_path(entry.path)
        files.setdefault(_real(path), what)
        _note_identity(identities, path, what)
        if entry.real_path is not None:
            files.setdefault(Path(os.path.abspath(key_path(entry.real_path))), what)
        if entry.device is not None and entry.inode is not None:
            identities.setdefault((entry.device, entry.inode), what)
    base = Path(os.path.abspath(db_path))
    databases = {base.with_name(base.name + s) for s in DATABASE_SUFFIXES}
    databases |= {_real(p) for p in databases}
    return Protected(tuple(sources), tuple(sorted(databases)), files, identities, folder_ids)


def _identity(path: Path) -> Identity | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _note_identity(identities: dict[Identity, tuple[str, str]], path: Path, what: tuple[str, str]) -> None:
    identity = _identity(path)
    if identity is not None:
        identities.setdefault(identity, what)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))  # unlike Path.resolve, never raises on a symlink loop


def _forms(target: Path) -> list[Path]:
    absolute = Path(os.path.abspath(target.expanduser()))
    return [absolute, _real(absolute.parent) / absolute.name, _real(absolute)]


@dataclass(frozen=True)
class OutputGuard:
    """The protected places read once, for a writer with many outputs (a 2,000-document production)."""

    protected: Protected

    def check(self, target: Path, *, what: str = "output", folder: bool = False) -> Path:
        """Return ``target`` made absolute, or refuse when writing it could touch evidence or a database.

        ``folder=True`` is for an output folder that chambers marks as its own: it may neither lie in
        a source folder nor contain one (the marker would quarantine every source below it).
        """
        forms = _forms(target)
        shown = path_key(target)  # a name that is not UTF-8 must not break the refusal itself
        for matter, source in self.protected.sources:
            for form in forms:
                inside = form == source or form.is_relative_to(source)
                if inside or (folder and source.is_relative_to(form)):
                    where = "inside" if inside else "above"
                    raise WriteRefused(
                        f"{shown} lies {where} the source folder {path_key(source)} of matter '{matter}', and chambers "
                        f"never writes among evidence. Nothing was written. Choose a {what} outside the "
                        "matter's source folders (or leave the option out to use chambers' own data folder)."
                    )
        for form in forms:
            if form in self.protected.databases:
                raise WriteRefused(
                    f"{shown} is chambers' own database. Nothing was written. Choose another {what}."
                )
        self._check_read_files(shown, forms, what, folder)
        return forms[0]

    def _check_read_files(self, target: str, forms: list[Path], what: str, folder: bool) -> None:
        """Refuse a target that is, by path or by identity, a file ingest read, or lies in a source folder
        by identity (a bind mount); and an output folder that holds such a file."""
        hit = next((self.protected.files[f] for f in forms if f in self.protected.files), None)
        if hit is None:
            hit = self.protected.identities.get(_identity(forms[-1]) or (-1, -1))
            # Folders are compared with the source folders only: a file's recorded inode, once the file
            # is gone, may come back as any folder's.
            for place in (forms[-1], *forms[-1].parents) if hit is None else ():
                hit = self.protected.folder_ids.get(_identity(place) or (-1, -1))
                if hit is not None:
                    break
        if hit is not None:
            matter, key = hit
            raise WriteRefused(
                f"{target} is, or lies in, {key}, which the ingest of matter '{matter}' read as evidence "
                f"(the same file or folder on disk, whatever path or link names it). Nothing was written. "
                f"Choose a {what} outside the matter's sources."
            )
        if folder:
            held = next(
                (held for real, held in self.protected.files.items() if real.is_relative_to(forms[-1])), None
            )
            if held is not None:
                raise WriteRefused(
                    f"{target} holds {held[1]}, a source file of matter '{held[0]}' (read there through a "
                    "link), and chambers marks its output folders as its own, which would quarantine that "
                    f"source at the next ingest. Nothing was written. Choose a {what} that holds no sources."
                )


def output_guard(db_path: Path) -> OutputGuard:
    return OutputGuard(protected_places(db_path))


def check_output(db_path: Path, target: Path, *, what: str = "output", folder: bool = False) -> Path:
    """Check one target (see :meth:`OutputGuard.check`)."""
    return output_guard(db_path).check(target, what=what, folder=folder)
