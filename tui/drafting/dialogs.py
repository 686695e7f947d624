"""The drafting screen's modals: one flag with its evidence or argument, a typed reason, a yes-or-no."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from drafting.runs import Run
from drafting.stages import gate
from tui.drafting.view import FlagView
from tui.widgets.chambers_screen import ChambersDialog
from tui.widgets.key_text import KeyText


def gate_question(run: Run) -> str:
    """Ctrl+O's question, under what the gate said: its reasons, and each source it cited with its place."""
    verdict = gate.completed(run)
    lines = [f"The gate found {(verdict.basis if verdict else 'no').upper()} basis for this in the matter."]
    reasons = verdict.reasons if verdict else ()
    lines += (
        ["", "Its reasons:"] + [f"  - {shorten(str(r))}" for r in reasons]
        if reasons
        else ["", "It gave no reasons."]
    )
    by_label = {s.label: s for s in run.sources}
    cited = list(verdict.evidence) if verdict else []
    if cited:
        lines += ["", "The sources it cited:"]
        for label in cited:
            source = by_label.get(label)
            where = (
                # The file's name: its path from the root took three rows of the dialog at 80 columns.
                f"{Path(source.path).name}, page {source.page_no}"
                + (f", Bates {source.bates}" if source.bates else "")
                if source is not None
                else "not among the sources it was given"
            )
            lines.append(f"  [{label}] {where}")
    else:
        lines += ["", "It cited no source."]
    lines += ["", "Why go on although the gate found no basis?"]
    return "\n".join(lines)


def original_passage(snippet: str, page_text: str) -> str | None:
    """The verifier's passage as the page has it (its case, its punctuation), or None when not found.

    The verifier compares normalized text (lower case, plain quotes), so its snippet is found again in
    the page by its words in order, whatever lies between them.
    """
    words = re.findall(r"\w+", snippet)
    if not words:
        return None
    found = re.search(r"\W+".join(re.escape(w) for w in words), page_text, re.IGNORECASE)
    if found is None:
        return None
    start, end = found.span()  # widened to whole words: the snippet may start or end inside one
    while start > 0 and page_text[start - 1].isalnum():
        start -= 1
    while end < len(page_text) and page_text[end].isalnum():
        end += 1
    return page_text[start:end]


def searched_line(matter: str, documents: list[tuple[str, int]]) -> str:
    """Where the verifier looked: the matter's indexed documents (a quarantined file is never a source)."""
    pages = sum(n for _, n in documents)
    files = list(dict.fromkeys(name for name, _ in documents))  # an e-mail and its attachments: one file
    names = ", ".join(files[:8]) + (", …" if len(files) > 8 else "")
    return f"Searched: {len(documents)} document(s), {pages} page(s) of {matter}: {names}"


def describe(flag: FlagView, passages: dict[int, str] | None = None, searched: str = "") -> str:
    lines = [
        f"{flag.heading}  {flag.kind} ({flag.source})",
        "",
        f"In the draft: {flag.text!r}",
        "",
        flag.message,
    ]
    if flag.overridden:
        lines += [
            "",
            f"{'Acknowledged' if flag.verdict == 'unverifiable' else 'Overridden'}: {flag.overridden}",
        ]
    elif flag.verdict == "unverifiable" and flag.reason in (
        "not-in-library",
        "no-citation",
        "no-page-numbers",
    ):
        lines += [
            "",
            "Add the opinion (or a copy with its page numbers) with "
            '`chambers authorities add FILE --cite "VOLUME REPORTER PAGE (YEAR)"`, then verify again; '
            "or acknowledge that it stands unchecked (recorded with who and when).",
        ]
    if flag.source == "reviewer":
        lines += ["", f"The reviewer's fix: {flag.fix or '(none given)'}"]
    elif flag.evidence:
        lines += ["", "Evidence:"]
        for number, p in enumerate(flag.evidence):
            bates = f", Bates {p.bates}" if p.bates else ""
            score = f", match {p.score:.0f}" if p.score is not None else ""
            lines.append(f"  {p.file}, page {p.page}{bates}{score}")
            passage = (passages or {}).get(number) or p.snippet
            if passage:
                lines.append(f"    “{shorten(passage)}”")
    else:
        lines += ["", "No source in the matter grounds this."]
    if searched and flag.source == "verifier":
        lines += ["", searched]
    return "\n".join(lines)


