"""The ``chambers`` command line.

``chambers`` opens the workstation on the config; ``chambers init`` writes a
starter config; ``chambers demo`` brings up a real local llama-server with the
tiny demo model and opens the workstation on it; ``chambers local-server
prepare`` builds or finds the server and model without starting anything.
Heavy imports (Textual) are deferred into the commands that need them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from workspace.errors import ChambersError
from workspace.paths import Paths, write_atomically


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chambers", description="Drafting workstation for local models.")
    sub = parser.add_subparsers(dest="command")
    init = sub.add_parser("init", help="write a commented starter config")
    init.add_argument("--force", action="store_true", help="overwrite an existing config")
    sub.add_parser("demo", help="start a local llama-server with the demo model and open the workstation")
    local = sub.add_parser("local-server", help="the bundled llama-server for the demo and tests")
    local.add_argument("action", choices=["prepare"], help="build or find llama-server and the demo model")
    sub.add_parser("config", help="check the config and print where it is")
    args = parser.parse_args(argv)
    paths = Paths.from_environment()
    try:
        if args.command == "init":
            return cmd_init(paths, force=args.force)
        if args.command == "demo":
            from tui.demo import run_demo

            return run_demo(paths)
        if args.command == "local-server":
            return cmd_prepare()
        if args.command == "config":
            return cmd_config(paths)
        return cmd_workstation(paths)
    except ChambersError as exc:
        print(f"chambers: {exc.title}\n{exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def cmd_init(paths: Paths, *, force: bool) -> int:
    from workspace.config import starter_config_text

    if paths.config_file.exists() and not force:
        raise ChambersError(
            f"{paths.config_file} already exists and was left as it is. Use `chambers init --force` "
            "to replace it with the starter config.",
            title="A config already exists",
        )
    write_atomically(paths.config_file, starter_config_text().encode("utf-8"))
    print(f"Wrote a starter config to {paths.config_file}. Set your servers' addresses in it.")
    return 0


def cmd_config(paths: Paths) -> int:
    from workspace.config import load_config

    config = load_config(paths.config_file)
    print(f"{paths.config_file}: {len(config.boards)} boards, {len(config.backends)} backends, "
          f"local_only={'yes' if config.policy.local_only else 'no'}")  # fmt: skip
    for backend in config.backends:
        print(f"  {backend.name:<12} {backend.kind:<9} {backend.url:<28} {','.join(backend.roles)}")
    return 0


def cmd_prepare() -> int:
    from backends.local_server import ensure_demo_model, ensure_llama_server

    def progress(message: str) -> None:
        print(message, flush=True)

    print(f"llama-server: {ensure_llama_server(progress)}")
    print(f"demo model:   {ensure_demo_model(progress)}")
    return 0


def cmd_workstation(paths: Paths) -> int:
    from tui.app import create_app
    from workspace.config import load_config

    config = load_config(paths.config_file)
    create_app(config, paths.database_file).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
