"""One chambers screen alone in an app styled and themed as chambers is, for snapshot tests.

Its snapshots do not change when another room adds a key to the workstation's footer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import App
from textual.screen import Screen

import tui
from themes import DEFAULT_THEME, THEMES


class ScreenHost(App[None]):
    TITLE = "chambers"
    CSS_PATH = str(Path(tui.__file__).parent / "chambers.tcss")

    def __init__(self, make_screen: Callable[[], Screen[None]]) -> None:
        super().__init__()
        self.make_screen = make_screen

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = DEFAULT_THEME
        self.push_screen(self.make_screen())
