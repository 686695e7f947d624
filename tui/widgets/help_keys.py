"""What F1 lists, in the order he needs it: the keys of the screen on show, then those of the box with
the focus (the editor's motions while he edits), then the keys that work everywhere.

Each screen's keys come from its bindings' tooltips, so the list cannot drift from the keys; a key the
screen has switched off for now (Stop while nothing runs) is still listed, as the footer leaves it out.
A screen may name itself (``HELP_TITLE``) and add keys that are no binding of its own (``HELP_KEYS``:
Enter in its prompt box). A key he has remapped is written his way in the words too ("Ctrl+T again
shows it marked" beside his ctrl+w read as if the old key still worked).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from textual.app import App
from textual.binding import Binding

Rows = list[tuple[str, str]]


def _rows(bindings: list[object], keymap: Mapping[str, str]) -> Rows:
    """Each binding's key as he has it: his ``[keys]`` map first, else the code's own."""
    return [
        (keymap.get(b.id, b.key) if b.id else b.key, b.tooltip or b.description)
        for b in bindings
        if isinstance(b, Binding)
    ]


def shown(key: str) -> str:
    """A key as the tooltips write it: ctrl+t is Ctrl+T, f7 is F7, shift+end is Shift+End."""
    return "+".join(
        p.upper() if len(p) == 1 or re.fullmatch(r"f\d+", p) else p.capitalize() for p in key.split("+")
    )


def renamed(bindings: list[object], keymap: Mapping[str, str]) -> dict[str, str]:
    """The code's key, as the words write it, to his keys, for each binding his map moves."""
    names: dict[str, str] = {}
    for b in bindings:
        his = keymap.get(b.id) if isinstance(b, Binding) and b.id else None
        if isinstance(b, Binding) and his is not None and his != b.key:
            for key in b.key.split(","):
                names[shown(key)] = " or ".join(shown(k) for k in his.split(","))
    return names


def rewritten(text: str, names: Mapping[str, str]) -> str:
    for old, new in names.items():
        text = re.sub(rf"(?<![\w+]){re.escape(old)}(?![\w+])", new, text)
    return text


def help_sections(app: App[Any]) -> list[tuple[str, Rows]]:
    screen = app.screen
    keymap: Mapping[str, str] = getattr(getattr(app, "config", None), "keys", {})
    first = screen is app.screen_stack[0]
    sections: list[tuple[str, Rows]] = []
    title = (
        getattr(screen, "HELP_TITLE", "") or screen.SUB_TITLE or type(screen).__name__.removesuffix("Screen")
    )
    own = list(getattr(screen, "HELP_KEYS", [])) + _rows(list(screen.BINDINGS), keymap)
    sections.append((f"This screen: {title}", own))
    focused = app.focused
    widget_keys = getattr(focused, "OWN_KEYS", None)
    if focused is not None and widget_keys is not None:
        sections.append(("While editing", _rows(list(focused.BINDINGS), keymap) + list(widget_keys)))
    listed = {key for _, rows in sections for key, _ in rows}  # a screen's own word for a key wins (its Esc)
    everywhere = [
        (
            key,
            "Back to the screen before (closes an open list first)"
            if key == "escape" and not first
            else text,
        )
        for key, text in _rows(list(app.BINDINGS), keymap)
        if key not in listed
    ]
    everywhere.append(("ctrl+p", "The command palette: every screen and action, found by typing its name"))
    sections.append(("Everywhere", everywhere))
    names = renamed([*screen.BINDINGS, *getattr(focused, "BINDINGS", []), *app.BINDINGS], keymap)
    return [(heading, [(key, rewritten(text, names)) for key, text in rows]) for heading, rows in sections]
