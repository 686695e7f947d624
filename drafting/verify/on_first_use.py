"""Modules a library imports but a run may never use, loaded when something in them is first used.

eyecite imports lxml (about a tenth of its import) for HTML cleaning and for checking the markup of
annotations, neither of which finding citations in plain text does. Lean eyecite imports eyecite with
stand-ins for those modules; the first use of a name in one (``etree.fromstring``) imports the real
module and the stand-in takes on all its names, so a later use is a plain attribute lookup.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

LXML = ("lxml", "lxml.etree", "lxml.html")


class OnFirstUse(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of a module is not a use
            raise AttributeError(name)
        parts = self.__name__.split(".")
        for end in range(1, len(parts) + 1):  # the real one, and its real package, go in their place
            if isinstance(sys.modules.get(".".join(parts[:end])), OnFirstUse):
                del sys.modules[".".join(parts[:end])]
        real = importlib.import_module(self.__name__)
        vars(self).update(vars(real))
        return getattr(real, name)


@contextmanager
def standing_in(names: tuple[str, ...]) -> Iterator[None]:
    """While the block runs, importing one of ``names`` (a package first, then its modules) gives its stand-in.

    A name already imported is left as it is. Afterwards anyone importing them gets the real modules;
    the stand-ins stay only where the block's imports bound them.
    """
    installed: dict[str, OnFirstUse] = {}
    if names[0] not in sys.modules:
        for name in names:
            installed[name] = OnFirstUse(name)
            parent, _, child = name.rpartition(".")
            if parent in installed:
                setattr(installed[parent], child, installed[name])
    sys.modules.update(installed)
    try:
        yield
    finally:
        for name, stand_in in installed.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
