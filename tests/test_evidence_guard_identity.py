"""Sources stay untouched whatever path reaches them: through a link ingest followed, another link, a
hard link, an output folder that holds one, a unit folder, or a source folder that swallows chambers.

A real matter is ingested with ``--follow-links``, so one of its files lies outside every recorded
source folder. Each writer of the CLI is aimed at that file by every path that reaches it; each must
exit 2 with the refusal, and every file's sha256 must be what it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evidence.provenance import OUTPUT_MARKER
from tests.support.evidence_files import make_pdf, tree_hashes
from tui.cli.main import main
from workspace.paths import Paths


@pytest.fixture
def linked(tmp_path: Path, isolated_home: Path) -> tuple[Path, Path]:
    """A matter whose folder links to a shared exhibit elsewhere; ingested with --follow-links."""
    shared = tmp_path / "shared-exhibits"
    exhibit = make_pdf(shared / "exhibit-7.pdf", ["Exhibit 7: the invoice was paid on March 3, 2024."])
    sources = tmp_path / "matters" / "acme"
    make_pdf(sources / "letter.pdf", ["Dear counsel, the delivery was late."])
    (sources / "exhibit-7.pdf").symlink_to(exhibit)
    assert main(["matter", "new", "acme", "--sources", str(sources)]) == 0
    assert main(["evidence", "ingest", "acme", "--follow-links"]) == 0
    (tmp_path / "draft.md").write_text("The invoice was paid on March 3, 2024.\n")
    return sources, exhibit


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], *named: str) -> str:
    capsys.readouterr()
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert "Refused" in err and all(n in err for n in named), (argv, err)
    return err


def test_a_file_read_through_a_link_is_refused_by_every_writer_by_every_path(
    linked: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources, exhibit = linked
    before = tree_hashes(exhibit.parent) | tree_hashes(sources)
    other_link = tmp_path / "looks-harmless.pdf"
    other_link.symlink_to(exhibit)
    hard = tmp_path / "elsewhere" / "copy.pdf"
    hard.parent.mkdir()
    os.link(exhibit, hard)  # the same inode under a name no link resolves to
    draft = str(tmp_path / "draft.md")
    for target in (exhibit, other_link, hard):
        for argv in (
            ["verify", draft, "--matter", "acme", "--report", str(target)],
            ["corrections", "export", "--format", "sft", "--out", str(target)],
            ["exhibits", "log", "acme", "--csv", str(target)],
        ):
            _refused(argv, capsys, str(target), "acme")
    assert tree_hashes(exhibit.parent) | tree_hashes(sources) == before
    assert hard.read_bytes() == exhibit.read_bytes()


def test_no_output_marker_in_a_folder_that_holds_a_linked_source(
    linked: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources, exhibit = linked
    letter = sources / "letter.pdf"
    for out in (exhibit.parent, exhibit.parent.parent):  # the linked file's folder, and one above it
        argv = ["exhibits", "stamp", "acme", str(letter), "--prefix", "ACME", "--out", str(out)]
        _refused(argv, capsys, str(out))
    argv = ["exhibits", "stamp", "acme", str(letter), "--prefix", "ACME", "--out", str(exhibit.parent)]
    assert "exhibit-7.pdf" in _refused(argv, capsys)
    binder = [
        "exhibits",
        "bind",
        "acme",
        "--exhibit",
        str(letter),
        "Letter",
        "--out",
        str(exhibit.parent / "b.pdf"),
    ]
    assert "exhibit-7.pdf" in _refused(binder, capsys)
    redact = ["exhibits", "redact", "acme", str(letter), "--term", "late", "--out", str(exhibit.parent)]
    assert "exhibit-7.pdf" in _refused(redact, capsys)
    assert not list(tmp_path.rglob(OUTPUT_MARKER))
    capsys.readouterr()
    assert main(["evidence", "ingest", "acme", "--follow-links"]) == 0
    assert "0 quarantined" in capsys.readouterr().out  # the genuine exhibit stays evidence


def _profile_config(binary: str) -> str:
    return f'[[profiles]]\nname = "w"\nmodel = "/m/x.gguf"\nbinary = "{binary}"\n'


def test_a_unit_goes_through_the_guard_and_never_creates_its_folder(
    linked: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources, exhibit = linked
    paths = Paths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(_profile_config("/bin/true"), encoding="utf-8")
    # a source named as the unit would be, in the folder a followed link reached
    planted = exhibit.parent / "chambers-w.service"
    planted.write_text("[Unit]\nDescription=the client's own file\n")
    (sources / "chambers-w.service").symlink_to(planted)
    assert main(["evidence", "ingest", "acme", "--follow-links"]) == 0
    before = tree_hashes(exhibit.parent) | tree_hashes(sources)
    _refused(["serve", "w", "--unit", "--unit-dir", str(sources)], capsys, str(sources))
    _refused(["serve", "w", "--unit", "--unit-dir", str(exhibit.parent)], capsys, "chambers-w.service")
    assert tree_hashes(exhibit.parent) | tree_hashes(sources) == before
    missing = tmp_path / "nonexistent" / "dir"
    capsys.readouterr()
    assert main(["serve", "w", "--unit", "--unit-dir", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err
    assert not missing.parent.exists()
    elsewhere = tmp_path / "units"
    elsewhere.mkdir()
    assert main(["serve", "w", "--unit", "--unit-dir", str(elsewhere)]) in (0, 1)  # 1: systemd's verdict
    assert (elsewhere / "chambers-w.service").is_file()


def test_matter_new_refuses_the_root_and_chambers_own_folders(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = Paths.from_environment()
    paths.data_dir.mkdir(parents=True)
    (paths.data_dir / "exports").mkdir()
    (tmp_path / "disk").symlink_to("/")
    cases = [
        ("/", "root of the file system"),
        (str(isolated_home), "data folder"),  # $CHAMBERS_HOME holds the data folder
        (str(paths.data_dir), "data folder"),
        (str(paths.data_dir / "exports"), "lies in chambers' own data folder"),  # chambers writes there
        (str(tmp_path), "data folder"),  # a folder above the home
        (str(tmp_path / "disk"), "root of the file system"),  # a link to /
    ]
    for number, (source, reason) in enumerate(cases):
        capsys.readouterr()
        assert main(["matter", "new", f"m{number}", "--sources", source]) == 2, source
        err = capsys.readouterr().err
        assert "Source folder refused" in err and reason in err and source in err, err
    capsys.readouterr()
    assert main(["matter", "list"]) == 0
    assert "No matters yet" in capsys.readouterr().out
    fine = tmp_path / "documents"
    fine.mkdir()
    assert main(["matter", "new", "fine", "--sources", str(fine)]) == 0


def test_the_file_read_stays_guarded_after_its_link_is_pointed_elsewhere(
    linked: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources, exhibit = linked
    decoy = make_pdf(tmp_path / "decoy" / "other.pdf", ["Something else."])
    link = sources / "exhibit-7.pdf"
    link.unlink()
    link.symlink_to(decoy)  # no ingest since: the index still holds what the old target said
    before = exhibit.read_bytes()
    moved = tmp_path / "moved-exhibit.pdf"
    os.link(exhibit, moved)  # and a second name the old path never had
    for target in (exhibit, moved):
        _refused(["exhibits", "log", "acme", "--csv", str(target)], capsys, str(target))
        _refused(["corrections", "export", "--format", "sft", "--out", str(target)], capsys, str(target))
    assert exhibit.read_bytes() == before


BIND_CHILD = """
import subprocess, sys
from tui.cli.main import main
source, bound, draft = sys.argv[1:4]
subprocess.run(["mount", "--bind", source, bound], check=True)
argv = ["verify", draft, "--matter", "acme", "--report", bound + "/report.html"]
sys.exit(main(argv))
"""


@pytest.mark.skipif(shutil.which("unshare") is None, reason="util-linux unshare is not installed")
def test_a_bind_mount_of_a_source_folder_is_still_the_source_folder(
    linked: tuple[Path, Path], tmp_path: Path
) -> None:
    """The mount is made in a private user and mount namespace (``unshare -rm``), so the test needs no
    root and leaves nothing mounted."""
    sources, _ = linked
    bound = tmp_path / "looks-like-elsewhere"
    bound.mkdir()
    before = tree_hashes(sources)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"user namespaces are not allowed here: {probe.stderr.decode(errors='replace')}")
    child = subprocess.run(
        [
            "unshare",
            "-rm",
            sys.executable,
            "-c",
            BIND_CHILD,
            str(sources),
            str(bound),
            str(tmp_path / "draft.md"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert child.returncode == 2, child.stderr
    assert "Refused" in child.stderr and str(sources) in child.stderr, child.stderr
    assert tree_hashes(sources) == before and not (sources / "report.html").exists()
