"""What the drafting screen shows, as plain data and Rich text: the pipeline strip, the marked draft, the redline.

No Textual widgets and no I/O here, so the rendering is tested without an app: the screen feeds
these functions the run it loaded (in a worker) and puts the result in its widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.control import strip_control_codes
from rich.text import Span, Text

from corrections.redline import redline
from drafting.flags import GUTTER, FlagView, flags_in_run
from drafting.redline_marks import STYLES, marked
from drafting.runs import Run
from drafting.tasks import STAGE_LABELS
from drafting.timings import rate
from workspace.config import Config

if TYPE_CHECKING:
    from drafting.drafts.store import SavedDraft

# Severity words of the verifier (block, warn) and the reviewer (high, medium, low), by weight.
RANK = {"block": 0, "high": 1, "warn": 2, "medium": 3, "low": 4}
STYLE = {
    "block": "bold white on dark_red",
    "high": "bold black on magenta",
    "warn": "black on yellow",
    "medium": "underline magenta",
    "low": "underline",
}
CURRENT = "reverse bold"
GUTTER_CELLS = 2  # the gutter before each line: its flag letter and a bar, or blank


@dataclass(frozen=True)
class LoadedRun:
    """A stored run as the screen shows it, prepared in a worker: its flags and, once it is verified,
    its draft marked with them (None before: the draft is not shown marked) and that cut into rows."""

    run: Run
    saved: SavedDraft | None
    flags: list[FlagView]
    marked: Text | None
    rows: Any = None  # what ``wrap`` made of ``marked``: the widget's rows, or None

    @classmethod
    def prepare(
        cls, run: Run, saved: SavedDraft | None = None, *, wrap: Callable[[Text], Any] | None = None
    ) -> LoadedRun:
        flags = flags_in_run(run)
        marked = marked_text(run.draft, flags, None) if run.completed("verify") is not None else None
        return cls(
            run, saved, flags, marked, wrap(marked) if wrap is not None and marked is not None else None
        )


def marked_lines(draft: str, flags: list[FlagView], current: int | None) -> list[Text]:
    """The draft line by line, each flag's span styled by severity and a gutter letter on its lines."""
    text = Text(draft)
    line_marks: dict[int, str] = {}
    starts = _line_starts(draft)
    for i, flag in enumerate(flags):
        text.stylize(CURRENT if i == current else STYLE.get(flag.severity, "underline"), flag.start, flag.end)
        for line in range(line_of(starts, flag.start), line_of(starts, max(flag.start, flag.end - 1)) + 1):
            old = line_marks.get(line)
            if old is None or RANK.get(flag.severity, 9) < RANK.get(_severity_of(old), 9):
                line_marks[line] = GUTTER.get(flag.severity, "?")
    lines = text.split("\n", allow_blank=True)
    out = []
    for number, piece in enumerate(lines):
        mark = line_marks.get(number)
        out.append(Text.assemble((f"{mark}▌", "bold") if mark else " " * GUTTER_CELLS, piece))
    return out


def marked_text(draft: str, flags: list[FlagView], current: int | None) -> Text:
    """``marked_lines`` as one text, a line each: what the marked draft shows (no widgets: a worker builds it)."""
    return Text("\n").join(marked_lines(draft, flags, current))


def _severity_of(mark: str) -> str:
    return next((s for s, g in GUTTER.items() if g == mark), "low")


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")
    return starts


def line_of(starts: list[int], offset: int) -> int:
    """The line holding character ``offset`` (binary search over the line starts)."""
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


def flag_line(draft: str, flag: FlagView) -> int:
    return line_of(_line_starts(draft), flag.start)


@dataclass
class StageView:
    stage: str
    backend: str = "-"
    board: str = "-"
    state: str = "waiting"
    speed: str = ""


