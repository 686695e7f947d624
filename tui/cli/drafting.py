"""``chambers draft`` runs the pipeline; ``chambers runs list|show|resume`` reads and continues runs.

Progress goes out as each stage starts and ends, so the attorney sees which
server is working; with ``--json`` it goes to stderr and stdout carries only
the run as JSON. Exit codes (``tui.cli.exit_codes``): 0 the run completed and its draft may be exported
as final, 1 the gate found no basis or a blocking flag stops the final export, 3 a stage's server
refused or is down, 2 any other chambers error, 130 cancelled with Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TextIO

from tui.cli import exit_codes
from workspace.paths import Paths

if TYPE_CHECKING:
    from drafting.events import PipelineEvent
    from drafting.runs import Run
    from drafting.session import DraftingSession


def register(sub: Any) -> None:
    draft = sub.add_parser(
        "draft", help="draft a document through router, gate, drafter, reviewer and verifier"
    )
    draft.add_argument("--matter", required=True, help="the matter whose sources ground the draft")
    draft.add_argument(
        "--task",
        required=True,
        help="motion, declaration, demand-letter, intake-memo, summary, financial-extraction or freeform",
    )
    draft.add_argument(
        "--instructions", required=True, metavar="FILE", help="a text file saying what to draft"
    )
    draft.add_argument("--drafter", help="heavy (hard reasoning) or workhorse; default: the task's rule")
    draft.add_argument(
        "--max-context",
        type=int,
        metavar="TOKENS",
        help="fit the sources into at most this many tokens of context (default: the drafter's whole window)",
    )
    _choice_arguments(draft)
    draft.set_defaults(handler=cmd_draft)

    runs = sub.add_parser("runs", help="pipeline runs: list, show, resume")
    cmds = runs.add_subparsers(dest="runs_command", required=True)
    ls = cmds.add_parser("list", help="the newest runs")
    ls.add_argument("--limit", type=int, default=20)
    ls.set_defaults(handler=cmd_runs_list)
    show = cmds.add_parser(
        "show", help="a run: each stage's backend, model, build, timings, context and output"
    )
    show.add_argument("run", type=int)
    show.add_argument("--messages", action="store_true", help="print every message exactly as sent")
    show.add_argument("--json", action="store_true", help="the whole run as JSON")
    show.set_defaults(handler=cmd_runs_show)
    resume = cmds.add_parser("resume", help="continue a run from its first stage not completed")
    resume.add_argument("run", type=int)
    _choice_arguments(resume)
    resume.set_defaults(handler=cmd_runs_resume)


def _choice_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reroute",
        action="append",
        default=[],
        metavar="STAGE=BACKEND",
        help="run one stage on another configured backend (recorded in the run)",
    )
    parser.add_argument("--reason", default="", help="why you rerouted a stage; recorded")
    parser.add_argument(
        "--go-on-anyway", metavar="REASON", help="go on although the gate found no basis; recorded"
    )
    parser.add_argument("--json", action="store_true", help="print the finished run as JSON")


def _session(paths: Paths, out: TextIO, max_context: int | None = None) -> DraftingSession:
    """The drafting session the workstation's screen drives, wired the same way, its prompts seeded."""
    from drafting.options import PipelineOptions
    from drafting.tasks import seed_prompts
    from drafting.wiring import prompt_folder
    from tui.drafting.wiring import drafting_session
    from workspace.config import load_config

    config = load_config(paths.config_file)
    prompts = prompt_folder(config)
    seeded = seed_prompts(prompts)
    if seeded:
        print(
            f"Prompt templates written to {prompts} ({len(seeded)} files); edit them to change the prompts.",
            file=out,
        )
    return drafting_session(
        config, paths.database_file, options=PipelineOptions(max_context_tokens=max_context)
    )


def _reroutes(values: list[str]) -> list[tuple[str, str]]:
    from drafting.tasks import DraftingInputError

    out = []
    for value in values:
        stage, _, backend = value.partition("=")
        if not stage.strip() or not backend.strip():
            raise DraftingInputError(
                f"--reroute takes STAGE=BACKEND, e.g. --reroute review=board-b; got '{value}'."
            )
        out.append((stage.strip(), backend.strip()))
    return out


