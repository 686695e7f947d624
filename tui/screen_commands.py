"""The command palette's way to the workstation's screens, for whoever forgets which F-key opens which.

Each entry runs the same app action as its key, and its help names the key (read from the app's
own ``BINDINGS``), so the palette and the footer cannot disagree.
"""

from __future__ import annotations

from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

SCREENS = [  # (app action, what the palette says)
    ("evidence", "Evidence: search the matter"),
    ("exhibits", "Exhibits: Bates productions and binders"),
    ("drafting", "Drafting: a task through the pipeline"),
    ("corrections", "Corrections: your edits as training pairs"),
    ("dashboard", "Fleet: the dashboard of boards and servers"),
]


class ScreenCommands(Provider):
    def _commands(self) -> list[tuple[str, str, str]]:
        keys = {b.action: b for b in getattr(self.app, "BINDINGS", []) if isinstance(b, Binding)}
        out = []
        for action, title in SCREENS:
            if binding := keys.get(action):
                out.append(
                    (title, f"{binding.tooltip or binding.description} ({binding.key.upper()})", action)
                )
        return out

    async def discover(self) -> Hits:
        for title, help_text, action in self._commands():
            yield DiscoveryHit(title, partial(self.app.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in self._commands():
            score = max(matcher.match(title), matcher.match(help_text) * 0.8)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self.app.run_action, action), help=help_text
                )
