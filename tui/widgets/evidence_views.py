"""What the evidence screen shows, as Rich text: a search hit, a document, a whole page; and the reading modal.

Kept apart from the screen so the screen holds only the wiring (workers, keys,
status), and so these stay plain functions of the evidence room's records.
"""

from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from evidence.pages import DocumentEntry, PageView
from evidence.search import HIGHLIGHT, SearchHit
from tui.widgets.key_text import KeyText

MATCH_STYLE = "bold reverse"  # the matched words, as the CLI shows them


def hit_text(hit: SearchHit) -> Text:
    """Two lines: where the page is (Bates, or the page number), the document and its date; the snippet."""
    text = Text(no_wrap=False)
    text.append(hit.bates or f"p.{hit.page_no}", style="bold")
    text.append(f"  {hit.title}")
    if hit.part and hit.title not in hit.part:
        text.append(f" ({hit.part})", style="dim")
    if hit.doc_date:
        text.append(f"  {hit.doc_date}", style="dim")
    text.append("\n")
    # The markers alternate open/close; splitting on both leaves the matched words at the odd indexes.
    for index, piece in enumerate(hit.snippet.replace(HIGHLIGHT[1], HIGHLIGHT[0]).split(HIGHLIGHT[0])):
        text.append(piece, style=MATCH_STYLE if index % 2 else "")
    return text


def document_text(entry: DocumentEntry) -> Text:
    """The file's name and what it holds; a quarantined file with the reason it was kept out."""
    name = entry.path.rsplit("/", 1)[-1] + (f" ({entry.part})" if entry.part else "")
    if entry.quarantined:
        text = Text(name, style="strike")
        text.append(f"\nQUARANTINED: {entry.quarantined}", style="bold red")
        return text
    text = Text(name)
    details = [f"{entry.pages} page{'s' if entry.pages != 1 else ''}"]
    if entry.first_bates:
        same = entry.first_bates == entry.last_bates
        details.append(entry.first_bates if same else f"{entry.first_bates}..{entry.last_bates}")
    if entry.doc_date:
        details.append(entry.doc_date)
    text.append("\n" + ", ".join(details), style="dim")
    return text


def page_heading(view: PageView, shown_path: str) -> str:
    """Bates first: it is what a draft cites. A page without one is said to have none."""
    part = f" ({view.part})" if view.part else ""
    return f"{view.bates or 'No Bates number'}  {shown_path}{part}, page {view.page_no} of {view.page_count}"


def page_subtitle(view: PageView) -> str:
    read = ", read by OCR from a scan" if view.ocr else ""
    return view.title + (f", {view.doc_date}" if view.doc_date else "") + read


def page_body(view: PageView, words: str) -> Text:
    """The page as indexed, with the searched words marked (as a prefix: FTS5 matches word stems)."""
    text = Text(view.text.rstrip() or "(this page has no text)")
    for word in {w.lower() for w in re.findall(r"\w+", words)}:
        text.highlight_regex(re.compile(rf"\b{re.escape(word)}\w*", re.IGNORECASE), style=MATCH_STYLE)
    return text


class ReadingScreen(ModalScreen[int | None]):
    """One page, or the provenance audit, to read whole; up/down/PgUp/PgDn scroll, Esc closes.

    A page found by a search can step to the next or previous one found (n/p): it closes with the
    step, and the evidence screen opens that page, so reading through the hits needs no trip back.
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="evidence.reading.close", tooltip="Back to the results"),
        Binding("q", "close", "Close", id="evidence.reading.close_q", show=False),
        Binding("n,right", "step(1)", "Next", id="evidence.reading.next", tooltip="The next page found"),
        Binding(
            "p,left",
            "step(-1)",
            "Previous",
            id="evidence.reading.previous",
            tooltip="The previous page found",
        ),
    ]

    def __init__(self, title: str, subtitle: str, body: Text | str, *, steps: bool = False) -> None:
        super().__init__()
        self.heading, self.subtitle, self.body, self.steps = title, subtitle, body, steps

    def compose(self) -> ComposeResult:
        with Vertical(id="reading-box"):
            yield Static(self.heading, id="reading-title", markup=False)
            yield Static(self.subtitle, id="reading-subtitle", markup=False)
            with VerticalScroll(id="reading-scroll"):
                yield Static(self.body, id="reading-body", markup=False)
            steps = "n/p the next or previous page found, " if self.steps else ""
            yield KeyText(f"Up/down scroll, {steps}Esc closes.", id="reading-foot")

    def on_mount(self) -> None:
        self.query_one("#reading-scroll").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.steps or action != "step"

    def action_step(self, step: int) -> None:
        self.dismiss(step)

    def action_close(self) -> None:
        self.dismiss(None)
