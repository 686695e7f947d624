"""Footers that keep the keys that matter first, and fit at 80 columns.

Textual's footer shows the active bindings in the order it finds them and cuts what does not fit,
so at 80 columns the F-keys a screen is about dropped off the end. Each room's screen lists the
actions it wants first (``FOOTER_FIRST``); then come F1 Help and Esc Back, then the screen's other
keys, then the app's room keys, and Quit last. Below ``COMPACT_BELOW`` columns the footer drops
its padding between keys and leaves the palette's key to F1.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import App
from textual.binding import ActiveBinding
from textual.screen import Screen
from textual.widgets import Footer

COMPACT_BELOW = 120
ALWAYS = ("help", "cancel_stream")  # F1 Help and Esc Back, right after the screen's first keys


def ordered(
    bindings: dict[str, ActiveBinding], first: tuple[str, ...], app: App[object] | None
) -> dict[str, ActiveBinding]:
    """``bindings`` in footer order (a stable sort: within a rank, the order Textual found them)."""

    def rank(item: tuple[str, ActiveBinding]) -> int:
        active = item[1]
        action = active.binding.action
        if action in first:
            return first.index(action)
        if action in ALWAYS:
            return len(first) + ALWAYS.index(action)
        if action == "quit":
            return len(first) + 4
        return len(first) + (3 if active.node is app else 2)

    return dict(sorted(bindings.items(), key=rank))


class RoomScreen(Screen[None]):
    """A screen whose footer puts ``FOOTER_FIRST`` first and turns compact on a narrow terminal."""

    FOOTER_FIRST: ClassVar[tuple[str, ...]] = ()

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return ordered(super().active_bindings, self.FOOTER_FIRST, self.app)

    @on(events.Resize)
    def compact_footer(self, event: events.Resize) -> None:
        for footer in self.query(Footer):
            footer.compact = event.size.width < COMPACT_BELOW
            # At 80 columns the palette's key gives its room to the screen's own; F1 lists it.
            footer.show_command_palette = event.size.width >= COMPACT_BELOW
