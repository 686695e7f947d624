"""``chambers corrections``: export the training set, the statistics per model, and the pairs themselves."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from workspace.errors import ChambersError
from workspace.paths import Paths


def register(sub: Any) -> None:
    top = sub.add_parser("corrections", help="the attorney's edits as training pairs: export, stats, list")
    cmds = top.add_subparsers(dest="corrections_command", required=True)

    ex = cmds.add_parser("export", help="write the pairs as SFT, DPO, KTO or full-record JSONL")
    ex.add_argument("--format", required=True, choices=["sft", "dpo", "kto", "pairs"])
    ex.add_argument("--out", required=True, metavar="FILE.jsonl")
    ex.add_argument("--task", help="only this task type")
    ex.add_argument("--model", help="only drafts by this model")
    ex.add_argument("--matter", help="only this matter")
    ex.add_argument("--since", metavar="YYYY-MM-DD", help="only pairs accepted on or after this date")
    ex.add_argument(
        "--min-edit-ratio", type=float, metavar="R", help="only drafts he changed at least this much"
    )
    ex.add_argument("--paragraphs", action="store_true", help="one row per edited paragraph")
    ex.add_argument(
        "--scrub", action="store_true", help="replace each matter's party names with placeholders"
    )
    ex.add_argument("--include-excluded", action="store_true", help="also pairs you excluded")
    ex.add_argument(
        "--split", choices=["train", "eval"], help="only the pairs an adapter trained on, or held out"
    )
    ex.add_argument("--adapter", metavar="NAME", help="the adapter whose --split to write")
    ex.add_argument(
        "--support-out",
        metavar="FILE.jsonl",
        help="also write the support judgements you marked wrong, as training rows for the support role "
        "(--format kto or pairs; --matter and --since apply)",
    )
    ex.set_defaults(handler=cmd_export)

    cmds.add_parser("stats", help="drafts, edit ratios and trend per model and task type").set_defaults(
        handler=cmd_stats
    )
    imp = cmds.add_parser("import", help="add (prompt, draft, final) pairs from another tool's JSONL file")
    imp.add_argument("file", metavar="FILE.jsonl")
    imp.set_defaults(handler=cmd_import)
    ls = cmds.add_parser("list", help="the newest pairs")
    ls.add_argument("--limit", type=int, default=30)
    ls.set_defaults(handler=cmd_list)
    show = cmds.add_parser("show", help="one pair as a redline: [-removed-] {+added+}")
    show.add_argument("id", type=int)
    show.set_defaults(handler=cmd_show)
    exclude = cmds.add_parser("exclude", help="keep a pair but leave it out of every export")
    exclude.add_argument("id", type=int)
    exclude.add_argument("--undo", action="store_true", help="include it again")
    exclude.set_defaults(handler=cmd_exclude)
    delete = cmds.add_parser("delete", help="remove a pair for good")
    delete.add_argument("id", type=int)
    delete.add_argument("--yes", action="store_true", help="confirm: the pair cannot be brought back")
    delete.set_defaults(handler=cmd_delete)
    parties = cmds.add_parser("parties", help="a matter's party names and their scrub placeholders")
    parties.add_argument("matter")
    parties.add_argument("--add", metavar="NAME", help="add a party name")
    parties.add_argument("--same-as", metavar="NAME", help="the new name is a variant of this party")
    parties.add_argument(
        "--propose", action="store_true", help="list the parties the matter's documents name, numbered"
    )
    parties.add_argument(
        "--confirm", metavar="all|N,N", help="record proposals (all, or their numbers) for the scrub"
    )
    parties.set_defaults(handler=cmd_parties)
    save = cmds.add_parser("save", help="save a correction from a pipeline run and your final text")
    save.add_argument("run", type=int, help="the run number")
    save.add_argument("final", help="the file holding your final text")
    save.set_defaults(handler=cmd_save)


def cmd_export(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from rich.progress import Progress

    from corrections.export import export
    from corrections.store import PairFilters

    filters = PairFilters(
        task=args.task,
        model=args.model,
        since=args.since,
        min_edit_ratio=args.min_edit_ratio,
        matter=args.matter,
        include_excluded=args.include_excluded,
    )
    split = None
    if (args.split is None) != (args.adapter is None):
        raise ChambersError(
            "--split and --adapter go together: --split train --adapter NAME writes the pairs NAME was "
            "trained on, --split eval the ones held out to measure it.",
            title="Incomplete export options",
        )
    if args.split is not None:
        from corrections.adapters import get_adapter

        record = get_adapter(paths.database_file, args.adapter)
        ids = record.train_pair_ids if args.split == "train" else record.held_out_pair_ids
        split = (f"{record.name} {args.split}", frozenset(ids))
    if args.support_out:
        from corrections.support_export import check_support_format

        check_support_format(args.format)  # before minutes of pairs, not after
    with Progress(transient=True) as bar:
        job = bar.add_task("Exporting pairs", total=None)
        summary = export(
            paths.database_file,
            Path(args.out),
            args.format,
            filters,
            paragraphs=args.paragraphs,
            scrub=args.scrub,
            progress=lambda done, total: bar.update(job, completed=done, total=total),
            split=split,
        )
    print("\n".join(summary.lines()))
    _export_support(args, paths, filters)
    return 0


def _export_support(args: argparse.Namespace, paths: Paths, filters: Any) -> None:
    """The support role's rows beside the pairs: written when asked, else counted and pointed to."""
    from pathlib import Path

    from corrections.support_export import export_support, marks_left_out

    if args.support_out:
        written = export_support(
            paths.database_file, Path(args.support_out), args.format, filters, scrub=args.scrub
        )
        print("\n".join(written.lines()))
        return
    waiting = marks_left_out(paths.database_file, filters)
    if waiting:
        print(
            f"{waiting} support judgements you marked wrong are not in this export: add --support-out "
            "FILE.jsonl (with --format kto or pairs) to write them as training rows for the support role."
        )