def cmd_draft(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio
    from pathlib import Path

    from drafting.tasks import DraftingInputError, read_instructions

    out = sys.stderr if args.json else sys.stdout
    instructions = read_instructions(Path(args.instructions))
    if args.max_context is not None and args.max_context < 256:
        raise DraftingInputError(
            f"--max-context {args.max_context} leaves no room for sources: give 256 or more."
        )
    session = _session(paths, out, args.max_context)

    async def started() -> int:
        run = await session.start(args.matter, args.task, instructions, args.drafter)
        print(
            f"Run {run.id}: {run.task_type.replace('_', ' ')} over matter '{run.matter}'.",
            file=out,
            flush=True,
        )
        return run.id

    return _execute(session, asyncio.run(started()), args, out)


def cmd_runs_resume(args: argparse.Namespace, paths: Paths) -> int:
    out = sys.stderr if args.json else sys.stdout
    session = _session(paths, out)
    run, _ = session.load(args.run)
    print(f"Run {run.id}: resuming at {run.next_stage() or 'the end'}.", file=out, flush=True)
    return _execute(session, run.id, args, out)


def _execute(session: DraftingSession, run_id: int, args: argparse.Namespace, out: TextIO) -> int:
    import asyncio

    reroutes = _reroutes(args.reroute)
    asyncio.run(session.choose(run_id, reroutes=reroutes, reason=args.reason, go_on_anyway=args.go_on_anyway))
    try:
        outcome = asyncio.run(session.execute(run_id, lambda e: _progress(e, out)))
    except KeyboardInterrupt:
        print(f"\nCancelled. What was drafted is kept; `chambers runs resume {run_id}` continues.", file=out)
        return exit_codes.INTERRUPTED
    run = outcome.run
    if args.json:
        print(json.dumps(run_dict(run), indent=2, ensure_ascii=False))
    elif run.status == "completed":
        _print_result(run)
    return exit_codes.CLEAN if run.status == "completed" and _may_export_final(run) else exit_codes.BLOCKED


def _may_export_final(run: Run) -> bool:
    """The verifier's verdict on a completed run; a plan without a verify stage has no flags to block."""
    from drafting.stages import verify

    verified = verify.completed(run)
    return verified is None or verified.may_export_final


def _progress(event: PipelineEvent, out: TextIO) -> None:
    from drafting.events import DraftDelta, RunEnded, StageFinished, StageStarted

    if isinstance(event, StageStarted):
        where = f"backend '{event.backend}' at {event.url}" if event.backend else "code, no model"
        print(f"  {event.label:<19} {where} ...", file=out, flush=True)
    elif isinstance(event, StageFinished):
        said = f": {event.summary}" if event.status == "completed" else " (see below)"
        print(f"  {event.label:<19} {event.status} in {event.seconds:.1f} s{said}", file=out, flush=True)
    elif isinstance(event, RunEnded) and event.status == "stopped":  # a refusal is printed once, as the error
        print(f"Run {event.run_id} {event.status}: {event.message}", file=out, flush=True)
    elif isinstance(event, DraftDelta):
        pass  # the draft is printed whole at the end, with its flags


def _print_result(run: Run) -> None:
    from drafting.stages import verify

    verified = verify.completed(run)
    print(f"\n{run.context_note.capitalize()}.")
    print("\n--- draft " + "-" * 60)
    print(run.draft.rstrip())
    print("-" * 70)
    marks = verified.marks if verified else ()
    print(f"\nFlags on the draft ({len(marks)}, by position):")
    for m in marks:
        print(f"  {m.start:>5}-{m.end:<5} {m.source:<8} {m.severity:<6} {m.kind:<10} {m.text[:60]!r}")
        print(f"              {m.message}" + (f" Fix: {m.fix}" if m.fix else ""))
    apart = verified.unanchored if verified else ()
    if apart:
        print(f"\nReview findings whose quote is not in the draft ({len(apart)}):")
        for f in apart:
            print(f"  {f.severity:<6} {f.quote[:60]!r}: {f.problem}" + (f" Fix: {f.fix}" if f.fix else ""))
    if verified:
        print(
            ("\nFinal export: allowed. " if verified.may_export_final else "\nFinal export: stopped. ")
            + verified.why
        )


def run_dict(run: Run) -> dict[str, Any]:
    return asdict(run)


def cmd_runs_list(args: argparse.Namespace, paths: Paths) -> int:
    from drafting.store import RunStore

    if not paths.database_file.exists():
        print("No runs yet. Start one with `chambers draft --matter M --task T --instructions FILE`.")
        return 0
    from tui.cli.tables import show, table

    runs = RunStore(paths.database_file).list(args.limit)
    if not runs:
        print("No runs yet. Start one with `chambers draft --matter M --task T --instructions FILE`.")
        return 0
    listing = table("run", "created", "status", "task", "matter", "next", right=("run",))
    for run in runs:
        listing.add_row(
            str(run.id), run.created_at[:19], run.status, run.task_type, run.matter, run.next_stage() or "-"
        )
    show(listing)
    return 0


def cmd_runs_show(args: argparse.Namespace, paths: Paths) -> int:
    from drafting.runs import RunNotFound
    from drafting.store import RunStore
    from drafting.timings import timings_phrase

    if not paths.database_file.exists():
        raise RunNotFound(f"There is no run number {args.run} (no chambers database yet).")
    run = RunStore(paths.database_file).load(args.run)
    if args.json:
        print(json.dumps(run_dict(run), indent=2, ensure_ascii=False))
        return 0
    print(
        f"Run {run.id} ({run.status}): {run.task_type} over matter '{run.matter}', drafter role '{run.drafter_role}'"
    )
    print(f"Created {run.created_at}; plan: {' -> '.join(run.plan)}; next: {run.next_stage() or 'nothing'}")
    print(f"Instructions: {run.instructions}")
    for choice in run.choices:
        print(
            f"Attorney's choice ({choice.at[:19]}): {choice.kind} {choice.stage or ''} -> {choice.value}: {choice.reason}"
        )
    print(f"\nEvidence given to the models: {run.context_note or 'none built yet'}")
    for s in run.sources:
        part = f" ({s.part})" if s.part else ""
        print(
            f"  [{s.label}] {s.path}{part} page {s.page_no}, Bates {s.bates or 'none'}, sha256 {s.sha256[:16]}, primary"
        )
    for st in run.stages:
        where = (
            f"backend '{st.backend}' at {st.url}, model {st.model or '?'}, build {st.server_build or '?'}"
            if st.backend
            else "code, no model"
        )
        print(f"\n#{st.seq} {st.stage} [{st.status}] role {st.role or '-'}; {where}")
        timing = f"{st.seconds:.2f} s" if st.seconds is not None else "unfinished"
        if st.timings:
            timing += f"; {timings_phrase(st.timings)}"
        print(f"   started {st.started_at[:19]}; {timing}")
        if st.error:
            print(f"   error: {st.error}")
        for m in st.messages:
            body = (
                m["content"]
                if args.messages
                else m["content"][:160].replace("\n", " ") + ("..." if len(m["content"]) > 160 else "")
            )
            print(f"   > {m['role']}: {body}")
        if st.output:
            print(f"   < {st.output if args.messages else st.output[:300]}")
    return 0
