"""Runs of the drafting pipeline: the stable types other rooms read, and their persistence.

A run is the legal audit trail of one draft. Servers batch requests, so nothing
can be re-created by calling again; every stage therefore keeps the exact
messages it sent, what came back, which backend, model and server build
answered, and how long it took. The corrections room (issue 9) and the
workstation screen (issue 8) read these types; keep them stable.

Each attempt at a stage is its own ``StageRecord`` row: a draft cut short by a
crash or a cancel stays on the record with its partial text, and the resumed
attempt is a new row after it.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workspace.database import connect
from workspace.errors import ChambersError

# Stage status: what became of one attempt at a stage.
RUNNING, COMPLETED, FAILED, REFUSED, CANCELLED, INTERRUPTED, STOPPED = (
    "running", "completed", "failed", "refused", "cancelled", "interrupted", "stopped",
)  # fmt: skip
# Run status: the same words, plus "created" and "stopped" (the gate found no basis).
RUN_DONE = COMPLETED


class RunNotFound(ChambersError):
    title = "No such run"


@dataclass(frozen=True)
class Choice:
    """A decision the attorney made for this run, recorded with its reason.

    kind: ``reroute`` (``stage`` runs on backend ``value``), ``gate_override``
    (go on although the gate said no), ``drafter`` (the drafter role chosen),
    ``task`` (the task type chosen over the router's suggestion).
    """

    kind: str
    stage: str | None
    value: str
    reason: str
    at: str


@dataclass(frozen=True)
class ContextSource:
    """One evidence chunk as a model saw it, with where it came from and which message carried it.

    ``message`` is the index of the message that carried the chunk in the stages sent the sources,
    and ``start``/``end`` the span of its rendered text there; None in runs stored without them.
    """

    label: str
    path: str
    part: str
    page_no: int
    bates: str | None
    sha256: str
    text: str
    message: int | None = None
    start: int | None = None
    end: int | None = None


@dataclass
class StageRecord:
    """One attempt at one stage: exactly what was sent, to whom, and what came back."""

    id: int
    run_id: int
    seq: int
    stage: str  # route | gate | draft | review | verify
    role: str | None  # the config role whose backend answered (None for verify: it is code)
    backend: str | None
    url: str | None
    model: str | None
    server_build: str | None
    messages: list[dict[str, Any]]  # exact, as sent
    output: str  # the model's text (partial while streaming or when cut short)
    result: dict[str, Any]  # the stage's parsed answer (route choice, gate verdict, findings, flags)
    status: str
    started_at: str
    finished_at: str | None = None
    seconds: float | None = None  # wall time of the stage
    model_seconds: float | None = None  # of which spent waiting on the model server
    timings: dict[str, Any] | None = None  # the server's own figures (prompt_n, predicted_per_second...)
    error: str | None = None
    adapter: str | None = None  # the LoRA adapter(s) the request carried, by name ("a,b" for two)
    adapter_sha256: str | None = None  # of each adapter's file, where the server's file is on this machine


@dataclass
class Run:
    id: int
    created_at: str
    matter: str
    task_type: str
    instructions: str
    drafter_role: str  # "drafter" (workhorse) or "heavy", or "extractor" for extraction tasks
    plan: list[str]  # the stages, in order
    status: str
    choices: list[Choice] = field(default_factory=list)
    sources: list[ContextSource] = field(default_factory=list)
    context_note: str = ""  # how the evidence was counted and what was left out
    stages: list[StageRecord] = field(default_factory=list)

    def completed(self, stage: str) -> StageRecord | None:
        """The completed attempt at ``stage``, if any (the last one)."""
        done = [s for s in self.stages if s.stage == stage and s.status == COMPLETED]
        return done[-1] if done else None

    def next_stage(self) -> str | None:
        """The first stage of the plan not yet completed: where a resume starts."""
        return next((s for s in self.plan if self.completed(s) is None), None)

    @property
    def draft(self) -> str:
        """The draft: the completed draft stage's text, else the latest partial text."""
        done = self.completed("draft")
        if done is not None:
            return done.output
        tries = [s for s in self.stages if s.stage == "draft"]
        return tries[-1].output if tries else ""

    def reroute_for(self, stage: str) -> str | None:
        chosen = [c.value for c in self.choices if c.kind == "reroute" and c.stage == stage]
        return chosen[-1] if chosen else None

    def choice(self, kind: str) -> Choice | None:
        found = [c for c in self.choices if c.kind == kind]
        return found[-1] if found else None


def now() -> str:
    return datetime.now(UTC).isoformat()


class RunStore:
    """Reads and writes runs. Each call opens its own short connection (any thread may call)."""

    def __init__(self, database_file: Path) -> None:
        self.database_file = database_file

    def _db(self) -> sqlite3.Connection:
        return connect(self.database_file)

    def create(
        self, matter: str, task_type: str, instructions: str, drafter_role: str, plan: list[str]
    ) -> Run:
        db = self._db()
        try:
            with db:
                cur = db.execute(
                    """INSERT INTO drafting_runs (created_at, updated_at, matter, task_type, instructions,
                           drafter_role, plan_json, status, choices_json, sources_json, context_note)
                       VALUES (?, ?, ?, ?, ?, ?, ?, 'created', '[]', '[]', '')""",
                    (now(), now(), matter, task_type, instructions, drafter_role, json.dumps(plan)),
                )
            return self.load(int(cur.lastrowid or 0))
        finally:
            db.close()

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
        db = self._db()
        try:
            with db:
                db.execute(
                    f"UPDATE drafting_runs SET {assignments}, updated_at = ? WHERE id = ?",
                    (*values, now(), run_id),
                )
        finally:
            db.close()

    def start_stage(
        self, run_id: int, stage: str, role: str | None, backend: str | None, url: str | None,
        model: str | None, messages: list[dict[str, Any]],
    ) -> StageRecord:  # fmt: skip
        db = self._db()
        try:
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM drafting_stages WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            started = now()
            with db:
                cur = db.execute(
                    """INSERT INTO drafting_stages (run_id, seq, stage, role, backend, url, model,
                           messages_json, output_text, result_json, status, started_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', '{}', 'running', ?)""",
                    (run_id, seq, stage, role, backend, url, model,
                     json.dumps(messages, ensure_ascii=False), started),
                )  # fmt: skip
            return StageRecord(
                int(cur.lastrowid or 0), run_id, int(seq), stage, role, backend, url, model, None,
                messages, "", {}, RUNNING, started,
            )  # fmt: skip
        finally:
            db.close()

    def save_partial(self, stage_id: int, text: str) -> None:
        """The streamed text so far: a crash or a cancel keeps what came."""
        db = self._db()
        try:
            with db:
                db.execute("UPDATE drafting_stages SET output_text = ? WHERE id = ?", (text, stage_id))
        finally:
            db.close()

    def finish_stage(self, record: StageRecord) -> None:
        """Write the attempt's outcome (status, output, result, build, timings, error)."""
        record.finished_at = record.finished_at or now()
        db = self._db()
        try:
            with db:
                db.execute(
                    """UPDATE drafting_stages SET model = ?, server_build = ?, messages_json = ?,
                           output_text = ?, result_json = ?, status = ?, finished_at = ?, seconds = ?,
                           model_seconds = ?, timings_json = ?, error = ?, adapter = ?, adapter_sha256 = ?
                       WHERE id = ?""",
                    (record.model, record.server_build, json.dumps(record.messages, ensure_ascii=False),
                     record.output, json.dumps(record.result, ensure_ascii=False), record.status,
                     record.finished_at, record.seconds, record.model_seconds,
                     json.dumps(record.timings) if record.timings is not None else None,
                     record.error, record.adapter, record.adapter_sha256, record.id),
                )  # fmt: skip
        finally:
            db.close()

    def mark_interrupted(self, run_id: int) -> int:
        """Attempts left 'running' by a process that died; returns how many."""
        db = self._db()
        try:
            with db:
                cur = db.execute(
                    """UPDATE drafting_stages SET status = 'interrupted', finished_at = ?,
                           error = 'the process running this stage stopped before it finished'
                       WHERE run_id = ? AND status = 'running'""",
                    (now(), run_id),
                )
            return cur.rowcount
        finally:
            db.close()

    def load(self, run_id: int) -> Run:
        db = self._db()
        try:
            row = db.execute("SELECT * FROM drafting_runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise RunNotFound(
                    f"There is no run number {run_id}. `chambers runs list` shows the runs there are."
                )
            stages = [
                _stage_from_row(r)
                for r in db.execute("SELECT * FROM drafting_stages WHERE run_id = ? ORDER BY seq", (run_id,))
            ]
        finally:
            db.close()
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
        db = self._db()
        try:
            ids = [
                r[0] for r in db.execute("SELECT id FROM drafting_runs ORDER BY id DESC LIMIT ?", (limit,))
            ]
        finally:
            db.close()
        return [self.load(i) for i in ids]


def _stage_from_row(r: sqlite3.Row) -> StageRecord:
    return StageRecord(
        id=int(r["id"]), run_id=int(r["run_id"]), seq=int(r["seq"]), stage=r["stage"], role=r["role"],
        backend=r["backend"], url=r["url"], model=r["model"], server_build=r["server_build"],
        messages=json.loads(r["messages_json"]), output=r["output_text"], result=json.loads(r["result_json"]),
        status=r["status"], started_at=r["started_at"], finished_at=r["finished_at"], seconds=r["seconds"],
        model_seconds=r["model_seconds"],
        timings=json.loads(r["timings_json"]) if r["timings_json"] else None, error=r["error"],
        adapter=r["adapter"], adapter_sha256=r["adapter_sha256"],
    )  # fmt: skip
