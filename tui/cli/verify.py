"""``chambers verify DRAFT --matter M``: ground every citation, date, Bates number and quotation, or stop."""

from __future__ import annotations

import argparse
from typing import Any

from tui.cli import exit_codes
from workspace.paths import Paths


def register(sub: Any) -> None:
    verify = sub.add_parser(
        "verify",
        help="check a draft's citations, dates, Bates numbers and quotations",
        description="Each item is verified (the sources say it), contradicted (they say otherwise) or "
        "unverifiable (chambers cannot check it here: the opinion is not in the library, this copy has no "
        "page numbers, the library lacks the decision year, or the opinion was added without a citation).",
        epilog="verify's own exit status: 0 when nothing is contradicted and every unverifiable item is\n"
        "acknowledged; 1 when anything is contradicted (not overridden); 4 when nothing is contradicted\n"
        "but unverifiable items are not yet acknowledged (acknowledge each with --acknowledge KEY, or add\n"
        "the opinion with `chambers authorities add FILE`).\n\n" + exit_codes.HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("draft", help="the draft, as Markdown or plain text")
    verify.add_argument("--matter", required=True, help="the matter whose sources ground the draft")
    verify.add_argument(
        "--authorities", help="the matter holding your opinions (default: M-authorities or authorities)"
    )
    verify.add_argument(
        "--json", action="store_true", help="print the report as JSON (byte-identical on re-runs)"
    )
    verify.add_argument(
        "--report",
        metavar="OUT.docx|pdf|html|json",
        help="write the cite-check report: every citation's verdict, passage, support and sources",
    )
    verify.add_argument(
        "--support",
        action="store_true",
        help="have the support model (the reviewer's backend) judge whether each cited passage says it",
    )
    verify.add_argument(
        "--all", action="store_true", help="list grounded items too, not only blocks and warnings"
    )
    verify.add_argument("--override", metavar="KEY", help="let a blocking flag stand (needs --reason)")
    verify.add_argument("--reason", help="why the overridden flag may stand; recorded in the audit trail")
    verify.add_argument(
        "--acknowledge",
        metavar="KEY",
        help="let an unverifiable item stand unchecked (who and when are recorded; --reason adds a note)",
    )
    verify.set_defaults(handler=cmd_verify)


def cmd_verify(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from drafting.verify import (
        load_matter_index,
        record_acknowledgement,
        record_override,
        verify_with,
    )
    from drafting.verify.errors import OverrideError
    from drafting.verify.eyecite_quick import quick_start
    from drafting.verify.index_cache import keep_in
    from drafting.verify.verifier import read_draft
    from exhibits.registry import issued_productions
    from workspace.paths import cache_dir

    if not paths.database_file.exists():
        from evidence.errors import MatterNotFound

        raise MatterNotFound(
            f"There is no matter named '{args.matter}' (no chambers database yet). Create one with `chambers matter new {args.matter} --sources DIR`."
        )
    quick_start(cache_dir())  # a one-shot process: eyecite builds only the reporters the texts need
    keep_in(cache_dir())  # and reads an unchanged library as the last run left it, not anew
    if args.report:
        from evidence.guard import check_output

        check_output(paths.database_file, Path(args.report), what="report path (--report)")
        from drafting.support.report_files import check_format

        check_format(Path(args.report))
    draft = Path(args.draft)
    text = read_draft(draft)
    issued = issued_productions(paths.database_file, args.matter)
    index = load_matter_index(paths.database_file, args.matter, args.authorities, productions=issued)
    report = verify_with(paths.database_file, text, draft.name, index)
    if index.library is not None and index.library.unindexed and not args.json:
        # never silent: an opinion the library could not index cannot verify anything cited to it
        for missing in index.library.unindexed:
            print(f"NOT INDEXED {missing.file}: {missing.reason}")
    if args.override:
        if not args.reason:
            raise OverrideError(
                'Give the reason with --reason "...": an override without a written reason is not recorded.'
            )
        record_override(paths.database_file, report, args.override, args.reason)
    if args.acknowledge:
        record_acknowledgement(paths.database_file, report, args.acknowledge, args.reason or "")
    if args.report or args.support:
        _support_report(args, paths, text, report, index)
    if args.json:
        print(report.to_json(), end="")
    else:
        _print_summary(report, show_all=args.all)
        if args.report:
            print(f"Report written to {args.report}")
    return exit_status(report)


def _support_report(args: argparse.Namespace, paths: Paths, text: str, report: Any, index: Any) -> None:
    """Pair every citation with its passage (and, with --support, the model's judgement); write the report."""
    from pathlib import Path

    from drafting.support.check import citecheck_of, support_check, write_report

    config = None
    if args.support:
        from workspace.config import load_config

        config = load_config(paths.config_file)

    def progress(done: int, total: int) -> None:
        if not args.json:
            print(
                f"\rsupport: {done}/{total} citations judged", end="\n" if done == total else "", flush=True
            )

    pairs, judgements = support_check(paths.database_file, text, report, index, config, progress=progress)
    if args.report:
        write_report(Path(args.report), report, citecheck_of(report, index, pairs, judgements))


def exit_status(report: Any) -> int:
    """1 on anything contradicted; 4 when only unacknowledged unverifiable items stop the draft; else 0."""
    from tui.cli import exit_codes

    blocking = report.blocking
    if any(f.verdict == "contradicted" for f in blocking):
        return exit_codes.BLOCKED
    return exit_codes.UNVERIFIABLE if blocking else exit_codes.CLEAN


def _print_summary(report: Any, *, show_all: bool) -> None:
    from drafting.verify import may_export_final

    counts = report.counts()
    for flag in report.flags:
        if flag.severity == "ok" and not show_all:
            continue
        mark = _mark(flag, report)
        print(f"{mark:<14} {flag.kind:<10} {flag.start:>6}-{flag.end:<6} {flag.text!r}")
        print(f"           {flag.message}")
        for pointer in flag.evidence[:1]:
            bates = f" [{pointer.bates}]" if pointer.bates else ""
            print(f"           evidence: {pointer.file} p. {pointer.page}{bates}: {pointer.snippet[:100]}")
        if flag.severity == "block":
            how = "--acknowledge" if flag.verdict == "unverifiable" else "--override"
            print(f"           key: {flag.key} ({how} {flag.key})")
    allowed, why = may_export_final(report)
    print(
        f"{report.draft}: {counts['contradicted']} contradicted, {counts['unverifiable']} unverifiable, "
        f"{counts['verified']} verified; {counts['overridden']} overridden, {counts['acknowledged']} acknowledged, "
        f"{counts['warn']} to review (matter {report.matter}, authorities {report.authorities or 'none'})."
    )
    print(("Final export: allowed. " if allowed else "Final export: stopped. ") + why)


def _mark(flag: Any, report: Any) -> str:
    """The verdict first, so an unverifiable item never reads like a verified one."""
    if flag.key in report.overrides:
        return "ACKNOWLEDGED" if flag.verdict == "unverifiable" else "OVERRIDDEN"
    if flag.verdict == "verified":
        return "VERIFIED" if flag.severity == "ok" else "VERIFIED(warn)"
    return flag.verdict.upper()
