"""``chambers authorities add FILE --cite ...`` and ``chambers authorities list``: the opinions the verifier trusts.

A library is a matter of opinions ('<matter>-authorities' or 'authorities' by default). ``add``
puts the file in it (copying it into the library's folder when it lies elsewhere), ingests it,
records the citations the attorney gives, and shows what the library now holds for it; an opinion
the library cannot index is always printed with the reason.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workspace.paths import Paths

DEFAULT_LIBRARY = "authorities"


def register(sub: Any) -> None:
    authorities = sub.add_parser("authorities", help="the opinions your citations are verified against")
    au = authorities.add_subparsers(dest="authorities_command", required=True)
    add = au.add_parser("add", help="add an opinion (PDF or text) and say its citations")
    add.add_argument("file", help="the opinion as distributed: a slip opinion PDF, a printout, a text")
    add.add_argument(
        "--cite",
        action="append",
        default=[],
        metavar="CITATION",
        help='its citation, e.g. "570 U.S. 297"; repeat for parallel citations ("133 S. Ct. 2411")',
    )
    _library_options(add)
    add.set_defaults(handler=cmd_add)
    listing = au.add_parser(
        "list", help="every opinion with its citations and caption, and what is not indexed"
    )
    _library_options(listing)
    listing.set_defaults(handler=cmd_list)


def _library_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--library", help=f"the library's name (default: M-authorities, or '{DEFAULT_LIBRARY}')"
    )
    parser.add_argument("--matter", help="the matter whose library this is (M-authorities)")


def _library_name(args: argparse.Namespace, paths: Paths) -> str:
    if args.library:
        return str(args.library)
    if args.matter and paths.database_file.exists():
        from drafting.verify import default_library

        return default_library(paths.database_file, args.matter) or f"{args.matter}-authorities"
    return f"{args.matter}-authorities" if args.matter else DEFAULT_LIBRARY


def cmd_add(args: argparse.Namespace, paths: Paths) -> int:
    from drafting.verify.library import add_opinion_file

    name = _library_name(args, paths)
    added = add_opinion_file(
        paths.database_file, name, Path(args.file), list(args.cite or []), [paths.data_dir]
    )
    for note in added.notes:
        print(note, flush=True)
    return _show(paths, name, only=added.file.name)


def cmd_list(args: argparse.Namespace, paths: Paths) -> int:
    from evidence.errors import MatterNotFound

    name = _library_name(args, paths)
    if not paths.database_file.exists():
        raise MatterNotFound(
            f"There is no authorities library '{name}' (no chambers database yet). "
            "Add an opinion with `chambers authorities add FILE --cite ...`."
        )
    return _show(paths, name)


def _show(paths: Paths, name: str, only: str | None = None) -> int:
    """Print the library's opinions; 1 when one shown is not indexed (so a script notices)."""
    from drafting.verify.eyecite_quick import quick_start
    from drafting.verify.index_cache import keep_in
    from drafting.verify.library import list_authorities
    from workspace.paths import cache_dir

    # read as `chambers verify` reads it, and kept, so the verify after an add does not read it again
    quick_start(cache_dir())
    keep_in(cache_dir())
    authorities = list_authorities(paths.database_file, name)
    shown = [a for a in authorities if only is None or a.file == only]
    indexed = [a for a in shown if a.citations]
    for a in indexed:
        print(f"{' = '.join(a.citations)}  {a.caption or '(caption not found)'}  [{a.file}]")
    missing = [a for a in shown if not a.citations]
    for a in missing:
        print(f"NOT INDEXED  {a.file}: {a.reason}")
    if only is None:
        print(f"{name}: {len(indexed)} opinion(s) indexed, {len(missing)} not indexed.")
    return 1 if missing else 0
