"""The drafting screen's flag keys: n/N jump from flag to flag, Enter opens one.

An open flag shows its evidence or the reviewer's argument; from there the attorney reads the
page it points to, or overrides a blocking flag with a written reason (recorded, then verified
again in a thread worker through the drafting session).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import OptionList

from drafting.flags import FlagView, cited_in_sentence
from drafting.runs import Run
from drafting.session import DraftingSession, Verified
from tui.drafting.dialogs import FlagScreen, ReasonScreen
from tui.drafting.flags import FlagList, MarkedDraft
from tui.drafting.view import flag_line
from tui.widgets.key_order import RoomScreen


class FlagKeys(RoomScreen):
    """Jump to, open, read and override the flags of the shown draft."""

    session: DraftingSession
    run_record: Run | None
    draft_text: str
    flags: list[FlagView]
    current: int | None
    marked: MarkedDraft

    if TYPE_CHECKING:  # given by the drafting screen

        def set_status(self, text: str) -> None: ...

        def reached(self, step: str, *, blocking: int = 0) -> None: ...

        def verified(self, result: Verified) -> None: ...

    def _jump(self, step: int) -> None:
        if not self.flags:
            self.set_status("There are no flags.")
            return
        self.current = (
            (0 if step > 0 else len(self.flags) - 1)
            if self.current is None
            else (self.current + step) % len(self.flags)
        )
        flag = self.flags[self.current]
        # The status first: a longer one takes a row from the draft pane, and the scroll must see that.
        self.set_status(f"Flag {self.current + 1}/{len(self.flags)}: {flag.label()} (Enter opens it)")
        self.query_one(FlagList).highlighted = self.current
        self.marked.current = self.current
        self.call_after_refresh(self._scroll_to_flag, flag)

    def _scroll_to_flag(self, flag: FlagView) -> None:
        """Bring the flag's line into view, as little scrolling as it takes; a line taller than the
        view, the rows of the flag itself."""
        scroll = self.query_one("#ws-draft-scroll", VerticalScroll)
        first, rows = self.marked.rows_of_line(flag_line(self.draft_text, flag))
        if rows > scroll.scrollable_content_region.height:
            first, rows = self.marked.rows_of_span(flag.start, flag.end)
        if rows:
            where = self.marked.virtual_region
            scroll.scroll_to_region(Region(where.x, where.y + first, where.width, rows), animate=False)

    def action_next_flag(self) -> None:
        self._jump(1)

    def action_previous_flag(self) -> None:
        self._jump(-1)

    @on(OptionList.OptionSelected, "#ws-flags")
    def open_flag(self, event: OptionList.OptionSelected) -> None:
        self.current = event.option_index
        self.open_current_flag()

    def open_current_flag(self) -> None:
        if self.current is None or not self.flags:
            return
        flag = self.flags[self.current]

        def reason_given(reason: str | None) -> None:
            if reason and self.run_record is not None and flag.key:
                self.override_flag(self.run_record, self.draft_text, flag.key, reason)

        def file_given(answer: str | None) -> None:
            if answer and self.run_record is not None:
                self.add_opinion(self.run_record, self.draft_text, answer)

        cited = tuple(cited_in_sentence(self.draft_text, flag.start, flag.end))

        def after(answer: str | None) -> None:
            if answer == "read" and self.run_record is not None and flag.evidence:
                pointer = flag.evidence[0]
                self.read_evidence(self.run_record.matter, pointer.file, pointer.page, flag.text)
            elif answer == "read" and self.run_record is not None and cited:
                self.read_cited(self.run_record.matter, cited[0], flag.text)
            if answer == "override":
                self.app.push_screen(
                    ReasonScreen(f"Why may {flag.text!r} stand? ({flag.message})"), reason_given
                )
            if answer == "add":
                self.app.push_screen(
                    ReasonScreen(
                        f"The opinion's file for {flag.text!r} (a PDF or text; a --cite may follow):"
                    ),
                    file_given,
                )

        matter = self.run_record.matter if self.run_record is not None else None
        self.app.push_screen(FlagScreen(flag, self.session.database_file, matter, cited=cited), after)
        self.reached("flag-opened")

    @work(thread=True, exclusive=True, group="read", exit_on_error=False)
    def read_evidence(self, matter: str, file_name: str, page_no: int, words: str) -> None:
        from evidence.pages import find_page
        from tui.widgets.evidence_views import ReadingScreen, page_body, page_heading, page_subtitle

        view = find_page(self.session.database_file, matter, file_name, page_no)
        if view is None:
            self.app.call_from_thread(
                self.set_status, f"{file_name}, page {page_no} is no longer in the index."
            )
            return
        screen = ReadingScreen(page_heading(view, view.path), page_subtitle(view), page_body(view, words))
        self.app.call_from_thread(self.app.push_screen, screen)

    @work(thread=True, exclusive=True, group="read", exit_on_error=False)
    def read_cited(self, matter: str, bates: str, words: str) -> None:
        """The page the flagged sentence cites, for a flag that has no evidence of its own: he sees
        that page does not say what the sentence claims."""
        from evidence.pages import find_bates_page
        from tui.widgets.evidence_views import ReadingScreen, page_body, page_heading, page_subtitle

        view = find_bates_page(self.session.database_file, matter, bates)
        if view is None:
            self.app.call_from_thread(
                self.set_status,
                f"No page of matter '{matter}' is stamped {bates}: the sentence cites a page that is not there.",
            )
            return
        screen = ReadingScreen(page_heading(view, view.path), page_subtitle(view), page_body(view, words))
        self.app.call_from_thread(self.app.push_screen, screen)

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def add_opinion(self, run: Run, text: str, answer: str) -> None:
        """Add the file named (only it is ingested) to the matter's library, then verify the text again."""
        import shlex

        from drafting.verify import default_library
        from drafting.verify.library import add_opinion_file

        path, _, cite = answer.partition(" --cite ")
        database_file = self.session.database_file
        library = default_library(database_file, run.matter) or f"{run.matter}-authorities"
        cites = [c.strip().strip('"') for c in cite.split(" --cite ")] if cite else []
        added = add_opinion_file(database_file, library, Path(shlex.split(path)[0]), cites, [])
        self.session.forget_indexes()  # the library changed: read it again
        self.app.call_from_thread(self.set_status, added.notes[-1])
        self.app.call_from_thread(self.verified, self.session.reverify(run, text))

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def override_flag(self, run: Run, text: str, key: str, reason: str) -> None:
        self.app.call_from_thread(self.verified, self.session.override(run, text, key, reason))
