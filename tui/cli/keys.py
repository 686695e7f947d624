"""The attorney's own keys: ``[keys]`` in the config maps action ids (every ``Binding`` has one) to keys.

Textual applies the map itself (``App.set_keymap``); this module knows which ids exist, so a typo in
an id, two actions given one key on the same screen, or a key that tmux or screen keep for
themselves is reported by ``chambers config`` before he meets it at the keyboard.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass

from textual.binding import Binding
from textual.dom import DOMNode

# Keys a terminal multiplexer takes before chambers sees them: tmux's and screen's prefixes.
MULTIPLEXER_KEYS = {"ctrl+b": "tmux's prefix", "ctrl+a": "screen's prefix"}


@dataclass(frozen=True)
class Action:
    id: str
    key: str  # as the code binds it, before his map
    owner: str  # the screen or widget class whose bindings hold it
    description: str


def _owners() -> list[type[DOMNode]]:
    """Every class in the workstation's modules that declares bindings (screens, widgets, the app)."""
    import tui

    for info in pkgutil.walk_packages(tui.__path__, "tui."):
        if not info.name.startswith("tui.cli"):  # the command line declares no bindings
            importlib.import_module(info.name)
    seen: list[type[DOMNode]] = []
    todo: list[type[DOMNode]] = [DOMNode]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("tui.") and "BINDINGS" in vars(sub) and sub not in seen:
                seen.append(sub)
    return sorted(seen, key=lambda c: (c.__module__, c.__name__))


def actions() -> list[Action]:
    """Every bound action of the workstation that has an id, in module order."""
    found = []
    for owner in _owners():
        for binding in vars(owner)["BINDINGS"]:
            if isinstance(binding, Binding) and binding.id:
                found.append(
                    Action(binding.id, binding.key, owner.__name__, binding.tooltip or binding.description)
                )
    return found


def keys_of(action: Action, keymap: Mapping[str, str]) -> list[str]:
    return keymap.get(action.id, action.key).split(",")


def problems(keymap: Mapping[str, str]) -> list[str]:
    """What is wrong with his map, in words: unknown ids, clashes on one screen, multiplexer keys."""
    known = actions()
    ids = {a.id for a in known}
    said = []
    for action_id in keymap:
        if action_id not in ids:
            near = difflib.get_close_matches(action_id, sorted(ids), n=3)
            hint = f" Did you mean {', '.join(near)}?" if near else " `chambers config --keys` lists them."
            said.append(f"[keys] names no action '{action_id}'.{hint}")
    everywhere = [a for a in known if a.owner == "ChambersApp"]
    for owner in sorted({a.owner for a in known}):
        scope = {a.id: a for a in [*everywhere, *(a for a in known if a.owner == owner)]}.values()
        holders: dict[str, list[str]] = {}
        for action in scope:
            for key in keys_of(action, keymap):
                holders.setdefault(key, []).append(action.id)
        for key, held in holders.items():
            if len(held) > 1 and any(h in keymap for h in held):  # a clash he made, not the code's own
                clash = f"[keys] gives {key} to {' and '.join(repr(h) for h in held)}: only one of them would work."
                if clash not in said:
                    said.append(clash)
    for action_id, keys in keymap.items():
        for key in keys.split(","):
            if key in MULTIPLEXER_KEYS:
                said.append(
                    f"[keys] gives {key} to '{action_id}', but that is {MULTIPLEXER_KEYS[key]}: inside it "
                    "the key never reaches chambers."
                )
    return said
