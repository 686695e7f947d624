"""``chambers exhibits stamp|bind|redact|log``: Bates productions, binders, redaction, and their logs.

Each has ``--dry-run``, which checks everything that can be checked (files
open, numbers fit and are free, outputs land nowhere they should not) and
prints the plan without writing a byte.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workspace.errors import ChambersError
from workspace.paths import Paths

if TYPE_CHECKING:
    from exhibits.find import PageRect
    from exhibits.stamp import Progress


def register(sub: Any) -> None:
    exhibits = sub.add_parser("exhibits", help="Bates stamping, binders and redaction of a matter's PDFs")
    ex = exhibits.add_subparsers(dest="exhibits_command", required=True)

    stamp = ex.add_parser("stamp", help="a Bates production: stamped copies, numbered on from the registry")
    stamp.add_argument("matter")
    stamp.add_argument("files", nargs="+", type=Path, metavar="PDF")
    stamp.add_argument("--prefix", required=True, help="e.g. HPP (stamps read HPP-000001)")
    stamp.add_argument("--start", type=int, help="first number (default: after the last one issued)")
    stamp.add_argument("--width", type=int, default=6, help="digits, zero-padded (default 6)")
    stamp.add_argument("--corner", default="bottom-right", help="bottom-right (default), bottom-left, ...")
    stamp.add_argument("--restamp", action="store_true", help="stamp pages that already carry a stamp")
    stamp.add_argument(
        "--out", type=Path, help="output folder (default: the matter's folder under chambers' data)"
    )
    stamp.add_argument("--dry-run", action="store_true", help="show the plan, write nothing")
    stamp.set_defaults(handler=cmd_stamp)

    bind = ex.add_parser("bind", help="one exhibit PDF: index, slip sheets, bookmarks, optional Bates")
    bind.add_argument("matter")
    bind.add_argument(
        "--exhibit",
        nargs=2,
        action="append",
        required=True,
        metavar=("PDF", "DESCRIPTION"),
        help="an exhibit, in order (repeat)",
    )
    bind.add_argument("--out", type=Path, help="the binder's file name")
    bind.add_argument("--prefix", help="Bates-stamp the whole binder with this prefix")
    bind.add_argument("--start", type=int)
    bind.add_argument("--width", type=int, default=6)
    bind.add_argument("--restamp", action="store_true")
    bind.add_argument("--dry-run", action="store_true")
    bind.set_defaults(handler=cmd_bind)

    redact = ex.add_parser(
        "redact",
        help="remove text for real, verified by re-reading every place a PDF keeps text",
        description="Terms and patterns are found however the text is spaced (5 3 1 - 4 4 ...), "
        "in page text, hidden layers and text off the page. Verification reads the saved file back "
        "in every place (pages with PyMuPDF, OCR and pdftotext; metadata, XMP, bookmarks, "
        "annotations, form fields, links, attachments, layer names, page labels, scripts, the "
        "structure tree; every object and "
        "decompressed stream) and writes nothing if any trace remains.",
    )
    redact.add_argument("matter")
    redact.add_argument("files", nargs="+", type=Path, metavar="PDF")
    redact.add_argument("--term", action="append", default=[], help="a word or phrase (repeat)")
    redact.add_argument(
        "--pattern",
        action="append",
        default=[],
        help="ssn, card, account, dob, email, phone, or all (repeat)",
    )
    redact.add_argument(
        "--rect",
        action="append",
        default=[],
        metavar="PAGE:x0,y0,x1,y1",
        help="a box in points from the page's visible top-left (repeat)",
    )
    redact.add_argument(
        "--ocr",
        choices=["auto", "always", "never"],
        default="auto",
        help="OCR scanned pages (auto), every page with a picture (always), or none",
    )
    redact.add_argument(
        "--scrub",
        action="store_true",
        help="also remove or rewrite metadata, XMP, bookmarks, annotations and popups, form "
        "fields, links, attachments, layer names, page labels, document scripts, named "
        "destinations, the structure tree and marked content holding the text",
    )
    redact.add_argument("--out", type=Path, help="output folder")
    redact.add_argument("--dry-run", action="store_true")
    redact.set_defaults(handler=cmd_redact)

    log = ex.add_parser("log", help="the matter's production log (Bates ranges per document)")
    log.add_argument("matter")
    log.add_argument("--csv", type=Path, help="write the log to this CSV file")
    log.add_argument("--dry-run", action="store_true", help="show what the CSV would hold, write nothing")
    log.add_argument("--bates", metavar="PFX-000123", help="which document and page carry this number")
    log.set_defaults(handler=cmd_log)


def default_out(paths: Paths, matter: str, kind: str) -> Path:
    from evidence.matters import check_matter_name

    check_matter_name(matter)
    return paths.data_dir / "exhibits" / matter / f"{kind}-{datetime.now():%Y%m%d-%H%M%S}"


def _progress(label: str) -> Any:
    state = {"last": -1}

    def show(event: Progress) -> None:
        percent = event.done * 100 // max(event.total, 1)
        if percent // 10 != state["last"] // 10 or event.done == event.total:
            state["last"] = percent
            print(f"  {label}: {event.done}/{event.total} pages ({event.document})", flush=True)

    return show


def cmd_stamp(args: argparse.Namespace, paths: Paths) -> int:
    from exhibits.numbering import bates_format
    from exhibits.stamp import plan_production, preview_shrinks, run_production

    out = args.out or default_out(paths, args.matter, "production")
    fmt = bates_format(args.prefix, args.width)
    plan = plan_production(
        paths.database_file,
        args.matter,
        args.files,
        fmt,
        out,
        start=args.start,
        corner=args.corner,
        restamp=args.restamp,
    )
    print("\n".join(plan.describe()))
    if args.dry_run:
        shrinks = preview_shrinks(plan)
        if shrinks:
            print("Pages whose content would be shrunk to make room for the stamp: " + _pages(shrinks))
        print("Dry run: nothing was written and no numbers were issued.")
        return 0
    result = run_production(paths.database_file, plan, _progress("stamping"))
    if result.plan.documents != plan.documents:
        print("A document could not be stamped, so the production was numbered again without it:")
        print("\n".join(result.plan.describe()))
    if result.shrunk:
        print("Content shrunk to make room for the stamp on: " + _pages(result.shrunk))
    print(f"Production #{result.production_id} written to {plan.out_dir}; log: {result.log_csv}")
    return 0


def _pages(pages: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name} p.{page}" for name, page in pages)


def cmd_bind(args: argparse.Namespace, paths: Paths) -> int:
    from exhibits.binder import Exhibit, plan_binder, run_binder
    from exhibits.numbering import bates_format

    exhibits = [Exhibit(Path(pdf), description) for pdf, description in args.exhibit]
    out = args.out or default_out(paths, args.matter, "binder") / "exhibits.pdf"
    fmt = bates_format(args.prefix, args.width) if args.prefix else None
    plan = plan_binder(
        paths.database_file, args.matter, exhibits, out, bates=fmt, start=args.start, restamp=args.restamp
    )
    print("\n".join(plan.describe()))
    if args.dry_run:
        print("Dry run: nothing was written and no numbers were issued.")
        return 0
    built = run_binder(paths.database_file, plan, _progress("binding"))
    if built.exhibits != plan.exhibits:
        print("An exhibit could not be copied, so the binder was laid out again without it:")
        print("\n".join(built.describe()))
    print(f"Binder written to {built.output}; exhibit list: {built.list_csv}")
    return 0


def parse_rect(value: str) -> PageRect:
    from exhibits.find import PageRect

    page, sep, coords = value.partition(":")
    try:
        x0, y0, x1, y1 = (float(v) for v in coords.split(","))
        if not sep or x1 <= x0 or y1 <= y0:
            raise ValueError
        return PageRect(int(page), (x0, y0, x1, y1))
    except ValueError:
        raise ChambersError(
            f"'{value}' is not a rectangle. Write PAGE:x0,y0,x1,y1 in points from the page's top-left, "
            "e.g. 2:72,100,300,130.",
            title="Rectangle not understood",
        ) from None


def cmd_redact(args: argparse.Namespace, paths: Paths) -> int:
    from exhibits.find import RedactionRequest
    from exhibits.patterns import PATTERNS, patterns_named
    from exhibits.pdfio import LeftOut, describe_left_out, guard_outputs, nothing_readable, readable_pdfs
    from exhibits.redact import plan_redaction, run_redaction

    names = list(PATTERNS) if "all" in args.pattern else args.pattern
    request = RedactionRequest(
        terms=tuple(args.term),
        patterns=tuple(patterns_named(names)),
        rects=tuple(parse_rect(r) for r in args.rect),
        ocr=args.ocr,
        scrub=args.scrub,
    )
    if not (request.terms or request.patterns or request.rects):
        raise ChambersError(
            "Say what to redact: --term WORD, --pattern ssn (or all), or --rect PAGE:x0,y0,x1,y1.",
            title="Nothing to redact",
        )
    out = args.out or default_out(paths, args.matter, "redacted")
    readable, left_out = readable_pdfs(args.files)
    if not readable:
        raise nothing_readable(left_out)
    files = [path for path, _ in readable]
    for line in describe_left_out(left_out):
        print(line)
    if args.dry_run:
        guard_outputs(paths.database_file, out, [out / f.name for f in files], "output folder (--out)")
        for item in plan_redaction(files, out, request):
            print("\n".join(item.describe()))
            if item.scrubbed:
                print(f"  would scrub: {', '.join(item.scrubbed)}")
        print(f"Dry run ({request.describe()}): nothing was written. Outputs would go to {out}")
        return 0
    failed: list[LeftOut] = []
    items = run_redaction(
        paths.database_file, args.matter, files, out, request, _progress("redacting"), failed
    )
    for line in describe_left_out(failed):
        print(line)
    for item in items:
        print("\n".join(item.describe()))
        print(f"  verified with {' + '.join(item.verified_with)}; log: {item.log_csv}")
        print(f"  checked: {item.checked}")
        if item.scrubbed:
            print(f"  scrubbed: {', '.join(item.scrubbed)}")
    print(f"Redacted copies written to {out}")
    return 0


def cmd_log(args: argparse.Namespace, paths: Paths) -> int:
    from exhibits.log import format_log, log_csv
    from exhibits.registry import matter_log
    from workspace.paths import write_atomically

    log = matter_log(paths.database_file, args.matter)
    for line in log.settled:  # a production a crash left unfinished is settled first
        print(line)
    rows, runs = log.rows, log.runs
    if args.bates:
        return _find_bates(paths, args.matter, args.bates)
    print(format_log(args.matter, rows, runs))
    if args.csv:
        from evidence.guard import check_output

        check_output(paths.database_file, args.csv, what="CSV path (--csv)")
        data = log_csv(rows)
        if args.dry_run:
            print(f"Dry run: {args.csv} would get {len(rows)} row(s); nothing was written.")
            sys.stdout.write(data.decode("utf-8"))
            return 0
        write_atomically(args.csv, data)
        print(f"Wrote {args.csv}")
    elif args.dry_run:
        print("Dry run: the log is only read; add --csv FILE to see what would be written.")
    return 0


def _find_bates(paths: Paths, matter: str, label: str) -> int:
    from evidence.bates import parse_bates
    from exhibits.registry import issued_page

    bates = parse_bates(label)
    if bates is None:
        raise ChambersError(
            f"'{label}' is not a Bates number. Write it as PREFIX-000123.",
            title="Bates number not understood",
        )
    hit = issued_page(paths.database_file, matter, bates.prefix, bates.number)
    if hit is None:
        print(
            f"{label} was not issued by a chambers production of '{matter}'. Try `chambers evidence search {matter} --bates {label} ...`."
        )
        return 1
    print(
        f"{hit.label}: {hit.source_path} page {hit.page_no} (sha256 {hit.source_sha256[:12]}...), stamped copy {hit.output_path}"
    )
    return 0


def setup_demo_exhibits(paths: Paths) -> int:
    """The demo matter's exhibits: a Bates production of the deposition (numbered on after the
    HPP stamps the evidence index read from the earlier production) and a trial binder.

    Run once per home: a matter that already has a production is left as it is.
    """
    from evidence.sample_matter import SAMPLE_MATTER
    from exhibits.binder import Exhibit, plan_binder, run_binder
    from exhibits.numbering import bates_format
    from exhibits.registry import has_production
    from exhibits.stamp import plan_production, run_production

    root = paths.config_file.parent / "sample-matter"
    deposition = root / "transcripts" / "calder-deposition-excerpt.pdf"
    production = root / "production"
    exhibits = [
        Exhibit(
            production / "01-supply-agreement.pdf",
            "Equipment Supply and Installation Agreement, Jan. 10, 2024",
        ),
        Exhibit(
            production / "05-delivery-receipt-scan.pdf",
            "Delivery receipt, Apr. 19, 2024 (compressor B not delivered)",
        ),
        Exhibit(production / "04-invoice-inv-1102.pdf", "Invoice INV-1102, final instalment, May 28, 2024"),
    ]
    out = paths.data_dir / "exhibits" / SAMPLE_MATTER
    db_path = paths.database_file
    if has_production(db_path, SAMPLE_MATTER):
        print(f"Exhibits: the demo production and binder are in {out}", flush=True)
        return 0
    plan = plan_production(db_path, SAMPLE_MATTER, [deposition], bates_format("HPP", 6), out / "production-2")
    binder = plan_binder(db_path, SAMPLE_MATTER, exhibits, out / "binder" / "trial-exhibits.pdf")
    result = run_production(paths.database_file, plan)
    print(
        f"Exhibits: deposition stamped {plan.fmt.label(plan.first)}..{plan.fmt.label(plan.last)} in {plan.out_dir}"
    )
    run_binder(paths.database_file, binder)
    print(
        f"Exhibits: binder of {len(exhibits)} exhibits ({binder.pages} pages) at {binder.output}", flush=True
    )
    print(f"Try: chambers exhibits log {SAMPLE_MATTER}   (or F3 in the workstation)", flush=True)
    return 0 if result.production_id else 1