def shorten(text: str, limit: int = 160) -> str:
    """A passage cut at a word boundary, with an ellipsis where it was cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit)
    return flat[: cut if cut > 0 else limit] + "…"


ADDABLE = ("not-in-library", "no-page-numbers", "no-year", "no-citation", "no-library")


class FlagScreen(ChambersDialog[str | None]):
    """One flag. Esc closes; o asks to override it (a blocking verifier flag) with a reason.

    A failed read of the cited passages opens the error modal over it (it has no status line)."""

    BINDINGS = [
        Binding("escape", "close", "Close", id="flag.close", tooltip="Back to the draft"),
        Binding("enter", "close", "Close", id="flag.close_enter", show=False, tooltip="Back to the draft"),
        Binding(
            "o",
            "override",
            "Override",
            id="flag.override",
            tooltip="Let this blocking flag stand, with a written reason (recorded)",
        ),
        Binding(
            "r",
            "read",
            "Read page",
            id="flag.read",
            tooltip="Open the evidence's first page in the reader, whole, as it was ingested",
        ),
        Binding(
            "a",
            "add_opinion",
            "Add opinion",
            id="flag.add_opinion",
            tooltip="Add the opinion to the authorities library (only that file is ingested), then verify again",
        ),
        Binding(
            "b",
            "best_paragraph",
            "Best paragraph",
            id="flag.best_paragraph",
            tooltip="Show the locator's best paragraph of the cited opinion beside the claim, or the passage again",
        ),
        Binding(
            "w",
            "judgement_wrong",
            "Judgement wrong",
            id="flag.judgement_wrong",
            tooltip="Mark the support model's judgement wrong (stored, exported with the corrections)",
        ),
    ]

    def __init__(
        self,
        flag: FlagView,
        database_file: Path | None = None,
        matter: str | None = None,
        *,
        cited: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        self.flag = flag
        self.cited = cited  # the Bates numbers its sentence cites: r reads the first when it has no evidence
        self.database_file, self.matter = database_file, matter
        self.passages: dict[int, str] = {}
        self.searched = ""  # where the verifier looked, once read

    def on_mount(self) -> None:
        if self.flag.source == "verifier" and self.database_file is not None and self.matter is not None:
            self.load_passages(self.database_file, self.matter)

    @work(thread=True, exclusive=True, group="passages", exit_on_error=False)
    def load_passages(self, database_file: Path, matter: str) -> None:
        """Each cited passage as its page has it: read from the index, in a thread (it is disk work)."""
        from evidence.pages import find_page, matter_documents

        documents = [
            (Path(d.path).name, d.pages) for d in matter_documents(database_file, matter) if not d.quarantined
        ]
        found: dict[int, str] = {}
        for number, pointer in enumerate(self.flag.evidence):
            view = find_page(database_file, matter, pointer.file, pointer.page)
            passage = original_passage(pointer.snippet, view.text) if view else None
            if passage:
                found[number] = passage
        self.app.call_from_thread(self._show_passages, found, searched_line(matter, documents))

    def _show_passages(self, found: dict[int, str], searched: str) -> None:
        self.passages, self.searched = found, searched
        self.query_one("#flag-detail", Static).update(describe(self.flag, found, searched))

    def compose(self) -> ComposeResult:
        if self.flag.support is not None:
            yield from self._compose_support(self.flag.support)
            return
        with Vertical(id="flag-box"):
            with VerticalScroll(id="flag-scroll"):
                yield Static(describe(self.flag), id="flag-detail", markup=False)
            read = (
                "r reads the page · "
                if self.flag.evidence
                else f"r reads {self.cited[0]} · "
                if self.cited
                else ""
            )
            verb = "acknowledges" if self.flag.verdict == "unverifiable" else "overrides"
            add = "a adds the opinion · " if self.can_add() else ""
            hint = (
                f"{read}{add}o {verb} with a reason · Esc closes"
                if self.flag.blocking
                else f"{read}Esc closes"
            )
            yield KeyText(hint, id="flag-foot")

    def _compose_support(self, support: dict[str, Any]) -> ComposeResult:
        from tui.drafting.support_pane import SupportPane

        with Vertical(id="flag-box"):
            yield Static(f"{self.flag.heading}  {self.flag.text}", id="flag-detail", markup=False)
            yield SupportPane(support)
            wrong = "w marks the judgement wrong · " if support.get("judgement") else ""
            read = "r reads the page · " if support.get("source_page") else ""
            yield KeyText(f"{read}b best paragraph · {wrong}Esc closes", id="flag-foot")

    def action_best_paragraph(self) -> None:
        from tui.drafting.support_pane import SupportPane

        if self.flag.support is None:
            self.notify("Only a support flag has a best paragraph to show.", severity="warning")
            return
        self.query_one(SupportPane).toggle_best()

    def action_judgement_wrong(self) -> None:
        support = self.flag.support
        if (
            support is None
            or not support.get("judgement")
            or self.database_file is None
            or self.matter is None
        ):
            self.notify("There is no support model judgement here to mark.", severity="warning")
            return
        from drafting.support.store import mark_wrong

        pair = {k: v for k, v in support.items() if k not in ("judgement", "draft_sha256")}
        mark_wrong(
            self.database_file,
            self.matter,
            str(support.get("draft_sha256", "")),
            pair,
            support["judgement"],
            "marked wrong in the flag dialog",
        )
        self.notify("Marked: the model's judgement is wrong. It is kept for the support role's training.")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_read(self) -> None:
        if self.flag.evidence or self.cited or (self.flag.support or {}).get("source_page"):
            self.dismiss("read")
        else:
            self.notify(
                "Neither this flag nor its sentence cites a page of the matter to read.", severity="warning"
            )

    def can_add(self) -> bool:
        """An unverifiable item that adding an opinion (or a copy with its pages) can settle."""
        return self.flag.verdict == "unverifiable" and self.flag.reason in ADDABLE

    def action_add_opinion(self) -> None:
        if self.can_add():
            self.dismiss("add")
        else:
            self.notify(
                "Adding an opinion settles only an item the library cannot check.", severity="warning"
            )

    def action_override(self) -> None:
        if self.flag.blocking and self.flag.key:
            self.dismiss("override")
        else:
            self.notify("Only a blocking verifier flag needs an override.", severity="warning")


class ReasonScreen(ModalScreen[str | None]):
    """Asks for a written reason (an override, going on past the gate); Enter gives it, Esc gives up."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="reason.cancel", tooltip="Give up; nothing is recorded"),
        Binding(
            "up", "scroll(-1)", "Scroll up", id="reason.scroll_up", show=False, tooltip="Scroll the question"
        ),
        Binding(
            "down",
            "scroll(1)",
            "Scroll down",
            id="reason.scroll_down",
            show=False,
            tooltip="Scroll the question",
        ),
    ]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            # The question scrolls, the answer box and its keys stay: the gate's reasons and its cited
            # sources run past 24 rows, and cut off they took the box he types into with them.
            with VerticalScroll(id="reason-scroll"):
                yield Static(self.title_text, id="reason-title", markup=False)
            yield Input(placeholder="Your reason (recorded with the run)", id="reason-input")
            yield KeyText("Enter records it · Esc gives up", id="reason-foot")

    def on_mount(self) -> None:
        self.query_one("#reason-input", Input).focus()
        self.call_after_refresh(self._say_it_scrolls)

    def _say_it_scrolls(self) -> None:
        if self.query_one("#reason-scroll", VerticalScroll).max_scroll_y > 0:
            self.query_one("#reason-foot", Static).update(
                "Enter records it · ↑↓ scroll the question · Esc gives up"
            )

    def action_scroll(self, rows: int) -> None:
        self.query_one("#reason-scroll", VerticalScroll).scroll_relative(y=rows, animate=False)

    @on(Input.Submitted, "#reason-input")
    def submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A question before something he may not mean (exporting an empty draft): y goes on, n or Esc does not."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Go on"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="Do nothing"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Static(self.question, id="confirm-question", markup=False)
            yield KeyText("y goes on · n or Esc does nothing", id="reason-foot")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
