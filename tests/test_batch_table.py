"""A batch's table: rows become jobs or problems by line number; the queue's bookkeeping on real SQLite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from drafting.batch.presence import BatchBusy, batch_lock, workstation_open, workstation_present
from drafting.batch.store import BatchStore
from drafting.batch.table import BatchInputError, read_table, template_fields
from drafting.store import RunStore

TEMPLATE = "Demand that {debtor} pay invoice {invoice} for ${amount} within 14 days."
MATTERS = {"hollis", "other"}


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "debtors.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_malformed_rows_are_reported_by_line_and_the_others_become_jobs(tmp_path: Path) -> None:
    source = _csv(
        tmp_path,
        "debtor,invoice,amount,matter,note\n"
        "Acme Ltd,INV-1,100,,\n"  # line 2: runs on the batch's matter
        "Birch Co,,200,,\n"  # line 3: no invoice
        '"Cedar\nand Sons",INV-3,300,other,x\n'  # lines 4-5: a quoted line break, its own matter
        "Dune,INV-4,400,nowhere,\n"  # line 6: no such matter
        "Elm,INV-5\n"  # line 7: too few values
        "\n"
        "Fir,INV-6,600,,\n",  # line 9
    )
    table = read_table(source, TEMPLATE, "hollis", "demand-letter", MATTERS.__contains__)

    assert [(r.line_no, r.matter) for r in table.rows] == [(2, "hollis"), (4, "other"), (9, "hollis")]
    assert table.rows[0].instructions == "Demand that Acme Ltd pay invoice INV-1 for $100 within 14 days."
    assert table.rows[1].extra == ("note",) and table.rows[1].name == "cedar-and-sons"
    assert [(p.line_no, p.message) for p in table.problems] == [
        (3, "has no value for {invoice}"),
        (6, "names matter 'nowhere', which does not exist"),
        (7, "has 2 values but the header has 5 columns"),
    ]


def test_jsonl_rows_name_their_task_and_a_broken_line_is_one_problem(tmp_path: Path) -> None:
    source = tmp_path / "jobs.jsonl"
    source.write_text(
        '{"debtor": "Acme", "invoice": "I-1", "amount": 5}\n'
        "{not json\n"
        '{"debtor": "Birch", "invoice": "I-2", "amount": 6, "task": "sonnet"}\n'
        '{"debtor": "Cedar", "invoice": "I-3", "amount": 7, "task": "intake-memo"}\n',
        encoding="utf-8",
    )
    table = read_table(source, TEMPLATE, "hollis", "demand-letter", MATTERS.__contains__)
    assert [(r.line_no, r.task) for r in table.rows] == [(1, "demand-letter"), (4, "intake-memo")]
    assert [p.line_no for p in table.problems] == [2, 3]
    assert "not JSON" in table.problems[0].message and "sonnet" in table.problems[1].message


def test_a_template_field_that_is_not_a_plain_name_is_refused() -> None:
    assert template_fields("{a} {b} {a}") == ("a", "b")
    with pytest.raises(BatchInputError, match=r"\{amount:\.2f\}"):
        template_fields("pay {amount:.2f}")
    with pytest.raises(BatchInputError, match="names no fields"):
        template_fields("the same letter for everyone")


def _queue(db: Path, tmp_path: Path, n: int) -> int:
    rows = "".join(f"Debtor {i},INV-{i},{i}\n" for i in range(n))
    table = read_table(
        _csv(tmp_path, "debtor,invoice,amount\n" + rows),
        TEMPLATE,
        "hollis",
        "demand-letter",
        MATTERS.__contains__,
    )
    return (
        BatchStore(db)
        .create("b", "hollis", "demand-letter", TEMPLATE, "x.csv", table.rows, table.problems)
        .id
    )


def test_a_claimed_job_is_handed_out_once_and_a_killed_one_resumes_first(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    batch = _queue(db, tmp_path, 3)
    store = BatchStore(db)
    first, second = store.claim(batch), store.claim(batch)
    assert first and second and first.id != second.id and first.line_no == 2 and second.line_no == 3
    assert store.counts(batch) == {"running": 2, "queued": 1}
    # A process killed here leaves both running; the next run makes them partial and takes them first.
    assert store.recover(batch, retry_failed=False) == 2
    again = store.claim(batch)
    assert again is not None and again.id == first.id and again.attempts == 2


def test_a_run_made_but_not_linked_before_a_kill_is_adopted_not_made_twice(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    batch = _queue(db, tmp_path, 1)
    store = BatchStore(db)
    job = store.claim(batch)
    assert job is not None
    made = RunStore(db).create(job.matter, "demand_letter", job.instructions, "drafter", ["draft"])
    assert store.orphan_run(job) == made.id
    store.link(job.id, made.id)
    assert store.orphan_run(job) is None


CHILD = """
import sys, time
from pathlib import Path
from drafting.batch.presence import workstation_present
with workstation_present(Path(sys.argv[1])) as held:
    print("held" if held else "refused", flush=True)
    time.sleep(60)
"""


def test_the_workstation_lock_is_seen_by_others_and_dies_with_its_holder(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    assert not workstation_open(db)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        assert workstation_open(db)
        with workstation_present(db) as mine:
            assert mine is False  # a second workstation sees the first
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert not workstation_open(db)


def test_a_second_runner_of_the_same_batch_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    with batch_lock(db, "b"), pytest.raises(BatchBusy, match=str(os.getpid())), batch_lock(db, "b"):
        pass
    with batch_lock(db, "b"):
        pass
