"""The one check every writer makes: evidence and chambers' own databases are never written to.

A report, an export, a stamped copy, a binder, a redacted copy or the demo's
files may go anywhere the attorney likes except inside a matter's source
folders (his evidence: a file there could be replaced, and a
``.chambers-output`` marker dropped there would quarantine genuine evidence
at the next ingest) or onto the data folder's databases. The target is
checked three ways, because a symbolic link can hide where a write really
lands: as written, with its folder's links resolved (where a rename puts it),
and with every link resolved (where an ``open`` writes through it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from evidence.errors import WriteRefused
from evidence.matters import list_matters
from evidence.store import database_file_of, open_index
from workspace.database import Connection

DATABASE_SUFFIXES = ("", "-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Protected:
    """What no writer may touch: every matter's source folders and the database files."""

    sources: tuple[tuple[str, Path], ...]  # (matter, folder) as recorded and with links resolved
    databases: tuple[Path, ...]


Database = Path | Connection  # the database file, or a connection already open on it


def protected_places(database: Database) -> Protected:
    """Every matter's source folders and the database's files."""
    if isinstance(database, Connection):
        db_path = database_file_of(database)
        matters = list_matters(database)
    else:
        db_path, matters = database, []
        if db_path.exists():  # no database yet: no matters, and none is created just to check a path
            with open_index(db_path) as db:
                matters = list_matters(db)
    sources: list[tuple[str, Path]] = []
    for matter in matters:
        for folder in matter.sources:
            sources += [(matter.name, form) for form in dict.fromkeys([folder, _real(folder)])]
    base = Path(os.path.abspath(db_path))
    databases = {base.with_name(base.name + s) for s in DATABASE_SUFFIXES}
    databases |= {_real(p) for p in databases}
    return Protected(tuple(sources), tuple(sorted(databases)))


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
        for matter, source in self.protected.sources:
            for form in forms:
                inside = form == source or form.is_relative_to(source)
                if inside or (folder and source.is_relative_to(form)):
                    where = "inside" if inside else "above"
                    raise WriteRefused(
                        f"{target} lies {where} the source folder {source} of matter '{matter}', and chambers "
                        f"never writes among evidence. Nothing was written. Choose a {what} outside the "
                        "matter's source folders (or leave the option out to use chambers' own data folder)."
                    )
        for form in forms:
            if form in self.protected.databases:
                raise WriteRefused(
                    f"{target} is chambers' own database. Nothing was written. Choose another {what}."
                )
        return forms[0]


def output_guard(database: Database) -> OutputGuard:
    return OutputGuard(protected_places(database))


def check_output(database: Database, target: Path, *, what: str = "output", folder: bool = False) -> Path:
    """Check one target (see :meth:`OutputGuard.check`)."""
    return output_guard(database).check(target, what=what, folder=folder)
