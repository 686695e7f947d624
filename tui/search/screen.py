"""The search from every screen (/): one box, the hits of every room as he types, Enter opens one.

A line a hit, so a screenful fits at 80x24: its kind, a short title and the words around what
matched, cut to the width. The search runs in a thread worker a moment after the last keystroke, so
typing never waits on the database; a result that arrives after a newer search started is dropped.
The screen only chooses: it is dismissed with the hit, and the app opens it in its room.
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from tui.search.hits import Hit, search_all, terms
from tui.widgets.chambers_screen import ChambersDialog

DEBOUNCE_S = 0.25  # searched this long after the last keystroke
KIND_CELLS = 7  # "Source " : the kinds stand in a column
TITLE_CELLS = 22
MATCH_STYLE = "bold"


def hit_line(hit: Hit, words: list[str], width: int) -> Text:
    """``Source HPP-000004 Invoice  …the words around it…``, one line, cut to ``width``."""
    line = Text(no_wrap=True, overflow="ellipsis", end="")
    line.append(f"{hit.kind:<{KIND_CELLS}}", style="bold")
    title = hit.title if len(hit.title) <= TITLE_CELLS else hit.title[: TITLE_CELLS - 1] + "…"
    line.append(f"{title:<{TITLE_CELLS}} ")
    snippet = Text(hit.snippet, style="dim")
    for word in words:
        snippet.highlight_regex(re.compile(re.escape(word), re.IGNORECASE), style=MATCH_STYLE)
    line.append_text(snippet)
    line.truncate(max(width, 1), overflow="ellipsis")
    return line


class SearchScreen(ChambersDialog[Hit | None]):
    """Type to search the matter's sources, the runs, the flags and the pairs; Enter opens the hit."""

    CSS_PATH = "screen.tcss"  # its own file: chambers.tcss is shared by every screen

    BINDINGS = [
        Binding("escape", "close", "Close", id="search.close", tooltip="Close the search"),
        Binding("down", "move(1)", "Next", id="search.next", show=False, tooltip="The next hit"),
        Binding("up", "move(-1)", "Previous", id="search.previous", show=False, tooltip="The hit before"),
    ]

    def __init__(self, database_file: Path, matter: str | None) -> None:
        """``matter``: the matter on show, whose sources are searched (every matter's when None)."""
        super().__init__()
        self.database_file = database_file
        self.matter = matter
        self.hits: list[Hit] = []
        self.shown = ""  # what the hits on show were searched for
        self._due: Timer | None = None
        self._asked = 0  # the number of the latest search: an older one's answer is dropped

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box"):
            yield Input(placeholder='words or "a phrase"', id="search-query")
            yield OptionList(id="search-results")
            yield Static(self._where(), id="search-status", markup=False)

    def _where(self) -> str:
        return 'Type words or "a phrase"; up/down pick a hit, Enter opens it in its room, Esc closes.'

    def on_mount(self) -> None:
        sources = f"{self.matter}'s sources" if self.matter else "every matter's sources"
        self.query_one("#search-box").border_title = f"Search {sources}, the runs, flags and pairs"
        self.query_one("#search-query", Input).focus()

    @on(Input.Changed, "#search-query")
    def typed(self, event: Input.Changed) -> None:
        if self._due is not None:
            self._due.stop()
        self._asked += 1
        asked, text = self._asked, event.value
        self._due = self.set_timer(DEBOUNCE_S, lambda: self.search(asked, text))

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search(self, asked: int, text: str) -> None:
        hits = search_all(self.database_file, text, self.matter)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, asked, text, hits)

    def _show(self, asked: int, text: str, hits: list[Hit]) -> None:
        if asked != self._asked:
            return  # he typed on: a newer search is coming
        self.hits, self.shown = hits, text
        results = self.query_one("#search-results", OptionList)
        width = results.scrollable_content_region.width or self.app.size.width - 6
        words = terms(text)
        results.clear_options()
        results.add_options(Option(hit_line(hit, words, width)) for hit in hits)
        if hits:
            results.highlighted = 0
        found = f"{len(hits)} found: up/down pick one, Enter opens it in its room, Esc closes."
        self.set_status(found if hits else (f"Nothing found for {text.strip()}." if words else self._where()))

    def action_move(self, step: int) -> None:
        """Up and down pick a hit while the focus stays in the box, so he can type on."""
        results = self.query_one("#search-results", OptionList)
        if self.hits:
            at = results.highlighted if results.highlighted is not None else -step
            results.highlighted = max(0, min(len(self.hits) - 1, at + step))

    @on(Input.Submitted, "#search-query")
    def open_highlighted(self) -> None:
        at = self.query_one("#search-results", OptionList).highlighted
        if self.hits and at is not None:
            self.dismiss(self.hits[at])
        elif not self.hits:
            self.set_status("Nothing to open yet: type a word and wait for the hits.")

    @on(OptionList.OptionSelected, "#search-results")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.hits[event.option_index])

    def set_status(self, text: str) -> None:
        self.query_one("#search-status", Static).update(text)

    def action_close(self) -> None:
        self.dismiss(None)
