"""Ctrl+R on the drafting screen: the kept versions of the attorney's text, one of which he may put back.

The list is newest first, each with its time, its length and its opening words, and the model's
draft at the end, so there is always a state to go back to. The highlighted version is shown
below the list; Enter puts it back in the editor as one edit (Ctrl+Z takes that back too).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from drafting.drafts.store import Version

PREVIEW_CHARS = 1200


@dataclass(frozen=True)
class Choice:
    label: str
    text: str


def choices(versions: list[Version], model_draft: str) -> list[Choice]:
    """What the dialog lists: each kept version, then the model's draft."""
    out = [Choice(f"{v.saved_at[11:19]}  {_size(v.text)}  {_opening(v.text)}", v.text) for v in versions]
    out.append(Choice(f"the model's draft  {_size(model_draft)}  {_opening(model_draft)}", model_draft))
    return out


def _size(text: str) -> str:
    words = len(text.split())
    return "empty" if not words else f"{words:,} words"


def _opening(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    cut = flat.rfind(" ", 0, width)
    return flat[: cut if cut > 0 else width] + "…"


class VersionsScreen(ModalScreen[str | None]):
    """Pick a version of the text; Enter gives its text back, Esc goes back without changing anything."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="versions.back", tooltip="Back to the draft; nothing changes"),
    ]

    def __init__(self, listed: list[Choice]) -> None:
        super().__init__()
        self.listed = listed

    def compose(self) -> ComposeResult:
        with Vertical(id="versions-box"):
            yield Static("Versions of your text (newest first)", id="versions-title")
            # Text, not markup: a draft's "[S2]" is the attorney's text, not a style tag.
            options = [Option(Text(c.label), id=str(i)) for i, c in enumerate(self.listed)]
            yield OptionList(*options, id="versions-list")
            with VerticalScroll(id="versions-preview-scroll"):
                yield Static("", id="versions-preview", markup=False)
            yield Static("Enter puts it back (Ctrl+Z undoes that) · Esc: back", id="versions-foot")

    def on_mount(self) -> None:
        self.query_one("#versions-list", OptionList).focus()
        self._preview(0)

    @on(OptionList.OptionHighlighted, "#versions-list")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._preview(event.option_index)

    def _preview(self, index: int) -> None:
        if 0 <= index < len(self.listed):
            text = self.listed[index].text
            shown = text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "…"
            self.query_one("#versions-preview", Static).update(shown or "(empty)")

    @on(OptionList.OptionSelected, "#versions-list")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.listed[event.option_index].text)

    def action_back(self) -> None:
        self.dismiss(None)
