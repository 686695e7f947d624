"""The ``chambers`` command line.

``chambers`` alone opens the workstation on the config. Subcommands are
registered by the modules in ``tui.cli.registry`` (one per room); domain errors are
printed with their title and advice. Every command exits with the codes of ``tui.cli.exit_codes``,
which ``--help`` lists.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from tui.cli import exit_codes
from tui.cli.registry import COMMANDS, MODULES
from workspace.errors import ChambersError
from workspace.paths import Paths


def build_parser(
    modules: Sequence[ModuleType] = MODULES,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    parser = parser_class(
        prog="chambers",
        description="Drafting workstation for local models.",
        epilog=exit_codes.HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--no-mouse",
        action="store_true",
        help="leave the mouse to the terminal, for its own text selection (or set mouse = false in [ui])",
    )
    sub = parser.add_subparsers(dest="command")
    for module in modules:
        module.register(sub)
    _list_exit_codes(parser)
    return parser


def _list_exit_codes(parser: argparse.ArgumentParser) -> None:
    """Give every subcommand's ``--help`` the same exit-code list as ``chambers --help``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if child.epilog is None:
                    child.epilog = exit_codes.HELP
                    child.formatter_class = argparse.RawDescriptionHelpFormatter
                _list_exit_codes(child)


def _clear_leftovers(paths: Paths) -> None:
    """A killed chambers' temporary config saves and half-trained adapters go at the next start."""
    from corrections.adapter_folder import adapters_dir
    from workspace.leftovers import clear_leftovers

    clear_leftovers(paths.config_file, paths.data_dir, adapters_dir(paths.data_dir))


class _Unsure(Exception):
    """The parser of one command met something it cannot answer as the full parser would."""


class _OneCommandParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Unsure(message)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """``build_parser().parse_args(argv)``, read by the named command's parser alone where that is the same.

    Building every command's parser is a cost every start pays, though a run names one command. Its
    parser alone reads the same namespace from the same words; anything it would refuse (a typo, an
    unknown option), and any top-level option but --no-mouse, goes to the full parser, whose message and
    usage line (listing every command) are the ones shown. A command's --help is its own parser's.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    first = next((i for i, word in enumerate(words) if word != "--no-mouse"), len(words))
    module = COMMANDS.get(words[first]) if first < len(words) else None
    if module is not None:
        try:
            return build_parser([module], _OneCommandParser).parse_args(words)
        except _Unsure:
            pass
    return build_parser().parse_args(words)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    paths = Paths.from_environment()
    _clear_leftovers(paths)
    try:
        handler = getattr(args, "handler", None)
        if handler is None:
            return cmd_workstation(paths, no_mouse=args.no_mouse)
        code = int(handler(args, paths))
        sys.stdout.flush()  # inside the try: a closed pipe must be met here, not at interpreter exit
        return code
    except ChambersError as exc:
        from tui.cli.error_text import error_text

        print(error_text(exc, sys.stderr), file=sys.stderr)
        return exit_codes.for_error(exc)
    except KeyboardInterrupt:
        return exit_codes.INTERRUPTED
    except BrokenPipeError:
        return _reader_went_away()


def _reader_went_away() -> int:
    """The reader of stdout closed it (``chambers runs show 1 | head``): stop quietly, as a command-line
    tool killed by SIGPIPE would. Python ignores SIGPIPE so its sockets see the error as an exception;
    stdout is pointed at /dev/null so the final flush at exit has nowhere to fail."""
    try:
        out = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # stdout replaced by something without a descriptor
        return exit_codes.BROKEN_PIPE
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, out)
    os.close(devnull)
    return exit_codes.BROKEN_PIPE


def cmd_workstation(paths: Paths, *, no_mouse: bool = False) -> int:
    from drafting.verify.index_cache import keep_in
    from tui.app import create_app, mouse_wanted
    from workspace.config import load_config
    from workspace.paths import cache_dir

    config = load_config(paths.config_file)
    keep_in(cache_dir())  # the first verify of a session reads an unchanged library as the last left it
    create_app(config, paths.database_file).run(mouse=mouse_wanted(config, no_mouse))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
