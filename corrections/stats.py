"""Per model and task type: how much the attorney edits each model's drafts, and whether that is falling.

This answers "is the 122B worth its board?" from his own edits rather than from anyone's opinion: if
he rewrites a third of the 35B's motions and a tenth of the 122B's, the slower model saves him work.
The figures come from the edit ratios stored at capture (the one redline), so the browser, the
exports and these statistics agree.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from corrections.store import edit_ratios

ALL_TASKS = "(all tasks)"
SPARK = "▁▂▃▄▅▆▇█"
TREND_PERIODS = 6  # months shown in the trend
FLAT = 0.02  # a change in mean edit ratio smaller than this is "steady"


@dataclass(frozen=True)
class GroupStats:
    model: str
    task_type: str
    drafts: int
    mean_edit_ratio: float
    median_edit_ratio: float
    unedited_share: float  # accepted with no edits
    trend: tuple[tuple[str, float], ...]  # (month, mean edit ratio), oldest first, last TREND_PERIODS

    @property
    def direction(self) -> str:
        if len(self.trend) < 2:
            return "one month"
        change = self.trend[-1][1] - self.trend[0][1]
        if abs(change) < FLAT:
            return "steady"
        return "fewer edits" if change < 0 else "more edits"

    @property
    def sparkline(self) -> str:
        return "".join(SPARK[min(int(ratio * len(SPARK)), len(SPARK) - 1)] for _, ratio in self.trend)


def compute_stats(db_path: Path, model_names: Mapping[str, str] | None = None) -> list[GroupStats]:
    """One row per model (with its LoRA adapter, if any) and task type, then one per model over all its
    tasks, ordered by model.

    ``model_names`` maps a stored model name to the one it is shown under (a file path the server once
    reported, to the name the same model is served under now), so one model is one row."""
    names = model_names or {}
    groups: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for row in edit_ratios(db_path):
        # A model with an adapter is its own row, so drafts with and without it compare side by side.
        model = names.get(row.model, row.model) if row.model else None
        name = (model or "unknown model") + (f" + {row.adapter}" if row.adapter else "")
        name += " (imported)" if row.imported else ""  # another tool's pairs never mix with his own
        groups[(name, row.task_type)].append((row.accepted_at[:7], row.edit_ratio))
        groups[(name, ALL_TASKS)].append((row.accepted_at[:7], row.edit_ratio))
    return [_summarise(model, task, items) for (model, task), items in sorted(groups.items(), key=_order)]


def _order(item: tuple[tuple[str, str], object]) -> tuple[str, int, str]:
    (model, task), _ = item
    return (model, 1 if task == ALL_TASKS else 0, task)


def _summarise(model: str, task: str, items: list[tuple[str, float]]) -> GroupStats:
    ratios = [ratio for _, ratio in items]
    by_month: dict[str, list[float]] = defaultdict(list)
    for month, ratio in items:
        by_month[month].append(ratio)
    trend = tuple((month, statistics.fmean(values)) for month, values in sorted(by_month.items()))
    return GroupStats(
        model,
        task,
        len(ratios),
        statistics.fmean(ratios),
        statistics.median(ratios),
        sum(1 for r in ratios if r == 0) / len(ratios),
        trend[-TREND_PERIODS:],
    )


def stats_table(rows: list[GroupStats], *, width: int | None = None) -> list[str]:
    """The plain-text table ``chambers corrections stats`` prints (and the TUI panel shows).

    With ``width`` (the TUI's pane) a table that would not fit leaves out the median and shortens the
    headings, so the trend, the column he reads for progress, is never the one cut off."""
    if not rows:
        return ["No correction pairs yet: accept an edited draft and it is kept here."]
    full = _stats_lines(rows, narrow=False)
    if width is not None and max(len(line) for line in full) > width:
        return _stats_lines(rows, narrow=True, fit=width)
    return full


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _stats_lines(rows: list[GroupStats], *, narrow: bool, fit: int = 0) -> list[str]:
    width = max(len(r.model) for r in rows)
    task_width = max(len(r.task_type) for r in rows)
    if narrow:  # n drafts, mean edit, share unedited, trend: 76 columns with the usual names
        # What the columns after the model take (the longest trend word is "fewer edits"); a model name
        # longer than the rest leaves is cut at its end, never the trend.
        rest = 2 + task_width + 2 + 4 + 2 + 6 + 2 + 4 + 2 + TREND_PERIODS + 1 + len("fewer edits")
        width = max(8, min(width, fit - rest)) if fit else width
        lines = [f"{'model':<{width}}  {'task':<{task_width}}  {'n':>4}  {'mean':>6}  same  trend"]
        for r in rows:
            lines.append(
                f"{_cut(r.model, width):<{width}}  {r.task_type:<{task_width}}  {r.drafts:>4}  {r.mean_edit_ratio:>6.1%}  "
                f"{r.unedited_share:>4.0%}  {r.sparkline:<{TREND_PERIODS}} {r.direction}"
            )
        return lines
    lines = [
        f"{'model':<{width}}  {'task':<{task_width}}  drafts  mean edit  median  unedited  trend (by month)",
    ]
    for r in rows:
        lines.append(
            f"{r.model:<{width}}  {r.task_type:<{task_width}}  {r.drafts:>6}  {r.mean_edit_ratio:>9.1%}  "
            f"{r.median_edit_ratio:>6.1%}  {r.unedited_share:>8.0%}  {r.sparkline:<{TREND_PERIODS}} {r.direction}"
        )
    return lines
