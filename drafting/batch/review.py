"""A batch's jobs as the attorney reviews them: contradicted drafts first, then what failed, then the rest.

Each row carries the verifier's counts for the job's draft: contradicted (blocking), unverifiable
(to check by hand) and verified (grounded in the matter). "Next unreviewed" walks this same order,
so the drafts most likely wrong are read first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drafting.batch.store import DONE, FAILED, BatchStore, Job


@dataclass(frozen=True)
class JobRow:
    job: Job

    @property
    def contradicted(self) -> int:
        return (self.job.counts or {}).get("block", 0)

    @property
    def unverifiable(self) -> int:
        return (self.job.counts or {}).get("warn", 0)

    @property
    def verified(self) -> int:
        return (self.job.counts or {}).get("ok", 0)

    @property
    def reviewed(self) -> bool:
        return self.job.reviewed_at is not None

    def verdict(self) -> str:
        if self.job.counts is None:
            return "-"
        return f"{self.contradicted}/{self.unverifiable}/{self.verified}"

    def text(self) -> str:
        j = self.job
        tokens = "-" if j.tokens is None else str(j.tokens)
        secs = "-" if j.seconds is None else f"{j.seconds:.1f}s"
        seen = "seen" if self.reviewed else ""
        return f"{j.line_no:>5} {j.row_name[:24]:<24} {j.state:<8} {self.verdict():>8} {tokens:>6} {secs:>7} {seen}"


HEADER = f"{'line':>5} {'row':<24} {'state':<8} {'c/u/v':>8} {'tokens':>6} {'time':>7}"


def sort_key(row: JobRow) -> tuple[int, int, int, int]:
    j = row.job
    if j.state == DONE and row.contradicted:
        group = 0
    elif j.state == FAILED:
        group = 1
    elif j.state == DONE:
        group = 2
    else:
        group = 3
    return (group, -row.contradicted, -row.unverifiable, j.line_no)


def job_rows(database_file: Path, name: str) -> list[JobRow]:
    store = BatchStore(database_file)
    return sorted((JobRow(j) for j in store.jobs(store.batch(name).id)), key=sort_key)


def next_unreviewed(rows: list[JobRow], after: int | None = None) -> JobRow | None:
    """The first finished job not yet opened, in review order (after the job ``after`` where given,
    wrapping round)."""
    pending = [r for r in rows if r.job.state == DONE and r.job.run_id is not None and not r.reviewed]
    if after is not None:
        ids = [r.job.id for r in rows]
        if after in ids:
            at = ids.index(after)
            later = [r for r in pending if ids.index(r.job.id) > at]
            pending = later + [r for r in pending if r not in later]
    return pending[0] if pending else None
