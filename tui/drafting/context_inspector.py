"""The context inspector: for each stage of a run, literally the messages it was sent, source by source.

The attorney must be able to see what was in every context window and where each piece came
from, so that no model text passes for evidence unseen. Each stage's exact messages are shown as stored
on the run, then each evidence chunk the run chose with its provenance (file, page, Bates, hash),
and a meter of the primary share, which is always 100%: the context builder refuses anything
chambers wrote, and a run is refused rather than built on it.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from drafting.runs import Run
from drafting.tasks import STAGE_LABELS
from tui.widgets.key_text import KeyText

METER_WIDTH = 20


def meter(share: float) -> str:
    filled = round(share * METER_WIDTH)
    return "█" * filled + "░" * (METER_WIDTH - filled) + f" {share:.0%}"


def inspect_run(run: Run) -> Text:
    """The run's context windows as text: stage by stage, message by message, chunk by chunk."""
    out = Text()
    chars = sum(len(s.text) for s in run.sources)
    out.append(f"Run {run.id} · {run.matter} · {run.task_type}\n", style="bold")
    out.append(f"Evidence: {len(run.sources)} chunks, {chars} characters. {run.context_note}\n")
    share = 1.0 if run.sources else 0.0
    out.append(
        f"Primary share  {meter(share)}  ({len(run.sources)} of {len(run.sources)} chunks are primary "
        "sources; nothing chambers wrote is admitted)\n\n"
    )
    for s in run.sources:
        bates = f", Bates {s.bates}" if s.bates else ""
        part = f" ({s.part})" if s.part else ""
        out.append(
            f"[{s.label}] {s.path}{part}, page {s.page_no}{bates}, sha256 {s.sha256[:12]}\n", style="bold"
        )
        out.append(f"{s.text.strip()[:400]}{'…' if len(s.text.strip()) > 400 else ''}\n\n")
    for record in run.stages:
        label = STAGE_LABELS.get(record.stage, record.stage)
        where = (
            f"{record.backend} ({record.model or '?'}) at {record.url}"
            if record.backend
            else "code, no model"
        )
        out.append(f"── {label}, attempt {record.seq}: {record.status}, on {where}\n", style="bold reverse")
        if not record.messages:
            out.append("No messages: this stage is code or did not reach a model.\n\n")
            continue
        for message in record.messages:
            out.append(f"{message.get('role', '?')}:\n", style="bold underline")
            out.append(f"{message.get('content', '')}\n\n")
    return out


class ContextScreen(ModalScreen[None]):
    """The run's context windows; Esc closes, the arrows and Page keys scroll."""

    BINDINGS = [Binding("escape", "close", "Close", id="context.close", tooltip="Back to the draft")]

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run = run

    def compose(self) -> ComposeResult:
        with Vertical(id="context-box"):
            with VerticalScroll(id="context-scroll"):
                yield Static(inspect_run(self.run), id="context-text")
            yield KeyText("What each stage was sent, exactly. Esc closes.", id="context-foot")

    def on_mount(self) -> None:
        self.query_one("#context-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
