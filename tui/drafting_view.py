"""What the drafting screen shows, as plain data and Rich text: the pipeline strip, flags, the marked draft.

No Textual widgets and no I/O here, so the rendering is tested without an app: the screen feeds
these functions the run it loaded (in a worker) and puts the result in its widgets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from drafting.runs import Run
from drafting.stages import verify
from drafting.tasks import STAGE_LABELS
from drafting.timings import rate
from workspace.config import Config

# Severity words of the verifier (block, warn) and the reviewer (high, medium, low), by weight.
RANK = {"block": 0, "high": 1, "warn": 2, "medium": 3, "low": 4}
# The gutter letter keeps a flag visible on a monochrome terminal (NO_COLOR, or a bad SSH client).
GUTTER = {"block": "B", "high": "R", "warn": "W", "medium": "R", "low": "r"}
STYLE = {
    "block": "bold white on dark_red",
    "high": "bold black on magenta",
    "warn": "black on yellow",
    "medium": "underline magenta",
    "low": "underline",
}
CURRENT = "reverse bold"


@dataclass(frozen=True)
class FlagView:
    """One flag as the attorney sees it: the verifier's (with its evidence) or the reviewer's (with its fix)."""

    start: int
    end: int
    source: str  # verifier | reviewer
    severity: str
    kind: str
    text: str
    message: str
    fix: str = ""
    evidence: tuple[dict[str, Any], ...] = ()
    key: str | None = None  # the verifier's flag key, for overrides
    overridden: str | None = None  # the override's reason

    @property
    def blocking(self) -> bool:
        return self.severity == "block" and self.overridden is None

    def label(self) -> str:
        mark = GUTTER.get(self.severity, "?")
        what = self.kind if self.source == "verifier" else f"review ({self.severity})"
        done = " overridden" if self.overridden else ""
        quoted = self.text if len(self.text) <= 32 else self.text[:31] + "…"
        return f"{mark}{done} {what} {quoted}: {self.message}"


def flags_of(run: Run) -> list[FlagView]:
    """The run's marks (verifier and anchored reviewer findings), in draft order, with evidence attached."""
    verified = verify.completed(run)
    if verified is None:
        return []
    return flags_from([m.as_dict() for m in verified.marks], verified.report or {})


def flags_from(marks: list[dict[str, Any]], report: dict[str, Any]) -> list[FlagView]:
    by_span = {(f["start"], f["end"], f["kind"]): f for f in report.get("flags", [])}
    out: list[FlagView] = []
    for m in marks:
        flag = by_span.get((m["start"], m["end"], m["kind"]), {}) if m["source"] == "verifier" else {}
        override = flag.get("override") or {}
        out.append(
            FlagView(
                m["start"], m["end"], m["source"], m["severity"], m["kind"], m["text"], m["message"],
                m.get("fix", ""), tuple(flag.get("evidence", ())), flag.get("key"), override.get("reason"),
            )
        )  # fmt: skip
    return out


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
        out.append(Text.assemble((f"{mark}▌", "bold") if mark else "  ", piece))
    return out


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
class Strip:
    """The pipeline strip: each stage with its backend, board, state and speed."""

    stages: list[StageView] = field(default_factory=list)

    @classmethod
    def for_plan(cls, plan: list[str] | tuple[str, ...]) -> Strip:
        return cls([StageView(s) for s in plan])

    def get(self, stage: str) -> StageView:
        found = next((s for s in self.stages if s.stage == stage), None)
        if found is None:
            found = StageView(stage)
            self.stages.append(found)
        return found

    def render(self) -> Text:
        icons = {"waiting": "·", "running": "▶", "completed": "✓", "refused": "✗", "failed": "✗",
                 "cancelled": "■", "interrupted": "■", "stopped": "■"}  # fmt: skip
        out = Text()
        # As wide as the longest backend name (up to 16): "demo-smollm2" cut to "demo-smoll" reads as another.
        width = min(16, max([10, *(len(s.backend) for s in self.stages)]))
        for i, s in enumerate(self.stages):
            if i:
                out.append("\n")
            style = {"running": "bold", "refused": "bold red", "failed": "bold red"}.get(s.state, "")
            out.append(f"{icons.get(s.state, '?')} {STAGE_LABELS.get(s.stage, s.stage):<18.18} ", style=style)
            out.append(f"{s.backend:<{width}.{width}} {s.board:<8.8} {s.state:<10} {s.speed}")
        return out


def board_of(config: Config, backend: str | None) -> str:
    if backend is None:
        return "cpu"  # a stage that is code (the verifier, routing by rules)
    found = next((b for b in config.backends if b.name == backend), None)
    return (found.board if found is not None else None) or "-"


def strip_from_run(config: Config, run: Run) -> Strip:
    """The strip as the stored run says it ended (for a reopened run)."""
    strip = Strip.for_plan(run.plan)
    for record in run.stages:
        view = strip.get(record.stage)
        view.backend = record.backend or "code"
        view.board = board_of(config, record.backend)
        view.state = record.status
        view.speed = pp_tg(record.timings)
    return strip


def pp_tg(timings: dict[str, Any] | None) -> str:
    """``cached 2,650 tok, PP 410 TG 45 tok/s``: what came from the prompt cache, and rates only where
    tokens were processed over measurable time (a cached prompt's "PP 0 tok/s" is no speed at all)."""
    if not timings:
        return ""
    pp = rate(timings.get("prompt_n"), timings.get("prompt_ms"))
    tg = rate(timings.get("predicted_n"), timings.get("predicted_ms"))
    rates = " ".join(f"{name} {value:.0f}" for name, value in (("PP", pp), ("TG", tg)) if value is not None)
    cached = int(timings.get("cache_n") or 0)
    parts = [f"cached {cached:,} tok"] if cached else []
    return ", ".join(parts + ([f"{rates} tok/s"] if rates else []))
