"""A line of words that names keys, written with his keys: a status line or a dialog's foot says
"Ctrl+X stops it", and once his ``[keys]`` map has moved that action, the line names the key he set
(the same renaming F1 uses), so no message tells him to press a key that no longer does it."""

from __future__ import annotations

from collections.abc import Mapping

from textual.visual import VisualType
from textual.widgets import Static

from tui.widgets.help_keys import renamed, rewritten


class KeyText(Static):
    """A ``Static`` whose plain-text content names the keys as he has bound them."""

    def on_mount(self) -> None:
        if isinstance(self.content, str):
            super().update(self.his_way(self.content))

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        if isinstance(content, str) and self.is_mounted:
            content = self.his_way(content)
        super().update(content, layout=layout)

    def his_way(self, text: str) -> str:
        keymap: Mapping[str, str] = getattr(getattr(self.app, "config", None), "keys", {})
        if not keymap:
            return text
        bindings: list[object] = list(self.app.BINDINGS)
        for screen in self.app.screen_stack:  # a dialog's line may name the keys of the screen under it
            bindings.extend(screen.BINDINGS)
        return rewritten(text, renamed(bindings, keymap))
