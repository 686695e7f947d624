"""The flag pane: the flags of the shown draft, listed, jumped to (n/N), opened, and overridden.

It owns the flags and which one is jumped to; the marked draft in the draft pane shows the same
flags (the screen feeds it) and follows each jump (``Jumped``). An open flag shows its evidence or
the reviewer's argument; from there the attorney reads the page it points to, adds the opinion it
cites to the matter's library, or overrides a blocking flag with a written reason (recorded). Each
of those verifies his text again in a thread worker through the drafting session, as the screen
asks when he pauses (``verify``); every verification is posted (``Verified``), and the pane lists
its flags when it is of the text he has now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList

from drafting.flags import FlagView, cited_in_sentence
from drafting.runs import Run
from drafting.session import DraftingSession
from drafting.session import Verified as Reverified
from tui.drafting.dialogs import FlagScreen, ReasonScreen
from tui.drafting.flags import FlagList
from tui.drafting.parts import DraftingPart

if TYPE_CHECKING:
    from evidence.store import PageView
    from tui.widgets.evidence_views import ReadingScreen


class FlagPane(DraftingPart):
    """The flag list beside the draft, and what the flag keys do."""

    DEFAULT_CSS = "FlagPane { layout: vertical; width: 1fr; height: 1fr; min-width: 24; }"

    @dataclass
    class Jumped(Message):
        """Flag ``index`` of the list (``flag``) is the one jumped to: the draft shows it."""

        index: int
        flag: FlagView

    @dataclass
    class Verified(Message):
        """His text was verified again (``result.text`` is what was verified: he may have typed on, and
        then the flags listed stay those of the text before)."""

        result: Reverified

    flags: reactive[list[FlagView]] = reactive(list, always_update=True)

    def __init__(
        self, session: DraftingSession, text_now: Callable[[], str], *, id: str | None = None
    ) -> None:
        """``text_now`` is his text as it stands now, which an override or an added opinion verifies."""
        super().__init__(id=id)
        self.session = session
        self.text_now = text_now
        self.run: Run | None = None  # the run whose flags are listed
        self.text = ""  # the text they were found in
        self.current: int | None = None

    def compose(self) -> ComposeResult:
        yield FlagList(id="ws-flags").data_bind(FlagPane.flags)

    def on_mount(self) -> None:
        self.query_one(FlagList).border_title = "Flags"

    def show(self, run: Run | None, flags: list[FlagView], text: str) -> None:
        """List ``flags`` of ``run``, found in ``text``; none is jumped to."""
        self.run, self.current, self.text = run, None, text
        self.flags = flags

    def blocking(self) -> list[FlagView]:
        return [f for f in self.flags if f.blocking]

    def jump(self, step: int) -> None:
        """n (``step`` 1) or N (-1): the next or previous flag, round the list."""
        if not self.flags:
            self.say("There are no flags.")
            return
        self.jump_to(
            (0 if step > 0 else len(self.flags) - 1)
            if self.current is None
            else (self.current + step) % len(self.flags)
        )

    def jump_to(self, index: int) -> None:
        """Flag ``index`` of the list is the one jumped to (a search found it, or n and N lead there)."""
        if not 0 <= index < len(self.flags):
            return
        self.current = index
        flag = self.flags[index]
        # The status first: a longer one takes a row from the draft pane, and the scroll must see that.
        self.say(f"Flag {self.current + 1}/{len(self.flags)}: {flag.label()} (Enter opens it)")
        self.query_one(FlagList).highlighted = self.current
        self.post_message(self.Jumped(self.current, flag))

    @on(OptionList.OptionSelected, "#ws-flags")
    def open_flag(self, event: OptionList.OptionSelected) -> None:
        self.current = event.option_index
        self.open_current_flag()

    def open_current_flag(self) -> None:
        if self.current is None or not self.flags:
            return
        flag, run, text = self.flags[self.current], self.run, self.text_now()

        def reason_given(reason: str | None) -> None:
            if reason and run is not None and flag.key:
                self.override(run, self.text_now(), flag.key, reason)

        def file_given(answer: str | None) -> None:
            if answer and run is not None:
                self.add_opinion(run, self.text_now(), answer)

        cited = tuple(cited_in_sentence(text, flag.start, flag.end))

        def after(answer: str | None) -> None:
            if answer == "read" and run is not None and flag.support and flag.support.get("source_page"):
                self.read_passage(run.matter, flag.support)
            elif answer == "read" and run is not None and flag.evidence:
                pointer = flag.evidence[0]
                self.read_evidence(run.matter, pointer.file, pointer.page, flag.text)
            elif answer == "read" and run is not None and cited:
                self.read_cited(run.matter, cited[0], flag.text)
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

        matter = run.matter if run is not None else None
        self.app.push_screen(FlagScreen(flag, self.session.database_file, matter, cited=cited), after)
        self.reach("flag-opened")

    @work(thread=True, exclusive=True, group="read", exit_on_error=False)
    def read_evidence(self, matter: str, file_name: str, page_no: int, words: str) -> None:
        self._show_page(matter, file_name, page_no, words)

    @work(thread=True, exclusive=True, group="read", exit_on_error=False)
    def read_passage(self, matter: str, support: dict[str, Any]) -> None:
        """The page a support flag's passage begins on: an opinion's in the authorities library, a
        record page in the matter."""
        from drafting.verify import default_library

        if support.get("kind") == "case":
            matter = default_library(self.session.database_file, matter) or f"{matter}-authorities"
        page = int(support["source_page"])
        self._show_page(matter, str(support["source"]), page, str(support.get("claim", "")))

    def _show_page(self, matter: str, file_name: str, page_no: int, words: str) -> None:
        """Read the page and open it in the reader (in a worker thread: it is disk work)."""
        from evidence.pages import find_page

        view = find_page(self.session.database_file, matter, file_name, page_no)
        if view is None:
            self.say(f"{file_name}, page {page_no} is no longer in the index.")
            return
        self.app.call_from_thread(self.app.push_screen, self._reader(matter, view, words))

    @work(thread=True, exclusive=True, group="read", exit_on_error=False)
    def read_cited(self, matter: str, bates: str, words: str) -> None:
        """The page the flagged sentence cites, for a flag that has no evidence of its own: he sees
        that page does not say what the sentence claims."""
        from evidence.pages import find_bates_page

        view = find_bates_page(self.session.database_file, matter, bates)
        if view is None:
            self.say(
                f"No page of matter '{matter}' is stamped {bates}: the sentence cites a page that is not there."
            )
            return
        self.app.call_from_thread(self.app.push_screen, self._reader(matter, view, words))

    def _reader(self, matter: str, view: PageView, words: str) -> ReadingScreen:
        """The page in the reader, its file named inside the matter's folder as the evidence screen
        names it: from the root, the heading ran past 80 columns and cut off the page number."""
        from evidence.matters import get_matter
        from evidence.pages import shown_path
        from tui.widgets.evidence_views import ReadingScreen, page_body, page_heading, page_subtitle

        where = shown_path(view.path, get_matter(self.session.database_file, matter).sources)
        return ReadingScreen(page_heading(view, where), page_subtitle(view), page_body(view, words))

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def verify(self, run: Run, text: str) -> None:
        self._verified(self.session.reverify(run, text))

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
        self.say(added.notes[-1])
        self._verified(self.session.reverify(run, text))

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def override(self, run: Run, text: str, key: str, reason: str) -> None:
        self._verified(self.session.override(run, text, key, reason))

    def _verified(self, result: Reverified) -> None:
        self.app.call_from_thread(self._show_verified, result)

    def _show_verified(self, result: Reverified) -> None:
        self.post_message(self.Verified(result))
        if result.text != self.text_now():
            return  # typed on meanwhile: the next verify is already scheduled
        self.show(self.run, result.flags, result.text)
        blocking = sum(f.blocking for f in result.flags)
        self.say(f"Verified: {len(result.flags)} flags, {blocking} blocking.")
        self.reach("verified", blocking=blocking)
