"""The drafting screen's modals: one flag with its evidence or argument, a typed reason, a yes-or-no."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from drafting.runs import Run
from tui.drafting_view import FlagView


def gate_question(run: Run) -> str:
    """Ctrl+O's question, under what the gate said: its reasons, and each source it cited with its place."""
    gate = run.completed("gate")
    result = gate.result if gate is not None else {}
    lines = [f"The gate found {str(result.get('basis', 'no')).upper()} basis for this in the matter."]
    reasons = result.get("reasons") or []
    lines += (
        ["", "Its reasons:"] + [f"  - {shorten(str(r))}" for r in reasons]
        if reasons
        else ["", "It gave no reasons."]
    )
    by_label = {s.label: s for s in run.sources}
    cited = [str(label) for label in result.get("evidence") or []]
    if cited:
        lines += ["", "The sources it cited:"]
        for label in cited:
            source = by_label.get(label)
            where = (
                f"{source.path}, page {source.page_no}" + (f", Bates {source.bates}" if source.bates else "")
                if source is not None
                else "not among the sources it was given"
            )
            lines.append(f"  [{label}] {where}")
    else:
        lines += ["", "It cited no source."]
    lines += ["", "Why go on although the gate found no basis?"]
    return "\n".join(lines)


def describe(flag: FlagView) -> str:
    lines = [f"{flag.severity.upper()}  {flag.kind} ({flag.source})", "", f"In the draft: {flag.text!r}", "",
             flag.message]  # fmt: skip
    if flag.overridden:
        lines += ["", f"Overridden: {flag.overridden}"]
    if flag.source == "reviewer":
        lines += ["", f"The reviewer's fix: {flag.fix or '(none given)'}"]
    elif flag.evidence:
        lines += ["", "Evidence:"]
        for p in flag.evidence:
            bates = f", Bates {p['bates']}" if p.get("bates") else ""
            score = f", match {p['score']:.0f}" if p.get("score") is not None else ""
            lines.append(f"  {p.get('file', '?')}, page {p.get('page', '?')}{bates}{score}")
            if p.get("snippet"):
                lines.append(f"    “{shorten(p['snippet'])}”")
    else:
        lines += ["", "No source in the matter grounds this."]
    return "\n".join(lines)


def shorten(text: str, limit: int = 160) -> str:
    """A passage cut at a word boundary, with an ellipsis where it was cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit)
    return flat[: cut if cut > 0 else limit] + "…"


class FlagScreen(ModalScreen[str | None]):
    """One flag. Esc closes; o asks to override it (a blocking verifier flag) with a reason."""

    BINDINGS = [
        Binding("escape", "close", "Close", id="flag.close", tooltip="Back to the draft"),
        Binding("enter", "close", "Close", id="flag.close_enter", show=False, tooltip="Back to the draft"),
        Binding("o", "override", "Override", id="flag.override",
                tooltip="Let this blocking flag stand, with a written reason (recorded)"),
        Binding("r", "read", "Read page", id="flag.read",
                tooltip="Open the evidence's first page in the reader, whole, as it was ingested"),
    ]  # fmt: skip

    def __init__(self, flag: FlagView) -> None:
        super().__init__()
        self.flag = flag

    def compose(self) -> ComposeResult:
        with Vertical(id="flag-box"):
            with VerticalScroll(id="flag-scroll"):
                yield Static(describe(self.flag), id="flag-detail", markup=False)
            read = "r reads the page · " if self.flag.evidence else ""
            hint = (
                f"{read}o overrides with a reason · Esc closes" if self.flag.blocking else f"{read}Esc closes"
            )
            yield Static(hint, id="flag-foot")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_read(self) -> None:
        if self.flag.evidence:
            self.dismiss("read")
        else:
            self.notify("This flag cites no page of the matter to read.", severity="warning")

    def action_override(self) -> None:
        if self.flag.blocking and self.flag.key:
            self.dismiss("override")
        else:
            self.notify("Only a blocking verifier flag needs an override.", severity="warning")


class ReasonScreen(ModalScreen[str | None]):
    """Asks for a written reason (an override, going on past the gate); Enter gives it, Esc gives up."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="reason.cancel", tooltip="Give up; nothing is recorded")
    ]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Static(self.title_text, id="reason-title", markup=False)
            yield Input(placeholder="Your reason (recorded with the run)", id="reason-input")
            yield Static("Enter records it · Esc gives up", id="reason-foot")

    def on_mount(self) -> None:
        self.query_one("#reason-input", Input).focus()

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
            yield Static("y goes on · n or Esc does nothing", id="reason-foot")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
