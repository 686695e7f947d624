"""The ``chambers`` command line.

``chambers`` alone opens the workstation on the config. Subcommands are
registered by the modules in ``tui.commands`` (one per room); domain errors are
printed with their title and advice, and the exit code is 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui.commands import MODULES
from workspace.errors import ChambersError
from workspace.paths import Paths


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chambers", description="Drafting workstation for local models.")
    sub = parser.add_subparsers(dest="command")
    for module in MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    paths = Paths.from_environment()
    try:
        handler = getattr(args, "handler", None)
        if handler is None:
            return cmd_workstation(paths)
        return int(handler(args, paths))
    except ChambersError as exc:
        print(f"chambers: {exc.title}\n{exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def cmd_workstation(paths: Paths) -> int:
    from tui.app import create_app
    from workspace.config import load_config

    config = load_config(paths.config_file)
    create_app(config, paths.database_file).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
