"""``chambers doctor`` and ``chambers bench``: the fleet from the command line."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tui.cli import exit_codes
from workspace.paths import Paths


def register(sub: Any) -> None:
    from tui.cli import fleet_agree, fleet_serve

    fleet_serve.register(sub)
    fleet_agree.register(sub)
    doctor = sub.add_parser("doctor", help="check the config, the GPU boards and every backend")
    doctor.add_argument("--json", action="store_true", help="print a machine-readable report")
    doctor.set_defaults(handler=cmd_doctor)
    bench = sub.add_parser("bench", help="measure prefill and generation speed of each backend")
    bench.add_argument("--backend", action="append", help="only this backend (repeat for several)")
    bench.add_argument(
        "--lengths", default="500,4000,16000", help="prompt lengths in tokens (capped by n_ctx)"
    )
    bench.add_argument("--warmup", type=int, default=3, help="warm-up calls per length, not counted")
    bench.add_argument("--runs", type=int, default=10, help="counted runs per length")
    bench.add_argument("--max-tokens", type=int, default=128, help="tokens generated per run")
    bench.add_argument("--json", action="store_true", help="print the results as JSON")
    bench.add_argument(
        "--sweep", metavar="PROFILE", help="start PROFILE once per --vary combination and bench each"
    )
    bench.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="with --sweep: n-cpu-moe, np, c, ngl, ts, sm, fa, ctk, ctv, or ot=@FILE",
    )
    bench.add_argument(
        "--floor", type=float, default=40.0, help="with --sweep: the TG tok/s a variant must reach"
    )
    bench.set_defaults(handler=cmd_bench)


def cmd_doctor(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio

    from backends.fleet.doctor import run_doctor
    from backends.fleet.sources import sources_from_config
    from tui.cli.fleet_tables import doctor_findings, doctor_tables
    from tui.cli.tables import show
    from tui.cli.train import trained_on
    from workspace.config import load_config

    config = load_config(paths.config_file)
    sources = sources_from_config(config)
    try:
        report = asyncio.run(run_doctor(config, sources, trained_on(paths)))
    finally:
        for source in sources:
            source.close()
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(f"chambers doctor: {report.config_file}\n")
        show(doctor_tables(report))
        print("\n".join(doctor_findings(report)))
    if any(s.health in ("down", "refused") for s in report.backends):
        return exit_codes.BACKEND
    if any(h.status.startswith("refused") for h in report.hosts):  # the policy refused a telemetry source
        return exit_codes.BACKEND
    return exit_codes.BLOCKED if report.errors else exit_codes.CLEAN


def cmd_bench(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio
    import sys
    import uuid

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    from backends.fleet.bench import Bench, BenchSettings, LengthResult
    from backends.fleet.bench import Progress as Step
    from backends.fleet.store import save_results
    from tui.cli.fleet_sweep import bench_lengths, cmd_sweep, print_measured
    from tui.cli.fleet_tables import bench_table
    from tui.cli.tables import show
    from workspace.audit import AuditLog
    from workspace.config import load_config
    from workspace.errors import ChambersError

    if args.sweep or args.vary:
        return cmd_sweep(args, paths)
    config = load_config(paths.config_file)
    backends = [config.backend_named(n) for n in args.backend] if args.backend else list(config.backends)
    if args.warmup < 0 or args.runs < 1 or args.max_tokens < 1:
        raise ChambersError(
            "--warmup must be 0 or more, --runs and --max-tokens 1 or more.", title="Bad options"
        )
    settings = BenchSettings(bench_lengths(args.lengths), args.warmup, args.runs, args.max_tokens)
    audit = AuditLog(paths.database_file)
    benches = [Bench(b, config.policy, audit, settings) for b in backends]
    failures: list[str] = []
    codes: set[int] = set()
    interrupted = False
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    )

    async def run_all() -> None:
        for bench in benches:
            task = progress.add_task(bench.backend.name, total=None)

            def update(p: Step, task: TaskID = task) -> None:
                progress.update(
                    task,
                    total=p.total,
                    completed=p.done,
                    description=f"{p.backend} {p.target_tokens} tok {p.phase}",
                )

            try:
                await bench.run(update)
            except ChambersError as exc:
                failures.append(f"{bench.backend.name}: {exc.message}")
                codes.add(exit_codes.for_error(exc))

    with progress:
        try:
            asyncio.run(run_all())
        except KeyboardInterrupt:
            interrupted = True
    results: list[LengthResult] = [r for b in benches for r in b.results]
    stored = save_results(paths.database_file, uuid.uuid4().hex, results)
    if args.json:
        print(
            json.dumps(
                {
                    "results": [r.as_dict() for r in results if r.runs],
                    "failures": failures,
                    "interrupted": interrupted,
                },
                indent=2,
            )
        )
    else:
        show(bench_table([r for r in results if r.runs]) if stored else "No run finished.")
        print_measured(paths, {r.model for r in results if r.runs and r.model})
        for failure in failures:
            print(f"failed: {failure}", file=sys.stderr)
        if interrupted:
            print(f"Stopped by Ctrl-C; {stored} finished result(s) kept.", file=sys.stderr)
    if interrupted:
        return exit_codes.INTERRUPTED
    return max(codes, default=exit_codes.CLEAN)
