"""``chambers matter new`` and ``chambers evidence ingest|search|audit|context``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from workspace.errors import ChambersError
from workspace.paths import Paths

if TYPE_CHECKING:
    from evidence.ingest import IngestEvent, IngestReport


def register(sub: Any) -> None:
    matter = sub.add_parser("matter", help="matters: named sets of source folders")
    matter_sub = matter.add_subparsers(dest="matter_command", required=True)
    new = matter_sub.add_parser("new", help="create a matter from its source folders")
    new.add_argument("name")
    new.add_argument("--sources", nargs="+", required=True, metavar="DIR", help="folders of primary sources")
    new.add_argument(
        "--library",
        action="store_true",
        help="a library of authorities (opinions the verifier checks citations against), not a record;"
        " without it, a name ending in 'authorities' is a library and any other a record",
    )
    new.set_defaults(handler=cmd_matter_new)
    matter_sub.add_parser("list", help="list the matters").set_defaults(handler=cmd_matter_list)

    evidence = sub.add_parser("evidence", help="ingest, search and audit a matter's primary sources")
    ev = evidence.add_subparsers(dest="evidence_command", required=True)
    ingest = ev.add_parser("ingest", help="read the matter's folders into the index (only changed files)")
    ingest.add_argument("matter")
    ingest.add_argument(
        "--password", action="append", default=[], metavar="FILE=PASSWORD", help="open an encrypted PDF"
    )
    ingest.add_argument(
        "--follow-links",
        action="store_true",
        help="also read what symbolic links outside the folders point to",
    )
    ingest.set_defaults(handler=cmd_ingest)
    search = ev.add_parser("search", help="full-text search, best matches first")
    search.add_argument("matter")
    search.add_argument("query", nargs="+")
    search.add_argument("--document", help="only files whose path or title contains this")
    search.add_argument("--from", dest="date_from", metavar="YYYY-MM-DD")
    search.add_argument("--to", dest="date_to", metavar="YYYY-MM-DD")
    search.add_argument("--bates", metavar="PFX-000010..PFX-000020")
    search.add_argument("--limit", type=int, default=10)
    search.set_defaults(handler=cmd_search)
    audit = ev.add_parser("audit", help="share of primary text, quarantined files, unread pages")
    audit.add_argument("matter")
    audit.set_defaults(handler=cmd_audit)
    context = ev.add_parser(
        "context", help="show exactly what the drafter would be given for a task, and store it"
    )
    context.add_argument("matter")
    context.add_argument("task", help="the instructions, e.g. 'Summarise the warranty dispute'")
    context.add_argument(
        "--type",
        default="freeform",
        help="the task type whose template frames them (as `chambers draft --task`)",
    )
    context.add_argument(
        "--role", help="whose backend's window and tokenizer to use; default: the type's drafter"
    )
    context.add_argument("--query", help="search words, when they differ from the instructions")
    context.add_argument(
        "--reserve", type=int, help="tokens kept free for the answer; default: what a run keeps"
    )
    context.set_defaults(handler=cmd_context)


def cmd_matter_new(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from evidence.matters import create_matter

    matter = create_matter(
        paths.database_file,
        args.name,
        [Path(s) for s in args.sources],
        kind="library" if args.library else None,
        config_folder=paths.config_file.parent,
        data_folder=paths.data_dir,
    )
    what = "Library" if matter.kind == "library" else "Matter"
    print(f"{what} '{matter.name}' created with {len(matter.sources)} source folder(s):")
    for source in matter.sources:
        print(f"  {source}")
    print(f"Next: chambers evidence ingest {matter.name}")
    return 0


def cmd_matter_list(args: argparse.Namespace, paths: Paths) -> int:
    from evidence.matters import list_matters

    matters = list_matters(paths.database_file)
    for matter in matters:
        print(f"{matter.name}: {', '.join(str(s) for s in matter.sources)}")
    if not matters:
        print(
            "No matters yet. Create one from the folders holding its sources with "
            "`chambers matter new NAME --sources DIR [DIR ...]`, then `chambers evidence ingest NAME`."
        )
    return 0


def cmd_ingest(args: argparse.Namespace, paths: Paths) -> int:
    passwords = {}
    for item in args.password:
        name, sep, secret = item.partition("=")
        if not sep:
            raise ChambersError(f"'{item}' is not FILE=PASSWORD, e.g. --password 'statement.pdf=hunter2'.")
        passwords[name] = secret
    report = run_ingest(paths, args.matter, passwords=passwords, follow_links=args.follow_links)
    return 0 if report is not None else 2


def run_ingest(
    paths: Paths,
    matter: str,
    *,
    passwords: dict[str, str] | None = None,
    out: Any = None,
    follow_links: bool = False,
) -> IngestReport:
    """Ingest with progress printed as it goes (also used by ``chambers demo``)."""
    from evidence.ingest import ingest_matter

    stream = out or sys.stdout

    def progress(event: IngestEvent) -> None:
        if event.stage == "file":
            print(f"  reading {event.path}", file=stream, flush=True)
        elif event.stage == "pages":
            print(f"    {event.pages_done}/{event.pages_total} pages", file=stream, flush=True)

    print(f"Ingesting matter '{matter}' ...", file=stream, flush=True)
    report = ingest_matter(
        paths.database_file,
        matter,
        progress=progress,
        passwords=passwords,
        output_roots=[paths.data_dir],
        follow_links=follow_links,
    )
    for notice in report.notices:
        print(f"  [{notice.kind}] {notice.message}", file=stream)
    print(
        f"Done: {len(report.ingested)} file(s) read ({report.pages} pages), {report.unchanged} unchanged, "
        f"{len(report.removed)} removed, {len(report.quarantined)} quarantined.",
        file=stream,
        flush=True,
    )
    return report


def cmd_search(args: argparse.Namespace, paths: Paths) -> int:
    from rich.console import Console
    from rich.text import Text

    from evidence.search import HIGHLIGHT, SearchFilters, search

    filters = SearchFilters(args.document, args.date_from, args.date_to, args.bates)
    hits = search(paths.database_file, args.matter, " ".join(args.query), filters=filters, limit=args.limit)
    console = Console(highlight=False, soft_wrap=True)
    if not hits:
        console.print("No pages match.")
    for hit in hits:
        where = f"{hit.path}{' (' + hit.part + ')' if hit.part else ''} p.{hit.page_no}"
        console.print(Text(f"{hit.bates or '-':<12} {where}  {hit.doc_date or ''}", style="bold"))
        snippet = Text("    ")
        for index, piece in enumerate(hit.snippet.replace(HIGHLIGHT[1], HIGHLIGHT[0]).split(HIGHLIGHT[0])):
            snippet.append(piece, style="reverse" if index % 2 else "")
        console.print(snippet)
    return 0


def cmd_audit(args: argparse.Namespace, paths: Paths) -> int:
    from evidence.report import audit_matter
    from tui.evidence.audit_text import audit_text

    audit = audit_matter(paths.database_file, args.matter)
    print(audit_text(audit))
    return 0 if audit.primary_share == 1.0 else 1


def setup_demo_matter(paths: Paths) -> int:
    """The demo's sample matter: generated under the home (not the data folder), ingested, audited."""
    from evidence.report import audit_matter
    from evidence.sample_matter import SAMPLE_MATTER, prepare_sample_matter
    from tui.evidence.audit_text import audit_text

    def progress(message: str) -> None:
        print(message, flush=True)

    root = paths.config_file.parent / "sample-matter"
    prepare_sample_matter(paths.database_file, root, progress)
    run_ingest(paths, SAMPLE_MATTER)
    print(audit_text(audit_matter(paths.database_file, SAMPLE_MATTER)), flush=True)
    print(f"Try: chambers evidence search {SAMPLE_MATTER} compressor", flush=True)
    return 0


