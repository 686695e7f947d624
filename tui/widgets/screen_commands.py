"""The command palette's way to the workstation's screens, for whoever forgets which F-key opens which.

Each entry runs the same app action as its key, and its help names the key (read from the app's
own ``BINDINGS``), so the palette and the footer cannot disagree.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

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


class ActionCommands(Provider):
    """Every key, by name: the keys of the screen on show ("Exhibits: Stamp (ctrl+s)"), then the app's own.

    Built from the ``BINDINGS`` themselves (each has a description and a tooltip), so a new key is in
    the palette without another list to keep in step. The screens' F-keys are left to ScreenCommands.
    """

    def _actions(self) -> list[tuple[str, str, Callable[[], Awaitable[Any]]]]:
        screen, app = self.screen, self.app
        # The first screen's keys go by the app's name: it is where chambers opens.
        first = screen is app.screen_stack[0]
        where = "chambers" if first else screen.SUB_TITLE or type(screen).__name__.removesuffix("Screen")
        # The F-key screens are ScreenCommands'; quit, settings and search are system commands already.
        skip = {action for action, _ in SCREENS} | {"quit", "settings", "search"}
        out: list[tuple[str, str, Callable[[], Awaitable[Any]]]] = []
        for owner, prefix in ((screen, where), (app, "chambers")):
            for b in getattr(owner, "BINDINGS", []):
                if isinstance(b, Binding) and b.description and b.action not in skip:
                    run = partial(owner.run_action, b.action)
                    out.append((f"{prefix}: {b.description} ({b.key})", b.tooltip or b.description, run))
        return out

    async def discover(self) -> Hits:
        for title, help_text, run in self._actions():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self._actions():
            score = max(matcher.match(title), matcher.match(help_text) * 0.8)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)


class RoomActionCommands(Provider):
    """The keys of every other room, from wherever the palette is opened: "Corrections: Train (t)"
    opens the corrections screen and runs its train action, so "train" or "adapter" finds it from
    the drafting screen too. The room on show is ActionCommands' (its keys run in place)."""

    def _actions(self) -> list[tuple[str, str, Callable[[], Awaitable[Any]]]]:
        out: list[tuple[str, str, Callable[[], Awaitable[Any]]]] = []
        rooms = dict(SCREENS)
        # The app knows its rooms' screens (this module sits below them and may not import them).
        rooms_of = getattr(self.app, "room_screens", None)
        for room, screen_class in (rooms_of() if rooms_of is not None else {}).items():
            if isinstance(self.screen, screen_class):
                continue
            name = rooms[room].split(":", 1)[0]
            for b in getattr(screen_class, "BINDINGS", []):
                if isinstance(b, Binding) and b.description and b.show is not False:
                    run = partial(self._run_in_room, room, screen_class, b.action)
                    out.append((f"{name}: {b.description} ({b.key})", b.tooltip or b.description, run))
        return out

    async def _run_in_room(self, room: str, screen_class: type, action: str) -> None:
        await self.app.run_action(room)

        async def then() -> None:
            if isinstance(self.app.screen, screen_class):
                await self.app.screen.run_action(action)

        self.app.call_after_refresh(then)

    async def discover(self) -> Hits:
        for title, help_text, run in self._actions():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self._actions():
            score = max(matcher.match(title), matcher.match(help_text) * 0.8)
            if score > 0:
                yield Hit(score * 0.9, matcher.highlight(title), run, help=help_text)
