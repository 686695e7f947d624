"""A room's F-key from another room: a room already open lower in the stack is brought back, never
stacked a second time, so Esc walks back through each room once."""

from __future__ import annotations

from pathlib import Path

from tests.test_keys import remapped
from tui.app import create_app
from tui.exhibits.screen import ExhibitsScreen
from tui.fleet.dashboard import DashboardScreen


async def test_f_keys_between_two_rooms_never_stack_a_room_twice(isolated_home: Path) -> None:
    app = create_app(remapped({}), isolated_home / "chambers.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        start = len(app.screen_stack)
        for key in ("f2", "f3", "f2", "f3", "f2", "f3"):
            await pilot.press(key)
            await pilot.pause()
        kinds = [type(screen) for screen in app.screen_stack]
        assert kinds.count(DashboardScreen) == 1, kinds
        assert kinds.count(ExhibitsScreen) == 1, kinds
        assert isinstance(app.screen, ExhibitsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert len(app.screen_stack) <= start + 1
