"""One model, one name, over the names pairs were already stored under.

A pair records the name its server reported for the model that drafted it. A server started from a
profile without an alias reported its GGUF's file path, while the demo reports the backend's short
name for the same file, so pairs of one model sit under two names: stats show two rows and training
refuses "pairs from two models". The stored names stay as they were written; this maps each to the
name that model is shown under, by what the files themselves say: a model file is identified by its
GGUF ``general.name`` and its exact size (read from the header, so a 70 GB file is not hashed).

The name shown for a file is the one its configured server reports: the backend's ``model`` where a
backend names the file as its ``weights``, else a profile's alias for it, else the GGUF's own
``served_name``. A stored path to a file the config does not serve is shown under that file's
``served_name``, so two copies of one model in two folders are one model too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from backends.fleet.gguf_name import general_name, served_name
from backends.fleet.profiles import profiles_from_config
from workspace.config import Config
from workspace.errors import ChambersError

Identity = tuple[str, int]  # (general.name, size in bytes)


def model_identity(path: Path) -> Identity | None:
    """What says two files are one model: the GGUF's ``general.name`` and the file's size; None when
    the file is not there or its header names no model."""
    name = general_name(path)
    if name is None:
        return None
    try:
        return name, path.stat().st_size
    except OSError:
        return None


def _served_files(config: Config) -> Iterator[tuple[Path, str | None]]:
    """Each model file the config serves, with the name its server reports (None: the file's own)."""
    for backend in config.backends:
        if backend.weights:
            yield Path(backend.weights).expanduser(), backend.model
    try:
        profiles = profiles_from_config(config)
    except ChambersError:  # a broken profile is `chambers config`'s to report; the names go on without it
        return
    for profile in profiles:
        yield Path(profile.model), profile.alias


def _looks_like_a_file(name: str) -> bool:
    return name.casefold().endswith(".gguf") or "/" in name or "\\" in name


def one_name_per_model(config: Config | None, stored: Iterable[str]) -> dict[str, str]:
    """``{stored name: the name to show}`` for every stored name that is another name of a model.

    Names that are already the one name, or that nothing identifies (a model on another machine, a
    file since deleted), are left out: they are shown as stored."""
    shown_for: dict[Identity, str] = {}  # first in the config's order wins, as the servers are listed
    also: dict[str, str] = {}  # a configured file's path and served name -> the name shown for it
    for file, reported in _served_files(config) if config is not None else ():
        identity = model_identity(file)
        own = served_name(file) if identity is not None else None
        name = reported or own
        if name is None:
            continue
        if identity is not None:
            name = shown_for.setdefault(identity, name)
        also.setdefault(str(file), name)
        if own is not None:
            also.setdefault(own, name)
    aliases: dict[str, str] = {}
    for name in stored:
        target = also.get(name)
        if target is None and _looks_like_a_file(name):
            path = Path(name).expanduser()
            identity = model_identity(path)
            if identity is not None:
                target = shown_for.get(identity) or served_name(path)
        if target is not None and target != name:
            aliases[name] = target
    return aliases
