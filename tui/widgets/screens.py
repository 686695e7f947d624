"""Modal screens: the one error modal, and the help screen."""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.widgets.key_text import KeyText
from workspace.errors import ChambersError


class ErrorScreen(ModalScreen[None]):
    """Shows a ChambersError (or any error) in plain words. Enter or Esc closes it."""

    BINDINGS = [
        Binding("escape", "dismiss_error", "Close", id="error.close"),
        Binding("enter", "dismiss_error", "Close", id="error.close_enter", show=False),
    ]

    def __init__(self, title: str, message: str) -> None:
        super().__init__()
        self.error_title = title
        self.error_message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Static(self.error_title, id="error-title", markup=False)
            with VerticalScroll(id="error-scroll"):
                yield Static(self.error_message, id="error-message", markup=False)
            yield Button("Close (Esc)", id="error-close", variant="error")

    def on_mount(self) -> None:
        self.query_one("#error-close", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss()

    def action_dismiss_error(self) -> None:
        self.dismiss()


class HelpScreen(ModalScreen[None]):
    """The keys, in sections: this screen's first, then the focused box's, then those that work everywhere.

    It scrolls (up/down, page up/down) when the list is longer than the terminal.
    """

    BINDINGS = [
        Binding("escape", "close", "Back", id="help.close"),
        Binding("f1", "close", "Close", id="help.close_f1", show=False),
        Binding("q", "close", "Close", id="help.close_q", show=False),
    ]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.sections = sections

    @property
    def rows(self) -> list[tuple[str, str]]:
        return [row for _, rows in self.sections for row in rows]

    def compose(self) -> ComposeResult:
        width = min(18, max((len(k) for k, _ in self.rows), default=4))
        # The box is at most 100 columns and 95% of the terminal; less its border, padding and scrollbar.
        room = max(20, min(100, int(self.app.size.width * 0.95)) - 6 - width - 2)
        text = Text()
        for number, (heading, rows) in enumerate(self.sections):
            if number:
                text.append("\n")
            text.append(heading + "\n", style="bold underline")
            for key, description in rows:
                # Wrapped under the description, not under the key, so the keys stay a column.
                lines = textwrap.wrap(description, room) or [""]
                text.append(f"{key:<{width}}", style="bold")
                text.append(f"  {lines[0]}\n")
                for line in lines[1:]:
                    text.append(f"{'':<{width}}  {line}\n")
        text.rstrip()
        with Vertical(id="help-box"):
            yield Static("Keys (up/down scroll)", id="help-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(text, id="help-keys")
            yield KeyText("Esc or F1 closes this help.", id="help-foot")

    def on_mount(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss()


def error_title(error: BaseException | None) -> str:
    """The error modal's title for ``error``: a ChambersError's own, anything else "Unexpected error"."""
    return error.title if isinstance(error, ChambersError) else "Unexpected error"


def error_screen(error: BaseException | None) -> ErrorScreen:
    """The one error modal for a failed worker: a ChambersError in its own words, anything else by name."""
    if isinstance(error, ChambersError):
        return ErrorScreen(error.title, error.message)
    return ErrorScreen(error_title(error), f"{type(error).__name__}: {error}")


def stopped_line(error: BaseException | None) -> str:
    """The status line under an error modal, so the screen still says why once the modal is closed."""
    return (
        f"Stopped: {error.title}." if isinstance(error, ChambersError) else "Stopped by an unexpected error."
    )
