"""``chambers bench --sweep PROFILE --vary KEY=V1,V2``: the sweep's progress, table and storage."""

from __future__ import annotations

import argparse
import json
import sys
import uuid

from workspace.paths import Paths


def bench_lengths(text: str) -> tuple[int, ...]:
    """The prompt lengths of ``--lengths 500,4000`` for a bench or a sweep, in tokens."""
    from workspace.errors import ChambersError

    try:
        lengths = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        lengths = ()
    if not lengths or min(lengths) <= 0:
        raise ChambersError(
            f"--lengths takes token counts such as 500,4000; got '{text}'.", title="Bad --lengths"
        )
    return lengths


def cmd_sweep(args: argparse.Namespace, paths: Paths) -> int:
    from backends.fleet.bench import BenchSettings
    from backends.fleet.profiles import profile_named
    from backends.fleet.serve import binary_for, check_model_file
    from backends.fleet.store import save_sweep
    from backends.fleet.sweep import Variant, run_sweep
    from tui.cli.fleet_tables import sweep_notes, sweep_table
    from tui.cli.tables import show
    from workspace.audit import AuditLog
    from workspace.config import load_config
    from workspace.errors import ChambersError

    if not args.sweep:
        raise ChambersError(
            "--vary needs --sweep PROFILE: the profile whose flags it varies.", title="Bad options"
        )
    if args.warmup < 0 or args.runs < 1 or args.max_tokens < 1:
        raise ChambersError(
            "--warmup must be 0 or more, --runs and --max-tokens 1 or more.", title="Bad options"
        )
    config = load_config(paths.config_file)
    profile = profile_named(config, args.sweep)
    check_model_file(profile)
    settings = BenchSettings(bench_lengths(args.lengths), args.warmup, args.runs, args.max_tokens)
    binary = binary_for(profile, build=True, progress=lambda m: print(m, file=sys.stderr))
    assert binary is not None  # build=True builds or raises

    def announce(i: int, total: int, variant: Variant) -> None:
        print(f"[{i + 1}/{total}] {variant.label}: starting the server", file=sys.stderr, flush=True)

    rows = []
    interrupted = False
    try:
        rows = run_sweep(
            profile,
            args.vary,
            binary,
            settings,
            AuditLog(paths.database_file),
            paths.data_dir / "logs",
            on_variant=announce,
        )
    except KeyboardInterrupt:
        interrupted = True
    board = profile.boards[0] if len(profile.boards) == 1 else None
    save_sweep(paths.database_file, uuid.uuid4().hex, board, rows)
    if args.json:
        out = [
            {
                "variant": r.variant,
                "command": r.command,
                "environment": r.environment,
                "error": r.error,
                "results": [x.as_dict() for x in r.results if x.runs],
            }
            for r in rows
        ]
        print(json.dumps({"profile": profile.name, "rows": out, "interrupted": interrupted}, indent=2))
    else:
        show(sweep_table(rows, args.floor))
        print("\n".join(sweep_notes(rows)))
        _print_agreement(paths, {r.model for r in rows})
        print_measured(paths, {r.model for r in rows})
    if interrupted:
        print("Stopped by Ctrl-C; the finished variants are stored.", file=sys.stderr)
        return 130
    return 1 if rows and all(r.error for r in rows) else 0


def print_measured(paths: Paths, model_files: set[str]) -> None:
    """What ``chambers experts`` and ``requant`` stored about each benched model file, where they did."""
    from backends.fleet.model_notes import model_notes
    from backends.fleet.store import experts_by_model_file, requants_by_model_file

    experts, requants = (
        experts_by_model_file(paths.database_file),
        requants_by_model_file(paths.database_file),
    )
    for name in sorted(model_files):
        notes = model_notes(name, experts, requants)
        if notes:
            print("\n".join([f"{name}:", *(f"  {note}" for note in notes)]))


def _print_agreement(paths: Paths, model_files: set[str]) -> None:
    """Quality beside speed: each swept model file's latest ``chambers agree`` result, if it has one."""
    from backends.fleet.store import latest_by_model_file

    stored = latest_by_model_file(paths.database_file)
    for name in sorted(model_files):
        a = stored.get(name)
        if a is None:
            print(f"{name}: no agreement measured yet (chambers agree --reference REF --candidate {name})")
        else:
            print(f"{name}: {a.short()} against {a.reference_file.rsplit('/', 1)[-1]} on {a.corpus}")