def cmd_stats(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.stats import compute_stats, stats_table
    from tui.corrections.model_names import stored_model_names
    from workspace.config import load_config

    try:
        config = load_config(paths.config_file)
    except ChambersError:  # no config (or a broken one): the stored names are shown as they are
        config = None
    names = stored_model_names(config, paths.database_file)
    print("\n".join(stats_table(compute_stats(paths.database_file, names))))
    return 0


def cmd_list(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.store import list_pairs
    from tui.cli.tables import show, table

    pairs = list_pairs(paths.database_file, limit=args.limit)
    if not pairs:
        print("No correction pairs yet.")
        return 0
    listing = table("pair", "accepted", "model", "task", "edit", "", right=("pair", "edit"))
    for p in pairs:
        listing.add_row(
            str(p.id),
            p.accepted_at[:16],
            p.model_label,
            p.task_type,
            f"{p.edit_ratio:.1%}",
            "excluded" if p.excluded else "",
        )
    show(listing)
    return 0


def cmd_import(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from corrections.import_pairs import import_pairs

    file = Path(args.file)
    print(import_pairs(paths.database_file, file).line(file))
    return 0


def cmd_show(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.redline import redline, redline_markup
    from corrections.store import get_pair

    pair = get_pair(paths.database_file, args.id)
    print(f"Pair {pair.id}: {pair.task_type}, {pair.model_label}, edit ratio {pair.edit_ratio:.1%}")
    if pair.origin:
        print(f"Imported from {pair.origin}")
    print(redline_markup(redline(pair.draft, pair.final)))
    return 0


def cmd_exclude(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.store import set_excluded

    set_excluded(paths.database_file, args.id, not args.undo)
    print(f"Pair {args.id} is {'included in' if args.undo else 'excluded from'} exports.")
    return 0


def cmd_delete(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.store import delete_pair

    if not args.yes:
        raise ChambersError(
            f"Deleting pair {args.id} cannot be undone. Add --yes to confirm, or use `chambers corrections "
            f"exclude {args.id}` to keep it out of exports instead.",
            title="Not deleted: confirm with --yes",
        )
    delete_pair(paths.database_file, args.id)
    print(f"Pair {args.id} deleted.")
    return 0


def cmd_parties(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.party_forms import shorter_forms
    from corrections.party_proposals import check_matter
    from corrections.scrub import add_party, party_list

    check_matter(paths.database_file, args.matter)
    if args.add:
        print(f"{args.add} -> {add_party(paths.database_file, args.matter, args.add, same_as=args.same_as)}")
    if args.propose or args.confirm:
        _proposals(args, paths)
    listed = party_list(paths.database_file, args.matter)
    if listed:
        from tui.cli.tables import show, table

        parties = table("placeholder", "party")
        for name, placeholder in listed.items():
            parties.add_row(placeholder, name)
        for placeholder, forms in shorter_forms(listed).items():
            parties.add_row(placeholder, f"and its shorter forms: {', '.join(forms)}")
        show(parties)
    return 0


def _proposals(args: argparse.Namespace, paths: Paths) -> None:
    from corrections.party_proposals import choose, confirm_parties, propose_parties, unconfirmed

    proposals = unconfirmed(
        paths.database_file, args.matter, propose_parties(paths.database_file, args.matter)
    )
    if not proposals:
        print(
            f"The documents of {args.matter} name no party that is not confirmed already. Add any other "
            f"with `chambers corrections parties {args.matter} --add 'NAME'`."
        )
        return
    if args.confirm:
        for name, placeholder in confirm_parties(
            paths.database_file, args.matter, choose(proposals, args.confirm)
        ).items():
            print(f"{name} -> {placeholder}")
        return
    print(f"Parties named in the documents of {args.matter}, not confirmed yet:")
    for number, party in enumerate(proposals, start=1):
        print(f"{number:>3}. {party.line()}")
    print(
        f"Confirm them with `chambers corrections parties {args.matter} --confirm all`, or only some: "
        "--confirm 1,3. Names they miss: --add 'NAME'."
    )


def cmd_save(args: argparse.Namespace, paths: Paths) -> int:
    from pathlib import Path

    from corrections.from_run import capture_from_run
    from drafting.store import RunStore

    run = RunStore(paths.database_file).load(args.run)
    result = capture_from_run(
        paths.database_file, run, Path(args.final).read_text(encoding="utf-8"), trigger="save"
    )
    line = result.redline
    what = "Saved as" if result.stored else "Already saved as"
    print(
        f"{what} pair {result.pair_id}: {line.words_added} words added, {line.words_removed} removed, "
        f"edit ratio {line.edit_ratio:.1%}.",
        file=sys.stdout,
    )
    return 0
