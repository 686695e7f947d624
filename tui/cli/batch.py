"""``chambers batch new|list|show|run|export``: a table of similar drafting jobs on the servers' parallel slots.

``new`` reads the CSV or JSONL, prints the dry run (the first rows' instructions as rendered, every
row's missing and extra fields, each unreadable row by line) and queues the rows that can run;
``run`` runs the queue (``--plan`` only says how, from what was measured), printing jobs done,
running and failed, the total tok/s and the time left; Ctrl-C stops cleanly and ``run`` again
resumes. ``export`` writes the accepted letters. Exit codes (``tui.cli.exit_codes``): 0 clean, 1 some
job failed or some letter was refused for a blocking flag, 2 a bad table or name, 130 stopped.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tui.cli import exit_codes
from workspace.paths import Paths

if TYPE_CHECKING:
    from drafting.batch.runner import Progress
    from drafting.batch.table import Table

SHOWN_ROWS = 3  # rendered in the dry run


def register(sub: Any) -> None:
    batch = sub.add_parser(
        "batch", help="many similar drafts from a CSV or JSONL, on the servers' parallel slots"
    )
    cmds = batch.add_subparsers(dest="batch_command", required=True)
    new = cmds.add_parser("new", help="queue a batch: one job per row; prints the dry run first")
    new.add_argument("name", help="the batch's name")
    new.add_argument("--matter", required=True, help="the matter of every row without a matter column")
    new.add_argument(
        "--task", required=True, help="the task of every row without a task column (demand-letter...)"
    )
    new.add_argument(
        "--jobs", required=True, metavar="FILE", help="a .csv (header line) or .jsonl of the rows"
    )
    new.add_argument(
        "--instructions",
        required=True,
        metavar="FILE",
        help="the instructions template; {column} is filled from each row",
    )
    new.add_argument("--dry-run", action="store_true", help="only show what would be queued")
    new.set_defaults(handler=cmd_new)
    ls = cmds.add_parser("list", help="the batches and their jobs by state")
    ls.set_defaults(handler=cmd_list)
    show = cmds.add_parser("show", help="a batch's jobs: row, state, verdict counts, tokens, time")
    show.add_argument("name")
    show.set_defaults(handler=cmd_show)
    run = cmds.add_parser("run", help="run (or resume) a batch on the servers' slots")
    run.add_argument("name")
    run.add_argument(
        "--one-at-a-time", action="store_true", help="one job at a time, for results that repeat"
    )
    run.add_argument("--retry-failed", action="store_true", help="resume failed jobs' runs too")
    run.add_argument(
        "--plan", action="store_true", help="show the servers, slots and measured gain; run nothing"
    )
    run.set_defaults(handler=cmd_run)
    export = cmds.add_parser("export", help="one file per accepted job, named from its row")
    export.add_argument("name")
    export.add_argument("--format", choices=("docx", "md"), default="docx")
    export.add_argument("--out", required=True, metavar="DIR")
    export.set_defaults(handler=cmd_export)


def _read(args: argparse.Namespace, paths: Paths) -> tuple[str, Table]:
    from pathlib import Path

    from drafting.batch.table import known_matters, read_table
    from drafting.tasks import read_instructions

    template = read_instructions(Path(args.instructions))
    matters = known_matters(paths.database_file)
    return template, read_table(Path(args.jobs), template, args.matter, args.task, matters.__contains__)


def print_dry_run(table: Table) -> None:
    for row in table.rows[:SHOWN_ROWS]:
        print(f"--- line {row.line_no} ({row.name}), {row.task} on {row.matter} " + "-" * 20)
        print(row.instructions.rstrip())
    extras = [r for r in table.rows if r.extra]
    if extras:
        print("\nColumns the template does not use (the row still runs):")
        for r in extras:
            print(f"  line {r.line_no}: {', '.join(r.extra)}")
    if table.problems:
        print(f"\nRows that cannot run ({len(table.problems)}); the others do:")
        for p in table.problems:
            print(f"  line {p.line_no}: {p.message}")
    print(f"\n{len(table.rows)} job(s) can run, {len(table.problems)} row(s) cannot.")


def cmd_new(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from drafting.batch.store import BatchStore
    from drafting.batch.table import BatchInputError

    template, table = _read(args, paths)
    print_dry_run(table)
    if args.dry_run:
        return exit_codes.CLEAN
    if not table.rows:
        raise BatchInputError("No row can run, so nothing was queued. Fix the rows listed above.")
    BatchStore(paths.database_file).create(
        args.name,
        args.matter,
        args.task,
        template,
        str(Path(args.jobs).resolve()),
        table.rows,
        table.problems,
    )
    print(f"Batch '{args.name}' queued. `chambers batch run {args.name}` runs it.")
    return exit_codes.CLEAN


def cmd_list(args: argparse.Namespace, paths: Paths) -> int:
    from drafting.batch.store import BatchStore
    from tui.cli.tables import show, table

    store = BatchStore(paths.database_file)
    batches = store.batches()
    listing = table("batch", "task", "matter", "jobs")
    for b in batches:
        counts = ", ".join(f"{n} {state}" for state, n in sorted(store.counts(b.id).items()))
        listing.add_row(b.name, b.task, b.matter, counts)
    if batches:
        show(listing)
    return exit_codes.CLEAN


def cmd_show(args: argparse.Namespace, paths: Paths) -> int:
    from drafting.batch.review import job_rows

    for line in job_rows(paths.database_file, args.name):
        print(line.text())
    return exit_codes.CLEAN


def cmd_run(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio

    from drafting.batch.runner import BatchRunner
    from drafting.tasks import seed_prompts
    from drafting.wiring import prompt_folder
    from tui.drafting.wiring import drafting_wiring
    from workspace.config import load_config

    config = load_config(paths.config_file)
    seed_prompts(prompt_folder(config))
    printer = _Printer()
    runner = BatchRunner(
        drafting_wiring(config, paths.database_file),
        one_at_a_time=args.one_at_a_time,
        retry_failed=args.retry_failed,
        on_progress=printer,
    )
    if args.plan:
        for line in asyncio.run(runner.plan(args.name)):
            print(line)
        return exit_codes.CLEAN
    try:
        final = asyncio.run(runner.run(args.name))
    except KeyboardInterrupt:
        print(
            f"\nStopped. Jobs in flight are kept as partial runs; `chambers batch run {args.name}` resumes."
        )
        return exit_codes.INTERRUPTED
    print(final.line())
    return exit_codes.BLOCKED if final.failed else exit_codes.CLEAN


class _Printer:
    """A progress line whenever the counts change (not at every poll)."""

    def __init__(self) -> None:
        self.last: tuple[int, ...] = ()

    def __call__(self, p: Progress) -> None:
        key = (p.done, p.running, p.failed, p.waiting, hash(p.note))
        if key != self.last:
            self.last = key
            print(p.line(), flush=True)


def cmd_export(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from corrections.store import iter_pairs
    from drafting.batch.export import export_batch
    from tui.drafting.wiring import issued_ranges_on
    from workspace.config import load_config

    accepted = {p.run_id for p in iter_pairs(paths.database_file) if p.run_id is not None}
    template = load_config(paths.config_file).export.template_path if paths.config_file.exists() else None
    done = export_batch(
        paths.database_file,
        args.name,
        args.format,
        Path(args.out),
        accepted,
        template=template,
        issued_ranges=issued_ranges_on(paths.database_file),
    )
    for path in done.written:
        print(f"wrote {path}")
    if done.refused:
        print(
            f"\nRefused ({len(done.refused)}): a blocking flag remains; open the job and resolve or override it."
        )
        for job, why in done.refused:
            print(f"  line {job.line_no} ({job.row_name}), run {job.run_id}: {why}")
    if done.not_accepted:
        print(
            f"\nNot accepted yet ({len(done.not_accepted)}): "
            + ", ".join(j.row_name for j in done.not_accepted)
        )
    if done.not_done:
        print(f"\nNot finished ({len(done.not_done)}): " + ", ".join(j.row_name for j in done.not_done))
    return exit_codes.BLOCKED if done.refused else exit_codes.CLEAN
