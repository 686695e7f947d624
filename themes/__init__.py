"""Textual themes for chambers. Only this room and ``tui`` import Textual."""

from __future__ import annotations

from textual.theme import Theme

CHAMBERS_DARK = Theme(
    name="chambers-dark",
    primary="#88C0D0",
    secondary="#81A1C1",
    accent="#EBCB8B",
    foreground="#E5E9F0",
    background="#1F232B",
    surface="#2A2F3A",
    panel="#353B48",
    success="#A3BE8C",
    warning="#EBCB8B",
    error="#D57780",
    dark=True,
)

THEMES = (CHAMBERS_DARK,)
DEFAULT_THEME = CHAMBERS_DARK.name
