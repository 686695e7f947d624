"""The command palette provider of the drafting screen: every action of its keys, by name.

Built from the screen's own ``BINDINGS`` (each has a description and a tooltip), so a new key is
in the palette without another list to keep in step.
"""

from __future__ import annotations

from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider


class DraftingCommands(Provider):
    def _actions(self) -> list[tuple[str, str, str]]:
        screen = self.screen
        out = []
        for b in getattr(screen, "BINDINGS", []):
            if isinstance(b, Binding):
                out.append((f"Drafting: {b.description} ({b.key})", b.tooltip or b.description, b.action))
        return out

    async def discover(self) -> Hits:
        for title, help_text, action in self._actions():
            yield DiscoveryHit(title, partial(self.screen.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in self._actions():
            score = max(matcher.match(title), matcher.match(help_text) * 0.8)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self.screen.run_action, action), help=help_text
                )
