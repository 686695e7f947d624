"""Evidence is read-only: every command with an output option, aimed at a source, refuses and changes nothing.

Each case aims a real command at an ingested source file (or its folder, a
folder above it, a symbolic link into it, or the database) and checks that
the command exits with the refusal, names the path, and that every source
file's sha256 is what it was.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from evidence.guard import WriteRefused, check_output
from tests.support.evidence_files import make_pdf, tree_hashes
from tui.cli.main import main
from workspace.paths import Paths


@pytest.fixture
def matter(tmp_path: Path, isolated_home: Path) -> Path:
    sources = tmp_path / "matters" / "acme" / "production"
    make_pdf(sources / "letter.pdf", ["Dear counsel, the invoice was paid on March 3, 2024."])
    make_pdf(sources / "nested" / "memo.pdf", ["Memo of a call."])
    assert main(["matter", "new", "acme", "--sources", str(sources)]) == 0
    assert main(["evidence", "ingest", "acme"]) == 0
    (tmp_path / "draft.md").write_text("The invoice was paid on March 3, 2024.\n")
    return sources


def _refused(argv: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert "Refused" in err and named in err, (argv, err)


def test_every_output_option_aimed_at_a_source_is_refused(
    matter: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    letter = matter / "letter.pdf"
    before = tree_hashes(matter)
    link = tmp_path / "innocent-looking"
    link.symlink_to(matter)
    database = str(Paths.from_environment().database_file)
    draft = str(tmp_path / "draft.md")
    cases = [
        (["verify", draft, "--matter", "acme", "--report", str(letter)], str(letter)),
        (["verify", draft, "--matter", "acme", "--report", str(link / "letter.pdf")], "innocent-looking"),
        (["verify", draft, "--matter", "acme", "--report", database], database),
        (["corrections", "export", "--format", "sft", "--out", str(letter)], str(letter)),
        (["corrections", "export", "--format", "dpo", "--out", str(matter / "new.jsonl")], "new.jsonl"),
        (["exhibits", "stamp", "acme", str(letter), "--prefix", "ACME", "--out", str(matter)], str(matter)),
        (
            ["exhibits", "stamp", "acme", str(letter), "--prefix", "ACME", "--out", str(matter / "nested")],
            "nested",
        ),
        (
            ["exhibits", "stamp", "acme", str(letter), "--prefix", "ACME", "--out", str(matter.parent)],
            "above",
        ),
        (
            ["exhibits", "stamp", "acme", str(letter), "--prefix", "ACME", "--out", str(link)],
            "innocent-looking",
        ),
        (["exhibits", "bind", "acme", "--exhibit", str(letter), "Letter", "--out", str(letter)], str(letter)),
        (
            ["exhibits", "bind", "acme", "--exhibit", str(letter), "Letter", "--out", str(matter / "b.pdf")],
            "b.pdf",
        ),
        (["exhibits", "redact", "acme", str(letter), "--term", "invoice", "--out", str(matter)], str(matter)),
        (
            [
                "exhibits",
                "redact",
                "acme",
                str(letter),
                "--term",
                "invoice",
                "--out",
                str(matter),
                "--dry-run",
            ],
            str(matter),
        ),
        (["exhibits", "log", "acme", "--csv", str(letter)], str(letter)),
    ]
    for argv, named in cases:
        _refused(argv, named, capsys)
    assert tree_hashes(matter) == before
    assert not list(matter.rglob(".*")), "no marker and no temporary file was left among the sources"


def test_the_demo_and_init_refuse_a_home_inside_a_source_folder(
    matter: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.cli.core import cmd_demo

    before = tree_hashes(matter)
    database = Paths.from_environment().database_file
    paths = Paths(config_file=matter / "config.toml", data_dir=database.parent)
    with pytest.raises(WriteRefused, match="source folder"):
        cmd_demo(argparse.Namespace(), paths)
    from evidence.sample_matter import prepare_sample_matter
    from tui.cli.core import cmd_init

    with pytest.raises(WriteRefused, match="source folder"):
        cmd_init(argparse.Namespace(force=True), paths)

    with pytest.raises(WriteRefused, match="source folder"):
        prepare_sample_matter(database, matter / "sample-matter")
    assert tree_hashes(matter) == before and not (matter / "sample-matter").exists()


def test_a_write_outside_the_sources_is_allowed(matter: Path, tmp_path: Path) -> None:
    database = Paths.from_environment().database_file
    assert check_output(database, tmp_path / "out" / "report.html") == tmp_path / "out" / "report.html"
    # a folder whose name merely starts like the source folder's is not inside it
    assert check_output(database, matter.parent / "production-2", folder=True)
    assert (
        main(["verify", str(tmp_path / "draft.md"), "--matter", "acme", "--report", str(tmp_path / "a.html")])
        == 0
    )
    assert (tmp_path / "a.html").read_text().startswith("<")


@pytest.mark.parametrize("name", ["/abs/path", "../../x", "a/b", "..", ".hidden", "", "x" * 81, "bad name"])
def test_matter_names_are_slugs_never_paths(
    name: str, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "src").mkdir()
    assert main(["matter", "new", name, "--sources", str(tmp_path / "src")]) == 2
    assert "matter" in capsys.readouterr().err.lower()
    assert main(["matter", "list"]) == 0 and "No matters yet" in capsys.readouterr().out


def test_a_path_shaped_matter_name_never_makes_an_output_path(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = make_pdf(tmp_path / "src" / "a.pdf", ["Text."])
    assert main(["exhibits", "stamp", str(tmp_path / "escape"), str(pdf), "--prefix", "ACME"]) == 2
    assert "Matter name not usable" in capsys.readouterr().err
    assert not (tmp_path / "escape").exists()
