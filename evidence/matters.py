"""Matters: a named set of source folders and the records ingest made from them.

The rules for a matter's name and folders live here; its rows are read and written by ``evidence.store``.
These functions take the database file and open their own session; code already inside a session of
the evidence room uses the store's ``require_matter`` and ``all_matters`` on that connection.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from evidence.errors import BadMatterName, EvidenceError, MatterExists
from evidence.store import (
    Matter,
    MatterKind,
    add_matter,
    all_matters,
    find_matter,
    open_index,
    require_matter,
    set_matter_kind,
)
from evidence.walk import path_key

__all__ = [
    "Matter",
    "MatterKind",
    "check_matter_name",
    "create_matter",
    "default_kind",
    "get_matter",
    "list_matters",
    "mark_library",
]

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


def check_matter_name(name: str) -> str:
    """A matter's name becomes a folder name under the data folder, so it is a slug, never a path."""
    if not _SLUG.match(name) or ".." in name:
        raise BadMatterName(
            f"'{name}' cannot be a matter name: use letters, digits, '-', '_' or '.', starting with a letter "
            "or digit, at most 80 characters, without '..' (e.g. harbor-point). A matter's name names a "
            "folder, so it may not be a path."
        )
    return name


def default_kind(name: str) -> MatterKind:
    """What a new matter is when the caller does not say: a library when its name ends in 'authorities'
    (the verifier's default library names are '<matter>-authorities' and 'authorities')."""
    return "library" if name.endswith("authorities") else "record"


def create_matter(
    db_path: Path,
    name: str,
    sources: Sequence[Path],
    *,
    kind: MatterKind | None = None,
    config_folder: Path | None = None,
    data_folder: Path | None = None,
) -> Matter:
    """Record a new matter in the database at ``db_path``; each source folder must exist now (it is
    stored as an absolute path). ``kind`` defaults to :func:`default_kind` of the name.

    ``config_folder`` is the folder of chambers' config (``$CHAMBERS_HOME``) and ``data_folder`` its data
    folder, when the caller knows them: neither is a source, nor anything holding them, nor anything in
    the data folder. Without ``data_folder`` the database's folder stands for it (not refused inside).
    """
    name = name.strip()
    if not name:
        raise EvidenceError("A matter needs a name, e.g. `chambers matter new harbor-point --sources DIR`.")
    check_matter_name(name)
    if not sources:
        raise EvidenceError(f"Matter '{name}' needs at least one source folder: add --sources DIR.")
    resolved = []
    for source in sources:
        path = Path(source).expanduser().absolute()
        if not path.is_dir():
            raise EvidenceError(
                f"{path} is not a folder. Give the folder that holds the matter's documents.",
                title="Source folder not found",
            )
        check_source_folder(
            path, data_folder or db_path.parent, config_folder, inside=data_folder is not None
        )
        resolved.append(path)
    with open_index(db_path) as db:
        if find_matter(db, name) is not None:
            raise MatterExists(
                f"A matter named '{name}' exists already. Choose another name, or run "
                f"`chambers evidence ingest {name}` to bring it up to date."
            )
        add_matter(db, name, resolved, kind or default_kind(name))
        return require_matter(db, name)


def check_source_folder(
    path: Path, data_folder: Path, config_folder: Path | None = None, *, inside: bool = False
) -> None:
    """Refuse a source folder that is the whole disk, or that is or holds chambers' own folders (or,
    with ``inside``, lies in the data folder).

    Every folder below a matter's source is read as evidence and is closed to every writer, so a source
    holding the data folder would make chambers read its own database and outputs and then refuse to
    write them; ``/`` would put the whole machine under that rule; and a source inside the data folder
    (its exports, say) would be written to by chambers itself.
    """
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise EvidenceError(
            f"{path_key(path)} has a name that is not UTF-8 (\\xNN marks the bytes that are not), so it "
            "cannot be recorded as a source folder. Rename the folder and give its new name.",
            title="Source folder not usable",
        ) from None
    real = Path(os.path.realpath(path))
    reason = None
    if real == Path(real.anchor):
        reason = "is the root of the file system: every file on the machine would become evidence"
    else:
        own_folders = (
            (data_folder, "data folder", "its database and outputs"),
            (config_folder, "config folder", "its settings"),
        )
        for own, what, holding in own_folders:
            if own is None:
                continue
            own_real = Path(os.path.realpath(own))
            if real == own_real:
                reason = f"is chambers' own {what}, which holds {holding}"
            elif inside and what == "data folder" and real.is_relative_to(own_real):
                reason = f"lies in chambers' own {what} {own_real}, where chambers writes {holding}"
            elif own_real.is_relative_to(real):
                reason = f"holds chambers' own {what} {own_real}, which holds {holding}"
            if reason:
                break
    if reason:
        raise EvidenceError(
            f"{path} {reason}. A matter's source folders are read as evidence and never written to, so "
            "this one was not recorded. Give the folder that holds just this matter's documents.",
            title="Source folder refused",
        )


def get_matter(db_path: Path, name: str) -> Matter:
    """The matter called ``name``; :class:`MatterNotFound` names the ones there are when there is none."""
    with open_index(db_path) as db:
        return require_matter(db, name)


def list_matters(db_path: Path) -> list[Matter]:
    with open_index(db_path) as db:
        return all_matters(db)


def mark_library(db_path: Path, name: str) -> Matter:
    """Make the matter ``name`` a library of opinions (one the attorney adds opinions to is one)."""
    with open_index(db_path) as db:
        matter = require_matter(db, name)
        if matter.kind != "library":
            set_matter_kind(db, matter.id, "library")
        return require_matter(db, name)
