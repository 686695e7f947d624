"""``chambers verify DRAFT --matter M``: ground every citation, date, Bates number and quotation, or stop."""

from __future__ import annotations

import argparse
from typing import Any

from workspace.paths import Paths


def register(sub: Any) -> None:
    verify = sub.add_parser("verify", help="check a draft's citations, dates, Bates numbers and quotations")
    verify.add_argument("draft", help="the draft, as Markdown or plain text")
    verify.add_argument("--matter", required=True, help="the matter whose sources ground the draft")
    verify.add_argument(
        "--authorities", help="the matter holding your opinions (default: M-authorities or authorities)"
    )
    verify.add_argument(
        "--json", action="store_true", help="print the report as JSON (byte-identical on re-runs)"
    )
    verify.add_argument("--report", metavar="OUT.html", help="write a printable audit of every item checked")
    verify.add_argument(
        "--all", action="store_true", help="list grounded items too, not only blocks and warnings"
    )
    verify.add_argument("--override", metavar="KEY", help="let a blocking flag stand (needs --reason)")
    verify.add_argument("--reason", help="why the overridden flag may stand; recorded in the audit trail")
    verify.set_defaults(handler=cmd_verify)


def cmd_verify(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from drafting.verify import load_matter_index, may_export_final, record_override, verify_with
    from drafting.verify.errors import OverrideError
    from drafting.verify.eyecite_quick import quick_start
    from drafting.verify.report_html import render_html
    from drafting.verify.verifier import read_draft
    from exhibits.registry import issued_productions
    from workspace.paths import cache_dir, write_atomically

    if not paths.database_file.exists():
        from evidence.errors import MatterNotFound

        raise MatterNotFound(
            f"There is no matter named '{args.matter}' (no chambers database yet). Create one with `chambers matter new {args.matter} --sources DIR`."
        )
    quick_start(cache_dir())  # a one-shot process: eyecite builds only the reporters the texts need
    if args.report:
        from evidence.guard import check_output

        check_output(paths.database_file, Path(args.report), what="report path (--report)")
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
    if args.report:
        write_atomically(Path(args.report), render_html(report).encode("utf-8"))
    if args.json:
        print(report.to_json(), end="")
    else:
        _print_summary(report, show_all=args.all)
        if args.report:
            print(f"Report written to {args.report}")
    allowed, _ = may_export_final(report)
    return 0 if allowed else 1


def _print_summary(report: Any, *, show_all: bool) -> None:
    from drafting.verify import may_export_final

    counts = report.counts()
    for flag in report.flags:
        if flag.severity == "ok" and not show_all:
            continue
        mark = "OVERRIDDEN" if flag.key in report.overrides else flag.severity.upper()
        print(f"{mark:<10} {flag.kind:<10} {flag.start:>6}-{flag.end:<6} {flag.text!r}")
        print(f"           {flag.message}")
        for pointer in flag.evidence[:1]:
            bates = f" [{pointer.bates}]" if pointer.bates else ""
            print(f"           evidence: {pointer.file} p. {pointer.page}{bates}: {pointer.snippet[:100]}")
        if flag.severity == "block":
            print(f"           key: {flag.key}")
    allowed, why = may_export_final(report)
    print(
        f"{report.draft}: {counts['block']} blocking, {counts['warn']} to review, {counts['ok']} grounded, "
        f"{counts['overridden']} overridden (matter {report.matter}, authorities {report.authorities or 'none'})."
    )
    print(("Final export: allowed. " if allowed else "Final export: stopped. ") + why)