def cmd_context(args: argparse.Namespace, paths: Paths) -> int:
    """The drafter's context for a task, chosen by the very builder a run uses (its window and /tokenize)."""
    import asyncio

    from backends.policy import check_backend
    from drafting.context import choose_context
    from drafting.options import PipelineOptions
    from drafting.stages.sources import task_text
    from drafting.tasks import task_type
    from evidence.context import save_context
    from workspace.config import load_config

    config = load_config(paths.config_file)
    kind = task_type(args.type)
    role = args.role or kind.drafter_role
    backend = config.backend_for_role(role)
    # A drafter the policy refuses is never sent this context: say so (exit 3), as a run would.
    check_backend(backend, config.policy, role)
    task = task_text(kind.name, args.task.strip(), paths.config_file.parent / "prompts")
    chosen = asyncio.run(
        choose_context(
            paths.database_file,
            args.matter,
            task,
            drafter=backend,
            policy=config.policy,
            rule=PipelineOptions().window,
            query=args.query or args.task.strip(),
            reserve=args.reserve,
        )
    )
    bundle = chosen.bundle
    context_id = save_context(paths.database_file, bundle)
    for message in bundle.messages:
        print(f"--- {message['role']} ---\n{message['content']}")
    print(
        f"--- context #{context_id}: {len(bundle.chunks)} source pages, {bundle.tokens}/{bundle.budget} tokens "
        f"(n_ctx {bundle.n_ctx}, counted by {bundle.counted_by}); {bundle.left_out} relevant pages did not fit"
        + (f"; {len(bundle.refused)} refused as not primary" if bundle.refused else "")
    )
    print(f"--- {chosen.note}")
    return 0
