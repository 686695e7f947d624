"""The evidence screen (F12): search a matter's pages, read a page whole, see what was kept out.

One input line takes words, "quoted phrases" and filters (``doc:``, ``from:``,
``to:``, ``bates:``; see evidence/query.py), because at 80 columns there is no
room for four more boxes. A mistyped search is not an error worth a modal: the
evidence room's message goes in the status line and the attorney types again.
The document list shows quarantined files with their reason, so what the models
may be given, and what was refused, is in plain view.
Database work runs in thread workers; widgets only show what they are handed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Header, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from evidence.errors import EvidenceError
from evidence.matters import Matter
from evidence.pages import DocumentEntry, shown_path
from evidence.search import SearchHit
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.evidence_views import (
    ReadingScreen,
    document_text,
    hit_text,
    page_body,
    page_heading,
    page_subtitle,
)
from tui.widgets.key_text import KeyText

NO_MATTERS = (
    "No matters yet: create one with `chambers matter new NAME --sources DIR`, then "
    "`chambers evidence ingest NAME` (`chambers demo` sets up the sample matter)."
)
SEARCH_LIMIT = 50


class EvidenceScreen(ChambersScreen):
    """Full-text search over a matter's primary sources, with its documents and its provenance audit."""

    SUB_TITLE = "Evidence"

    BINDINGS = [
        Binding("escape", "close", "Back", id="evidence.close", tooltip="Back to the workstation"),
        Binding(
            "ctrl+f",
            "focus_search",
            "Search",
            id="evidence.search",
            priority=True,
            tooltip='Go to the search box: words, "phrases", doc:NAME from:YYYY-MM-DD to:YYYY-MM-DD '
            "bates:HPP-000001..HPP-000010; Enter searches",
        ),
        Binding(
            "ctrl+t",
            "audit",
            "Audit",
            id="evidence.audit",
            priority=True,
            tooltip="The provenance audit: share of primary text, quarantined files, unread pages",
        ),
        Binding(
            "ctrl+g",
            "ingest",
            "Ingest",
            id="evidence.ingest",
            priority=True,
            tooltip="Bring the matter's index up to date (reads only new and changed files)",
        ),
    ]

    def __init__(self, database_file: Path) -> None:
        super().__init__()
        self.database_file = database_file
        self.matters: dict[str, Matter] = {}
        self.hits: list[SearchHit] = []
        self.documents: list[DocumentEntry] = []
        self.words = ""  # the words of the last search, marked on the page that is opened
        self.wanted_matter: str | None = None  # chosen when the matters are listed (a page found elsewhere)

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="evidence-controls"):
            yield Select[str]([], prompt="Matter", id="evidence-matter", allow_blank=True)
            yield Input(
                placeholder='words "a phrase" doc:NAME from:DATE to:DATE bates:A..B', id="evidence-query"
            )
        with Horizontal(id="evidence-body"):
            yield OptionList(id="evidence-results")
            yield OptionList(id="evidence-documents")
        yield KeyText("Reading the matters ...", id="evidence-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#evidence-results").border_title = "Pages found (Enter reads one)"
        self.query_one("#evidence-documents").border_title = "Documents"
        self.query_one("#evidence-query", Input).focus()
        self.load_matters()

    # --- matters and documents ------------------------------------------------------

    @work(thread=True, exclusive=True, group="evidence-load", exit_on_error=False)
    def load_matters(self) -> None:
        from evidence.matters import list_matters

        if not self.database_file.exists():  # opening would create an empty one: say what to do instead
            self.app.call_from_thread(self._show_matters, [])
            return
        matters = list_matters(self.database_file)
        self.app.call_from_thread(self._show_matters, matters)

    def _show_matters(self, matters: list[Matter]) -> None:
        self.matters = {m.name: m for m in matters}
        select = self.query_one("#evidence-matter", Select)
        select.set_options((m.name, m.name) for m in matters)
        if matters:
            select.value = self.wanted_matter if self.wanted_matter in self.matters else matters[0].name
        else:
            self.set_status(NO_MATTERS)

    def matter(self) -> Matter | None:
        value = self.query_one("#evidence-matter", Select).value
        return self.matters.get(value) if isinstance(value, str) else None

    @on(Select.Changed, "#evidence-matter")
    def matter_changed(self, event: Select.Changed) -> None:
        self._show_hits([], "")
        if isinstance(event.value, str):
            self.load_documents(event.value)

    @work(thread=True, exclusive=True, group="evidence-load", exit_on_error=False)
    def load_documents(self, matter: str, said: str = "") -> None:
        from evidence.pages import matter_documents

        documents = matter_documents(self.database_file, matter)
        self.app.call_from_thread(self._show_documents, matter, documents, said)

    def _show_documents(self, matter: str, documents: list[DocumentEntry], said: str = "") -> None:
        """The list, and a status line saying what the matter holds (or ``said``: what an ingest did)."""
        self.documents = documents
        listing = self.query_one("#evidence-documents", OptionList)
        listing.clear_options()
        listing.add_options(_with_dividers(Option(document_text(d)) for d in documents))
        indexed = [d for d in documents if not d.quarantined]
        kept_out = len(documents) - len(indexed)
        listing.border_title = f"Documents ({len(indexed)})"
        if said:
            self.set_status(said)
        elif indexed:
            pages = sum(d.pages for d in indexed)
            self.set_status(
                f"{matter}: {len(indexed)} documents, {pages} pages indexed"
                + (f", {kept_out} quarantined" if kept_out else "")
                + ". Type words and press Enter."
            )
        else:
            self.set_status(f"{matter} has nothing indexed yet: Ctrl+G ingests its folders.")

    @on(OptionList.OptionSelected, "#evidence-documents")
    def document_chosen(self, event: OptionList.OptionSelected) -> None:
        """Enter on a document narrows the search to it (a doc: filter in the search box)."""
        entry = self.documents[event.option_index]
        name = entry.path.rsplit("/", 1)[-1]
        if entry.quarantined:
            self.set_status(f"{name} was quarantined ({entry.quarantined}); it is not searchable.")
            return
        from evidence.query import without_filter

        box = self.query_one("#evidence-query", Input)
        words = without_filter(box.value, "doc")
        box.value = f'{words} doc:"{name}"'.strip()
        box.focus()
        if words:
            self.run_search()
        else:
            self.set_status(f"Searches now look only in {name}: type words and press Enter.")

    # --- search ---------------------------------------------------------------------

    @on(Input.Submitted, "#evidence-query")
    def submitted(self) -> None:
        self.run_search()

    def run_search(self) -> None:
        matter = self.matter()
        if matter is None:
            self.set_status(NO_MATTERS if not self.matters else "Pick a matter first.")
            return
        self.set_status("Searching ...")
        self.search(matter.name, self.query_one("#evidence-query", Input).value)

    @work(thread=True, exclusive=True, group="evidence-search", exit_on_error=False)
    def search(self, matter: str, text: str) -> None:
        from evidence.query import parse_query
        from evidence.search import search

        try:
            words, filters = parse_query(text)
            hits = search(self.database_file, matter, words, filters=filters, limit=SEARCH_LIMIT)
        except EvidenceError as exc:  # a mistyped search: said in the status line, typed again
            self.app.call_from_thread(self._show_search_problem, exc.message)
            return
        self.app.call_from_thread(self._show_hits, hits, text.strip(), words)

    def _show_search_problem(self, message: str) -> None:
        self.set_status(message)

    def _show_hits(self, hits: list[SearchHit], query: str, words: str = "") -> None:
        self.hits, self.words = hits, words
        results = self.query_one("#evidence-results", OptionList)
        results.clear_options()
        results.add_options(_with_dividers(Option(hit_text(hit)) for hit in hits))
        results.border_title = f"Pages found: {len(hits)} (Enter reads one)" if query else "Pages found"
        if not query:
            return
        if not hits:
            self.set_status(f"No pages match {query}.")
            return
        more = f" (the best {SEARCH_LIMIT})" if len(hits) == SEARCH_LIMIT else ""
        self.set_status(f"{len(hits)} pages match {query}{more}, best first. Enter reads a page.")
        results.highlighted = 0
        results.focus()

    @on(OptionList.OptionSelected, "#evidence-results")
    def hit_chosen(self, event: OptionList.OptionSelected) -> None:
        matter = self.matter()
        self.open_page(event.option_index, matter.sources if matter else ())

    def open_page(self, index: int, sources: tuple[Path, ...]) -> None:
        found = f"  (found {index + 1} of {len(self.hits)})"
        self.read_page(
            self.hits[index].page_id, self.words, found, partial(self._stepped, index, sources), sources
        )

    @work(thread=True, exclusive=True, group="evidence-page", exit_on_error=False)
    def read_page(
        self,
        page_id: int,
        words: str,
        found: str,
        then: Callable[[int | None], None],
        sources: tuple[Path, ...],
        steps: bool = True,
    ) -> None:
        from evidence.pages import read_page

        view = read_page(self.database_file, page_id)
        screen = ReadingScreen(
            page_heading(view, shown_path(view.path, sources)),
            page_subtitle(view) + found,
            page_body(view, words),
            steps=steps,
        )
        self.app.call_from_thread(self.app.push_screen, screen, then)

    def _stepped(self, index: int, sources: tuple[Path, ...], step: int | None) -> None:
        """The reading modal closed; with n/p, on to the next or previous page found."""
        if not step:
            return
        target = index + step
        results = self.query_one("#evidence-results", OptionList)
        if 0 <= target < len(self.hits):
            results.highlighted = target
            self.open_page(target, sources)
        else:
            results.highlighted = index
            self.set_status("That was the last page found." if step > 0 else "That was the first page found.")

    def read_found(self, matter: str, words: str, page_id: int) -> None:
        """A page the search from every screen (/) found, read over this screen, with its matter chosen and
        its words in the box: Enter there lists every page they find."""
        self.wanted_matter = matter
        if matter in self.matters:
            self.query_one("#evidence-matter", Select).value = matter
        self.query_one("#evidence-query", Input).value = words
        sources = self.matters[matter].sources if matter in self.matters else ()
        self.read_page(page_id, words, "", lambda _step: None, sources, steps=False)

    # --- audit and ingest ------------------------------------------------------------

    def action_audit(self) -> None:
        if (matter := self.matter()) is None:
            self.set_status(NO_MATTERS if not self.matters else "Pick a matter first.")
            return
        self.set_status(f"Auditing {matter.name} ...")
        self.audit(matter.name)

    @work(thread=True, exclusive=True, group="evidence-audit", exit_on_error=False)
    def audit(self, matter: str) -> None:
        from evidence.report import audit_matter
        from tui.evidence.audit_text import audit_text

        report = audit_matter(self.database_file, matter)
        share = f"{report.primary_share:.1%} of the indexed text is primary"
        screen = ReadingScreen(f"Provenance audit: {matter}", share, Text(audit_text(report)))
        self.app.call_from_thread(self.app.push_screen, screen)
        self.app.call_from_thread(self.set_status, f"Audit of {matter}: {share}.")

    def action_ingest(self) -> None:
        if (matter := self.matter()) is None:
            self.set_status(NO_MATTERS if not self.matters else "Pick a matter first.")
            return
        self.set_status(f"Ingesting {matter.name} ...")
        self.ingest(matter)

    @work(thread=True, exclusive=True, group="evidence-ingest", exit_on_error=False)
    def ingest(self, matter: Matter) -> None:
        from evidence.ingest import IngestEvent, ingest_matter

        def progress(event: IngestEvent) -> None:
            if event.stage in ("file", "pages"):
                where = shown_path(event.path, matter.sources)
                pages = f" {event.pages_done}/{event.pages_total} pages" if event.stage == "pages" else ""
                self.app.call_from_thread(self.set_status, f"Ingesting {matter.name}: reading {where}{pages}")

        # The data folder holds chambers' own outputs: anything found there is quarantined, as in the CLI.
        report = ingest_matter(
            self.database_file, matter.name, progress=progress, output_roots=[self.database_file.parent]
        )
        done = (
            f"Ingested {matter.name}: {len(report.ingested)} file(s) read ({report.pages} pages), "
            f"{report.unchanged} unchanged, {len(report.removed)} removed, {len(report.quarantined)} quarantined."
        )
        self.app.call_from_thread(self.load_documents, matter.name, done)

    # --- everything else ---------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.query_one("#evidence-query", Input).focus()

    def set_status(self, text: str) -> None:
        self.query_one("#evidence-status", Static).update(text)

    def action_close(self) -> None:
        self.dismiss()


def _with_dividers(options: Iterable[Option]) -> list[Option | None]:
    """A rule under each entry (None makes one): two-line entries run together without it."""
    return [item for option in options for item in (option, None)]
