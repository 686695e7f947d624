"""The drafting room's tables: runs and every attempt at each of their stages.

Every SQL statement of the room's runs is here; ``RunStore`` hands back the types of
``drafting.runs``. Each call opens its own short connection, so any thread may call.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from drafting import schema as drafting_schema
from drafting.runs import RUNNING, Choice, ContextSource, Run, RunNotFound, StageRecord, now
from workspace.database import session


class RunStore:
    """Reads and writes runs. Each call opens its own short connection (any thread may call)."""

    def __init__(self, database_file: Path) -> None:
        self.database_file = database_file

    def _session(self) -> AbstractContextManager[sqlite3.Connection]:
        return session(self.database_file, drafting_schema.SCHEMA)

    def create(
        self, matter: str, task_type: str, instructions: str, drafter_role: str, plan: list[str]
    ) -> Run:
        with self._session() as db:
            with db:
                cur = db.execute(
                    """INSERT INTO drafting_runs (created_at, updated_at, matter, task_type, instructions,
                           drafter_role, plan_json, status, choices_json, sources_json, context_note)
                       VALUES (?, ?, ?, ?, ?, ?, ?, 'created', '[]', '[]', '')""",
                    (now(), now(), matter, task_type, instructions, drafter_role, json.dumps(plan)),
                )
            return self.load(int(cur.lastrowid or 0))

    def set_status(self, run_id: int, status: str) -> None:
        self._update_run(run_id, "status = ?", (status,))

    def set_drafter(self, run_id: int, role: str) -> None:
        self._update_run(run_id, "drafter_role = ?", (role,))

    def add_choice(self, run_id: int, choice: Choice) -> None:
        run = self.load(run_id)
        choices = [*run.choices, choice]
        self._update_run(run_id, "choices_json = ?", (json.dumps([c.__dict__ for c in choices]),))

    def set_sources(self, run_id: int, sources: list[ContextSource], note: str) -> None:
        self._update_run(
            run_id,
            "sources_json = ?, context_note = ?",
            (json.dumps([s.__dict__ for s in sources], ensure_ascii=False), note),
        )

    def _update_run(self, run_id: int, assignments: str, values: tuple[Any, ...]) -> None:
        with self._session() as db, db:
            db.execute(
                f"UPDATE drafting_runs SET {assignments}, updated_at = ? WHERE id = ?",
                (*values, now(), run_id),
            )

    def start_stage(
        self,
        run_id: int,
        stage: str,
        role: str | None,
        backend: str | None,
        url: str | None,
        model: str | None,
        messages: list[dict[str, Any]],
    ) -> StageRecord:
        with self._session() as db:
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM drafting_stages WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            started = now()
            with db:
                cur = db.execute(
                    """INSERT INTO drafting_stages (run_id, seq, stage, role, backend, url, model,
                           messages_json, output_text, result_json, status, started_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', '{}', 'running', ?)""",
                    (
                        run_id,
                        seq,
                        stage,
                        role,
                        backend,
                        url,
                        model,
                        json.dumps(messages, ensure_ascii=False),
                        started,
                    ),
                )
            return StageRecord(
                int(cur.lastrowid or 0),
                run_id,
                int(seq),
                stage,
                role,
                backend,
                url,
                model,
                None,
                messages,
                "",
                {},
                RUNNING,
                started,
            )

    def save_partial(self, stage_id: int, text: str) -> None:
        """The streamed text so far: a crash or a cancel keeps what came."""
        with self._session() as db, db:
            db.execute("UPDATE drafting_stages SET output_text = ? WHERE id = ?", (text, stage_id))

    def finish_stage(self, record: StageRecord) -> None:
        """Write the attempt's outcome (status, output, result, build, timings, error)."""
        record.finished_at = record.finished_at or now()
        with self._session() as db, db:
            db.execute(
                """UPDATE drafting_stages SET model = ?, server_build = ?, messages_json = ?,
                           output_text = ?, result_json = ?, status = ?, finished_at = ?, seconds = ?,
                           model_seconds = ?, timings_json = ?, error = ?, adapter = ?, adapter_sha256 = ?
                       WHERE id = ?""",
                (
                    record.model,
                    record.server_build,
                    json.dumps(record.messages, ensure_ascii=False),
                    record.output,
                    json.dumps(record.result, ensure_ascii=False),
                    record.status,
                    record.finished_at,
                    record.seconds,
                    record.model_seconds,
                    json.dumps(record.timings) if record.timings is not None else None,
                    record.error,
                    record.adapter,
                    record.adapter_sha256,
                    record.id,
                ),
            )

    def mark_interrupted(self, run_id: int) -> int:
        """Attempts left 'running' by a process that died; returns how many."""
        with self._session() as db:
            with db:
                cur = db.execute(
                    """UPDATE drafting_stages SET status = 'interrupted', finished_at = ?,
                           error = 'the process running this stage stopped before it finished'
                       WHERE run_id = ? AND status = 'running'""",
                    (now(), run_id),
                )
            return cur.rowcount

    def load(self, run_id: int) -> Run:
        with self._session() as db:
            row = db.execute("SELECT * FROM drafting_runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise RunNotFound(
                    f"There is no run number {run_id}. `chambers runs list` shows the runs there are."
                )
            stages = [
                _stage_from_row(r)
                for r in db.execute("SELECT * FROM drafting_stages WHERE run_id = ? ORDER BY seq", (run_id,))
            ]
        return Run(
            id=int(row["id"]),
            created_at=row["created_at"],
            matter=row["matter"],
            task_type=row["task_type"],
            instructions=row["instructions"],
            drafter_role=row["drafter_role"],
            plan=json.loads(row["plan_json"]),
            status=row["status"],
            choices=[Choice(**c) for c in json.loads(row["choices_json"])],
            sources=[ContextSource(**s) for s in json.loads(row["sources_json"])],
            context_note=row["context_note"],
            stages=stages,
        )

    def list(self, limit: int = 50) -> list[Run]:
        with self._session() as db:
            ids = [
                r[0] for r in db.execute("SELECT id FROM drafting_runs ORDER BY id DESC LIMIT ?", (limit,))
            ]
        return [self.load(i) for i in ids]

    def holding(
        self, words: Sequence[str], *, in_flags: bool = False, limit: int = 20
    ) -> builtins.list[Run]:  # the builtin: ``list`` here is the method above
        """The newest runs whose task, instructions and draft hold each of ``words`` (lower case: SQLite
        lowers ASCII only); ``in_flags``: whose completed verification holds them, the runs a search of
        flags reads (its stored marks carry each flag's text and message)."""
        if not words:
            return []
        if in_flags:
            stages, text = "s.stage = 'verify' AND s.status = 'completed'", "s.result_json"
            of_run = "''"
        else:
            stages, text = "s.stage = 'draft'", "s.output_text"
            of_run = "r.task_type || ' ' || r.instructions"
        held = " AND ".join(["instr(text, ?) > 0"] * len(words))
        sql = f"""WITH t AS (
                     SELECT r.id, lower({of_run} || ' ' || COALESCE((SELECT group_concat({text}, ' ')
                         FROM drafting_stages s WHERE s.run_id = r.id AND {stages}), '')) AS text
                     FROM drafting_runs r)
                  SELECT id FROM t WHERE {held} ORDER BY id DESC LIMIT ?"""
        with self._session() as db:
            ids = [int(r[0]) for r in db.execute(sql, (*words, limit))]
        return [self.load(i) for i in ids]


def _stage_from_row(r: sqlite3.Row) -> StageRecord:
    return StageRecord(
        id=int(r["id"]),
        run_id=int(r["run_id"]),
        seq=int(r["seq"]),
        stage=r["stage"],
        role=r["role"],
        backend=r["backend"],
        url=r["url"],
        model=r["model"],
        server_build=r["server_build"],
        messages=json.loads(r["messages_json"]),
        output=r["output_text"],
        result=json.loads(r["result_json"]),
        status=r["status"],
        started_at=r["started_at"],
        finished_at=r["finished_at"],
        seconds=r["seconds"],
        model_seconds=r["model_seconds"],
        timings=json.loads(r["timings_json"]) if r["timings_json"] else None,
        error=r["error"],
        adapter=r["adapter"],
        adapter_sha256=r["adapter_sha256"],
    )
