"""``chambers CMD ...`` builds only CMD's parser; what it reads, prints and refuses is the full parser's.

The full parser (every room's commands) is the reference: each case is parsed both ways, in this
process, and the namespaces, the help and the error messages must be the same.
"""

from __future__ import annotations

import argparse

import pytest

from tui.cli import main as cli
from tui.cli.registry import COMMANDS, MODULES

CASES = [
    ["verify", "draft.md", "--matter", "m"],
    ["--no-mouse", "verify", "draft.md", "--matter", "m", "--json", "--all"],
    ["verify", "draft.md", "--matter", "m", "--override", "abc", "--reason", "it stands"],
    ["verify", "draft.md", "--mat", "m"],  # an abbreviated option, as argparse allows
    ["runs", "show", "3"],
    ["authorities", "list"],
    ["matter", "list"],
]

REFUSED = [
    ["verify"],  # --matter missing
    [
        "verify",
        "draft.md",
        "--matter",
        "m",
        "--bogus",
    ],  # refused by the top level, whose usage lists every command
    ["verify", "draft.md", "--matter", "m", "--no-mouse"],
    ["runs", "show", "not-a-number"],
    ["verifyy", "draft.md"],
    ["authorities"],
]


def _commands_of(module: object) -> list[str]:
    parser = argparse.ArgumentParser(prog="chambers")
    sub = parser.add_subparsers(dest="command")
    module.register(sub)  # type: ignore[attr-defined]
    return list(sub.choices)


def test_every_command_is_registered_by_the_module_the_table_names() -> None:
    registered = {command: module for module in MODULES for command in _commands_of(module)}
    assert registered == COMMANDS


def _full(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser().parse_args(argv)


@pytest.mark.parametrize("argv", CASES)
def test_one_commands_parser_reads_what_the_full_parser_reads(argv: list[str]) -> None:
    assert vars(cli.parse_args(argv)) == vars(_full(argv))


def test_the_one_command_parser_is_the_one_used(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    real = cli.build_parser

    def counting(*args: object, **kwargs: object) -> argparse.ArgumentParser:
        parser = real(*args, **kwargs)  # type: ignore[arg-type]
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        built.append(len(commands.choices))
        return parser

    monkeypatch.setattr(cli, "build_parser", counting)
    cli.parse_args(["verify", "draft.md", "--matter", "m"])
    assert built == [1]
    with pytest.raises(SystemExit):
        cli.parse_args(["verify"])
    assert built[1:] == [1, len(COMMANDS)]  # the refusal comes from the full parser


def _outcome(parse: object, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    with pytest.raises(SystemExit) as done:
        parse(argv)  # type: ignore[operator]
    shown = capsys.readouterr()
    return done.value.code, shown.out, shown.err


@pytest.mark.parametrize("argv", REFUSED)
def test_a_refusal_is_the_full_parsers(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _outcome(cli.parse_args, argv, capsys)
    assert code == 2 and err
    assert (code, out, err) == _outcome(_full, argv, capsys)


@pytest.mark.parametrize(
    "argv", [["verify", "--help"], ["runs", "show", "--help"], ["authorities", "add", "-h"], ["--help"]]
)
def test_help_is_the_full_parsers(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _outcome(cli.parse_args, argv, capsys)
    assert code == 0 and "exit codes:" in out
    assert (code, out, err) == _outcome(_full, argv, capsys)
