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

CHAMBERS_LIGHT = Theme(
    name="chambers-light",
    primary="#1F5F8B",
    secondary="#3B6E8F",
    accent="#8A5A00",
    foreground="#1B1F24",
    background="#F7F5F0",
    surface="#ECE9E1",
    panel="#DDD8CC",
    success="#2E6B2E",
    warning="#8A5A00",
    error="#A4262C",
    dark=False,
)

# For a bright room, a tired eye or a poor SSH terminal: pure black and white, saturated signals.
CHAMBERS_HIGH_CONTRAST = Theme(
    name="chambers-high-contrast",
    primary="#FFFF00",
    secondary="#00FFFF",
    accent="#FF00FF",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    success="#00FF00",
    warning="#FFFF00",
    error="#FF3030",
    dark=True,
    text_alpha=1.0,
)

THEMES = (CHAMBERS_DARK, CHAMBERS_LIGHT, CHAMBERS_HIGH_CONTRAST)
DEFAULT_THEME = CHAMBERS_DARK.name
