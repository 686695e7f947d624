"""A crash at any step of a production leaves the Bates registry and the output folder in agreement.

Each case runs a real production (or Bates-stamped binder) in a child process
that SIGKILLs itself at one named step (tests/support/production_child.py), then
"starts again": a new plan settles what the crash left (exhibits.pending).
After every kill: no production is left unfinished, no temporary file is
left, every file the registry lists exists with its recorded sha256, every
PDF in the folder is one the registry lists, and the numbers continue right
after the last production that really exists (none burned).
"""

from __future__ import annotations

import csv
import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from evidence.matters import create_matter
from exhibits import schema as exhibits_schema
from exhibits.numbering import bates_format
from exhibits.pending import recover_productions
from exhibits.registry import next_free, production_log, reserve_range, unfinished_productions
from exhibits.stamp import plan_production, run_production
from tests.support.exhibits_files import text_pdf
from workspace.database import connect

ROOT = Path(__file__).resolve().parent.parent
STAMP_STEPS = [
    "first-rename",
    "reserved",
    "stamped 1",
    "stamped 2",
    "complete",
    "recorded",
    "renamed 1",
    "renamed 2",
    "renamed 3",
    "synced",
    "done",
]
BIND_STEPS = ["reserved", "complete", "recorded", "renamed 1", "renamed 2", "synced", "done"]
FINISHED_FROM = "recorded"  # from this step on the files are complete and recorded: a restart finishes


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def matter(tmp_path: Path) -> tuple[Path, list[Path]]:
    db_path = tmp_path / "home" / "chambers.sqlite3"
    pdfs = [
        text_pdf(tmp_path / "src" / "a.pdf", ["one", "two", "three"]),
        text_pdf(tmp_path / "src" / "b.pdf", ["x", "y"]),
    ]
    create_matter(db_path, "acme", [tmp_path / "src"])
    return db_path, pdfs


def kill_at(db_path: Path, kind: str, step: str, out: Path, pdfs: list[Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.production_child",
            str(db_path),
            kind,
            step,
            str(out),
            *map(str, pdfs),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert "FINISHED" not in child.stdout


def assert_registry_and_folder_agree(db_path: Path, out: Path) -> int:
    """Returns how many pages the registry says were produced."""
    db = connect(db_path, exhibits_schema.SCHEMA)
    try:
        assert unfinished_productions(db) == []
        rows = production_log(db, 1)
        issued = next_free(db, 1, "ACME") - 1
    finally:
        db.close()
    files = sorted(p for p in out.iterdir()) if out.exists() else []
    assert not [p for p in files if p.name.endswith(".tmp")], files
    listed = {Path(r.output_path): r.output_sha256 for r in rows}
    for path, digest in listed.items():
        assert path.exists() and sha(path) == digest, path
    assert {p for p in files if p.suffix == ".pdf"} == {p for p in listed if p.parent == out}
    return issued


@pytest.mark.parametrize("step", STAMP_STEPS)
def test_a_production_killed_at_any_step_is_finished_or_rolled_back(
    step: str, matter: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    db_path, pdfs = matter
    out = tmp_path / "vol1"
    kill_at(db_path, "stamp", step, out, pdfs)
    next_start = tmp_path / "vol2"
    plan = plan_production(db_path, "acme", pdfs, bates_format("ACME", 6), next_start)
    issued = assert_registry_and_folder_agree(db_path, out)
    finished = step == "first-rename" or STAMP_STEPS.index(step) >= STAMP_STEPS.index(FINISHED_FROM)
    assert issued == (5 if finished else 0) and plan.first == issued + 1
    if step == "done":  # killed after the production was complete: nothing to settle
        assert plan.settled == []
    else:
        (settled,) = plan.settled  # the plan says what it found, first thing
        assert ("was finished" if finished else "rolled back") in settled and plan.describe()[0] == settled
    if finished:
        with open(out / "production-log.csv", newline="") as fh:
            assert [r["bates_begin"] for r in csv.DictReader(fh)] == ["ACME-000001", "ACME-000004"]
    else:
        assert not (out / "production-log.csv").exists()
    result = run_production(db_path, plan)
    assert result.plan.last == issued + 5
    assert_registry_and_folder_agree(db_path, tmp_path / "vol2")


@pytest.mark.parametrize("step", BIND_STEPS)
def test_a_bates_binder_killed_at_any_step_is_finished_or_rolled_back(
    step: str, matter: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    db_path, pdfs = matter
    out = tmp_path / "binder"
    kill_at(db_path, "bind", step, out, pdfs)
    plan_production(db_path, "acme", pdfs[:1], bates_format("ACME", 6), tmp_path / "vol2")  # the next start
    issued = assert_registry_and_folder_agree(db_path, out)
    finished = BIND_STEPS.index(step) >= BIND_STEPS.index(FINISHED_FROM)
    assert issued == (1 + 2 + 5 if finished else 0)  # index page, two slip sheets, five pages
    assert (out / "binder.exhibit-list.csv").exists() == finished


def test_a_production_whose_process_is_alive_is_left_alone(
    matter: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    db_path, _ = matter
    out = tmp_path / "vol1"
    out.mkdir()
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        temp, final = out / f".a.pdf.{owner.pid}.tmp", out / "a.pdf"
        temp.write_bytes(b"%PDF- half written")
        db = connect(db_path, exhibits_schema.SCHEMA)
        production = reserve_range(db, 1, "production", bates_format("ACME", 6), out, 1, 3, [(temp, final)])
        with db:
            db.execute("UPDATE exhibits_productions SET owner_pid = ? WHERE id = ?", (owner.pid, production))
        assert recover_productions(db) == [] and temp.exists()  # still being written by its process
        assert next_free(db, 1, "ACME") == 4  # and its numbers stay reserved meanwhile
    finally:
        owner.kill()
        owner.wait()
    (done,) = recover_productions(db)
    assert "rolled back" in done and "ACME-000001..ACME-000003" in done
    assert not temp.exists() and next_free(db, 1, "ACME") == 1
    db.close()
