"""The batch queue's only SQL: batches, their jobs and the rows that could not be read.

Every change of a job's state is one short transaction, so a process killed at any moment leaves
each job queued, running (its run shows how far it got), or finished. ``claim`` takes the next job
by one UPDATE guarded by its state, so a job is never handed out twice; the runner holds the batch's
lock besides, so no second process works on the same batch. Nothing here reads a whole batch into
memory except ``jobs`` (for a screen or a report): the runner asks for one job at a time.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drafting.batch import schema as batch_schema
from drafting.batch.table import Problem, Row
from drafting.runs import now
from workspace.database import session
from workspace.errors import ChambersError

QUEUED, RUNNING, DONE, FAILED, PARTIAL = "queued", "running", "done", "failed", "partial"
WAITING = (PARTIAL, QUEUED)  # what a run of the batch picks up, partial ones first


class BatchNotFound(ChambersError):
    title = "No such batch"


class BatchExists(ChambersError):
    title = "A batch of that name exists"


@dataclass(frozen=True)
class Batch:
    id: int
    name: str
    matter: str
    task: str
    template: str
    source_file: str
    created_at: str


@dataclass(frozen=True)
class Job:
    id: int
    batch_id: int
    line_no: int
    row_name: str
    fields: dict[str, str]
    matter: str
    task: str
    instructions: str
    state: str
    run_id: int | None
    attempts: int
    error: str | None
    started_at: str | None
    finished_at: str | None
    seconds: float | None
    tokens: int | None
    decode_tok_s: float | None
    concurrency: int | None
    server_busy: int | None
    seed: dict[str, Any] | None
    server_build: str | None
    request: dict[str, Any] | None
    counts: dict[str, int] | None
    reviewed_at: str | None


@dataclass(frozen=True)
class Finish:
    """What a finished job records: its outcome and how it ran (concurrency, seed, build, request)."""

    state: str
    error: str | None
    seconds: float
    tokens: int
    decode_tok_s: float | None
    concurrency: int
    server_busy: int | None
    seed: dict[str, Any]
    server_build: str | None
    request: dict[str, Any]
    counts: dict[str, int] | None


class BatchStore:
    def __init__(self, database_file: Path) -> None:
        self.database_file = database_file

    def _session(self) -> AbstractContextManager[sqlite3.Connection]:
        return session(self.database_file, batch_schema.SCHEMA)

    # --- batches ---

    def create(
        self,
        name: str,
        matter: str,
        task: str,
        template: str,
        source: str,
        rows: list[Row],
        problems: list[Problem],
    ) -> Batch:
        with self._session() as db, db:
            if db.execute("SELECT 1 FROM batch_batches WHERE name = ?", (name,)).fetchone():
                raise BatchExists(
                    f"There is already a batch named '{name}'. Pick another name, or `chambers batch run {name}`."
                )
            cur = db.execute(
                """INSERT INTO batch_batches (name, matter, task, template, source_file, created_at)
                   VALUES (?, ?, ?, ?, ?, ?)""",
                (name, matter, task, template, source, now()),
            )
            batch_id = int(cur.lastrowid or 0)
            db.executemany(
                """INSERT INTO batch_jobs (batch_id, line_no, row_name, fields_json, matter, task,
                       instructions, state) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued')""",
                [
                    (
                        batch_id,
                        r.line_no,
                        r.name,
                        json.dumps(r.fields, ensure_ascii=False),
                        r.matter,
                        r.task,
                        r.instructions,
                    )
                    for r in rows
                ],
            )
            db.executemany(
                "INSERT INTO batch_problems (batch_id, line_no, message) VALUES (?, ?, ?)",
                [(batch_id, p.line_no, p.message) for p in problems],
            )
        return self.batch(name)

    def batch(self, name: str) -> Batch:
        with self._session() as db:
            row = db.execute("SELECT * FROM batch_batches WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise BatchNotFound(f"There is no batch named '{name}'. `chambers batch list` shows the batches.")
        return Batch(**dict(row))

    def batches(self) -> list[Batch]:
        with self._session() as db:
            return [Batch(**dict(r)) for r in db.execute("SELECT * FROM batch_batches ORDER BY id")]

    def problems(self, batch_id: int) -> list[Problem]:
        with self._session() as db:
            rows = db.execute(
                "SELECT line_no, message FROM batch_problems WHERE batch_id = ? ORDER BY line_no", (batch_id,)
            ).fetchall()
        return [Problem(int(r[0]), r[1]) for r in rows]

    # --- jobs ---

    def counts(self, batch_id: int) -> dict[str, int]:
        """Jobs per state."""
        with self._session() as db:
            rows = db.execute(
                "SELECT state, COUNT(*) FROM batch_jobs WHERE batch_id = ? GROUP BY state", (batch_id,)
            ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def jobs(self, batch_id: int) -> list[Job]:
        with self._session() as db:
            return [
                _job(r)
                for r in db.execute(
                    "SELECT * FROM batch_jobs WHERE batch_id = ? ORDER BY line_no", (batch_id,)
                )
            ]

    def iter_jobs(self, batch_id: int, page: int = 500) -> Iterator[Job]:
        """Every job in row order, a page at a time (for exports of long batches)."""
        after = -1
        while True:
            with self._session() as db:
                rows = db.execute(
                    "SELECT * FROM batch_jobs WHERE batch_id = ? AND line_no > ? ORDER BY line_no LIMIT ?",
                    (batch_id, after, page),
                ).fetchall()
            if not rows:
                return
            for r in rows:
                yield _job(r)
            after = int(rows[-1]["line_no"])

    def job(self, job_id: int) -> Job:
        with self._session() as db:
            row = db.execute("SELECT * FROM batch_jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise BatchNotFound(f"There is no batch job number {job_id}.")
        return _job(row)

    def recover(self, batch_id: int, retry_failed: bool) -> int:
        """Jobs a killed process left running become partial (their runs resume); returns how many.
        ``retry_failed``: failed jobs go back in the queue too, resuming their runs where they stopped."""
        states = ("running", "failed") if retry_failed else ("running",)
        marks = ",".join("?" * len(states))
        with self._session() as db, db:
            cur = db.execute(
                f"UPDATE batch_jobs SET state = 'partial' WHERE batch_id = ? AND state IN ({marks})",
                (batch_id, *states),
            )
            return cur.rowcount

    def claim(self, batch_id: int, skip: tuple[int, ...] = ()) -> Job | None:
        """The next waiting job (partial first, then in row order), marked running; None when none waits.
        ``skip``: jobs that wait on a busy server, left for later. ``started_at`` stays the first claim's:
        a run a killed process made after it is the job's, to adopt (``orphan_run``)."""
        not_in = f"AND id NOT IN ({','.join('?' * len(skip))})" if skip else ""
        with self._session() as db, db:
            row = db.execute(
                f"""SELECT id FROM batch_jobs WHERE batch_id = ? AND state IN ('partial', 'queued') {not_in}
                    ORDER BY state = 'queued', line_no LIMIT 1""",
                (batch_id, *skip),
            ).fetchone()
            if row is None:
                return None
            cur = db.execute(
                """UPDATE batch_jobs SET state = 'running', attempts = attempts + 1,
                       started_at = COALESCE(started_at, ?)
                   WHERE id = ? AND state IN ('partial', 'queued')""",
                (now(), row[0]),
            )
            if cur.rowcount != 1:
                return None
        return self.job(int(row[0]))

    def peek(self, batch_id: int, skip: tuple[int, ...] = ()) -> Job | None:
        """The job ``claim`` would take next, left waiting."""
        not_in = f"AND id NOT IN ({','.join('?' * len(skip))})" if skip else ""
        with self._session() as db:
            row = db.execute(
                f"""SELECT * FROM batch_jobs WHERE batch_id = ? AND state IN ('partial', 'queued') {not_in}
                    ORDER BY state = 'queued', line_no LIMIT 1""",
                (batch_id, *skip),
            ).fetchone()
        return None if row is None else _job(row)

    def unclaim(self, job_id: int) -> None:
        """A claimed job that could not start (its server was full after all) waits again."""
        with self._session() as db, db:
            db.execute(
                """UPDATE batch_jobs SET state = CASE WHEN run_id IS NULL THEN 'queued' ELSE 'partial' END,
                       attempts = attempts - 1 WHERE id = ? AND state = 'running'""",
                (job_id,),
            )

    def link(self, job_id: int, run_id: int) -> None:
        with self._session() as db, db:
            db.execute("UPDATE batch_jobs SET run_id = ? WHERE id = ? AND run_id IS NULL", (run_id, job_id))

    def orphan_run(self, job: Job) -> int | None:
        """A run made for ``job`` by a process killed before it linked it: same request, after the claim,
        not started, and no job's. Adopting it keeps one run per job."""
        with self._session() as db:
            row = db.execute(
                """SELECT r.id FROM drafting_runs r WHERE r.matter = ? AND r.instructions = ?
                       AND r.status = 'created' AND r.created_at >= ?
                       AND NOT EXISTS (SELECT 1 FROM batch_jobs j WHERE j.run_id = r.id)
                   ORDER BY r.id LIMIT 1""",
                (job.matter, job.instructions.strip(), job.started_at or ""),
            ).fetchone()
        return None if row is None else int(row[0])

    def finish(self, job_id: int, result: Finish) -> None:
        with self._session() as db, db:
            db.execute(
                """UPDATE batch_jobs SET state = ?, error = ?, finished_at = ?, seconds = ?, tokens = ?,
                       decode_tok_s = ?, concurrency = ?, server_busy = ?, seed_json = ?, server_build = ?,
                       request_json = ?, counts_json = ? WHERE id = ?""",
                (
                    result.state,
                    result.error,
                    now(),
                    result.seconds,
                    result.tokens,
                    result.decode_tok_s,
                    result.concurrency,
                    result.server_busy,
                    json.dumps(result.seed),
                    result.server_build,
                    json.dumps(result.request, ensure_ascii=False),
                    json.dumps(result.counts) if result.counts is not None else None,
                    job_id,
                ),
            )

    def set_reviewed(self, job_id: int) -> None:
        with self._session() as db, db:
            db.execute(
                "UPDATE batch_jobs SET reviewed_at = ? WHERE id = ? AND reviewed_at IS NULL", (now(), job_id)
            )

    def measured(self, url: str) -> list[tuple[int, float, float]]:
        """(concurrency, tokens, seconds of the job) of every finished job whose request went to ``url``."""
        with self._session() as db:
            rows = db.execute(
                """SELECT concurrency, tokens, seconds, request_json FROM batch_jobs
                   WHERE state = 'done' AND concurrency IS NOT NULL AND tokens > 0 AND seconds > 0""",
            ).fetchall()
        out = []
        for concurrency, tokens, seconds, request in rows:
            urls = {r.get("url") for r in json.loads(request or "{}").get("roles", {}).values()}
            if url in urls:
                out.append((int(concurrency), float(tokens), float(seconds)))
        return out


def _job(r: sqlite3.Row) -> Job:
    def load(name: str) -> Any:
        return json.loads(r[name]) if r[name] is not None else None

    return Job(
        id=int(r["id"]),
        batch_id=int(r["batch_id"]),
        line_no=int(r["line_no"]),
        row_name=r["row_name"],
        fields=json.loads(r["fields_json"]),
        matter=r["matter"],
        task=r["task"],
        instructions=r["instructions"],
        state=r["state"],
        run_id=r["run_id"],
        attempts=int(r["attempts"]),
        error=r["error"],
        started_at=r["started_at"],
        finished_at=r["finished_at"],
        seconds=r["seconds"],
        tokens=r["tokens"],
        decode_tok_s=r["decode_tok_s"],
        concurrency=r["concurrency"],
        server_busy=r["server_busy"],
        seed=load("seed_json"),
        server_build=r["server_build"],
        request=load("request_json"),
        counts=load("counts_json"),
        reviewed_at=r["reviewed_at"],
    )
