"""One entry point for a production or binder, dry or real, returning the lines to show.

The TUI screen calls this from its worker thread; keeping it here keeps
PyMuPDF and SQLite work out of the UI module and gives the screen the same
plan text the CLI prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evidence.matters import check_matter_name
from exhibits.binder import Exhibit, plan_binder, run_binder
from exhibits.numbering import bates_format
from exhibits.stamp import ProgressFn, plan_production, preview_shrinks, run_production

JOB_ACTIONS = ("stamp", "bind", "bind-bates")


def run_exhibit_job(
    db_path: Path,
    action: str,
    matter: str,
    sources: Sequence[Path],
    descriptions: Sequence[str],
    prefix: str,
    out_root: Path,
    *,
    dry_run: bool,
    progress: ProgressFn | None = None,
    stamp: str = "",
) -> list[str]:
    """Plan (and unless ``dry_run``, run) a production or a binder; returns what to show."""
    folder = (
        out_root / check_matter_name(matter) / f"{'production' if action == 'stamp' else 'binder'}-{stamp}"
    )
    if action == "stamp":
        plan = plan_production(db_path, matter, list(sources), bates_format(prefix, 6), folder)
    else:
        fmt = bates_format(prefix, 6) if action == "bind-bates" else None
        exhibits = [Exhibit(s, d) for s, d in zip(sources, descriptions, strict=True)]
        binder = plan_binder(db_path, matter, exhibits, folder / "exhibits.pdf", bates=fmt)
    if action == "stamp":
        lines = plan.describe()
        if dry_run:
            shrinks = preview_shrinks(plan)
            return lines + (
                [f"Would shrink content on {len(shrinks)} page(s) to clear the stamp."] if shrinks else []
            )
        result = run_production(db_path, plan, progress)  # its plan differs when a document failed
        shrunk = [f"Content shrunk to clear the stamp: {', '.join(f'{n} p.{p}' for n, p in result.shrunk)}"]
        done = [*(shrunk if result.shrunk else []), f"Written; production log {result.log_csv}"]
        return [*result.plan.describe(), *done]
    if dry_run:
        return binder.describe()
    built = run_binder(db_path, binder, progress)  # differs from the plan when an exhibit failed to copy
    return [*built.describe(), f"Written; exhibit list {built.list_csv}"]