@dataclass
class PipelineProgress:
    """What the pipeline strip shows: each stage with its backend, board, state and speed."""

    stages: list[StageView] = field(default_factory=list)

    @classmethod
    def for_plan(cls, plan: list[str] | tuple[str, ...]) -> PipelineProgress:
        return cls([StageView(s) for s in plan])

    def get(self, stage: str) -> StageView:
        found = next((s for s in self.stages if s.stage == stage), None)
        if found is None:
            found = StageView(stage)
            self.stages.append(found)
        return found

    def render(self) -> Text:
        icons = {
            "waiting": "·",
            "running": "▶",
            "completed": "✓",
            "refused": "✗",
            "failed": "✗",
            "cancelled": "■",
            "interrupted": "■",
            "stopped": "■",
        }
        out = Text()
        # As wide as the longest backend name (up to 16): "demo-smollm2" cut to "demo-smoll" reads as another.
        width = min(16, max([10, *(len(s.backend) for s in self.stages)]))
        # The board column only as wide as its names ("cpu", "-" where none is set): the rates after it
        # are what a long backend name pushed past 80 columns.
        boards = min(8, max([3, *(len(s.board) for s in self.stages)]))
        for i, s in enumerate(self.stages):
            if i:
                out.append("\n")
            style = {"running": "bold", "refused": "bold red", "failed": "bold red"}.get(s.state, "")
            out.append(f"{icons.get(s.state, '?')} {STAGE_LABELS.get(s.stage, s.stage):<18.18} ", style=style)
            out.append(f"{s.backend:<{width}.{width}} {s.board:<{boards}.{boards}} {s.state:<10} {s.speed}")
        return out


def board_of(config: Config, backend: str | None) -> str:
    if backend is None:
        return "cpu"  # a stage that is code (the verifier, routing by rules)
    found = next((b for b in config.backends if b.name == backend), None)
    return (found.board if found is not None else None) or "-"


def progress_of_run(config: Config, run: Run) -> PipelineProgress:
    """The strip as the stored run says it ended (for a reopened run)."""
    strip = PipelineProgress.for_plan(run.plan)
    for record in run.stages:
        view = strip.get(record.stage)
        view.backend = record.backend or "code"
        view.board = board_of(config, record.backend)
        view.state = record.status
        view.speed = pp_tg(record.timings)
    return strip


def pp_tg(timings: dict[str, Any] | None) -> str:
    """``PP 410 TG 45 tok/s, cached 2,650 tok``: rates only where tokens were processed over measurable
    time (a cached prompt's "PP 0 tok/s" is no speed at all), then what came from the prompt cache. The
    rates come first: at 80 columns the strip's row ends near the 75th, and TG is the figure he reads."""
    if not timings:
        return ""
    pp = rate(timings.get("prompt_n"), timings.get("prompt_ms"))
    tg = rate(timings.get("predicted_n"), timings.get("predicted_ms"))
    rates = " ".join(f"{name} {value:.0f}" for name, value in (("PP", pp), ("TG", tg)) if value is not None)
    cached = int(timings.get("cache_n") or 0)
    parts = [f"cached {cached:,} tok"] if cached else []
    return ", ".join(([f"{rates} tok/s"] if rates else []) + parts)


def redline_text(draft: str, final: str) -> Text:
    """The attorney's changes against the model's draft, marked so they read without colour too."""
    # One string and its spans, the control codes Text would drop stripped from both sides first: Text.append
    # per segment (a scan for control codes each) was a fifth of a brief's redline with every paragraph edited.
    parts: list[str] = []
    spans: list[Span] = []
    at = 0
    for seg in redline(strip_control_codes(draft), strip_control_codes(final)).segments:
        text, style = marked(seg.kind, seg.text), STYLES.get(seg.kind)
        if style:
            spans.append(Span(at, at + len(text), style))
        parts.append(text)
        at += len(text)
    return Text("".join(parts), spans=spans)


def first_change(marked: Text) -> int | None:
    """Where the first insertion or deletion of a ``redline_text`` starts, or None when nothing changed."""
    return marked.spans[0].start if marked.spans else None  # spans are made in text order
