"""``chambers doctor`` and ``chambers bench``: the fleet from the command line."""

from __future__ import annotations

import argparse
import json
from typing import Any

from workspace.paths import Paths


def register(sub: Any) -> None:
    doctor = sub.add_parser("doctor", help="check the config, the GPU boards and every backend")
    doctor.add_argument("--json", action="store_true", help="print a machine-readable report")
    doctor.set_defaults(handler=cmd_doctor)


def cmd_doctor(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio

    from backends.fleet.doctor import format_report, run_doctor
    from backends.fleet.sources import sources_from_config
    from workspace.config import load_config

    config = load_config(paths.config_file)
    sources = sources_from_config(config)
    try:
        report = asyncio.run(run_doctor(config, sources))
    finally:
        for source in sources:
            source.close()
    print(json.dumps(report.as_dict(), indent=2) if args.json else format_report(report))
    return 1 if report.errors else 0
