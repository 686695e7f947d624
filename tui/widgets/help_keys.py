"""What F1 lists, in the order he needs it: the keys of the screen on show, then those of the box with
the focus (the editor's motions while he edits), then the keys that work everywhere.

Each screen's keys come from its bindings' tooltips, so the list cannot drift from the keys; a key the
screen has switched off for now (Stop while nothing runs) is still listed, as the footer leaves it out.
A screen may name itself (``HELP_TITLE``) and add keys that are no binding of its own (``HELP_KEYS``:
Enter in its prompt box).
"""

from __future__ import annotations

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
    return sections
