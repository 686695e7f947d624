"""``chambers batch export``: one file per accepted job, named from its row, never one that still blocks.

A job is accepted when the attorney accepted its draft (the corrections room keeps that pair; its
run ids are passed in). What is exported is his text of the draft as he last saved it (the model's
draft where he did not edit it), verified again against the matter first: a text with a blocking
flag (a contradicted figure, date or citation he has not overridden with a reason) is refused and
listed, the rest are written. Each exported text is registered as chambers' own output, so it never
comes back as evidence.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from drafting.batch.store import DONE, BatchStore, Job
from drafting.drafts import store as drafts
from drafting.export import clean_docx, export_title, write_export
from drafting.session import reverify
from drafting.stages import IssuedRanges
from drafting.store import RunStore
from drafting.verify import MatterIndex, load_matter_index, may_export_final
from evidence.provenance import register_output
from workspace.errors import ChambersError

FORMATS = ("docx", "md")


class BatchExportError(ChambersError):
    title = "The batch cannot be exported"


@dataclass
class Exported:
    written: list[Path] = field(default_factory=list)
    refused: list[tuple[Job, str]] = field(default_factory=list)  # (job, why it may not go out)
    not_accepted: list[Job] = field(default_factory=list)
    not_done: list[Job] = field(default_factory=list)


def export_batch(
    database_file: Path,
    name: str,
    fmt: str,
    out: Path,
    accepted: Collection[int],
    *,
    template: Path | None = None,
    issued_ranges: IssuedRanges | None = None,
) -> Exported:
    """Write each accepted, unblocked job of batch ``name`` into ``out``; a file already there is kept
    and the new one takes the next free ``-vN`` name (a letter may have gone out already)."""
    if fmt not in FORMATS:
        raise BatchExportError(f"--format takes docx or md, not '{fmt}'.")
    if out.exists() and not out.is_dir():
        raise BatchExportError(f"{out} is a file. Give --out a folder to write the letters into.")
    out.mkdir(parents=True, exist_ok=True)
    store = BatchStore(database_file)
    batch = store.batch(name)
    runs = RunStore(database_file)
    indexes: dict[str, MatterIndex] = {}
    result = Exported()
    used: set[str] = set()
    for job in store.iter_jobs(batch.id):
        if job.state != DONE or job.run_id is None:
            result.not_done.append(job)
            continue
        if job.run_id not in accepted:
            result.not_accepted.append(job)
            continue
        run = runs.load(job.run_id)
        saved = drafts.load(database_file, run.id)
        text = saved.text if saved is not None else run.draft
        if run.matter not in indexes:
            issued = list(issued_ranges(run.matter)) if issued_ranges is not None else []
            indexes[run.matter] = load_matter_index(database_file, run.matter, productions=issued)
        report, _ = reverify(database_file, run, text, indexes[run.matter])
        allowed, why = may_export_final(report)
        if not allowed:
            result.refused.append((job, why))
            continue
        stem = job.row_name if job.row_name not in used else f"{job.row_name}-line{job.line_no}"
        used.add(stem)
        path = _free(out, stem, fmt)
        title = export_title(run.task_type, run.matter)
        data = clean_docx(text, title=title, template=template) if fmt == "docx" else text.encode("utf-8")
        write_export(path, data)
        if text.strip():
            register_output(database_file, text, "export")
        result.written.append(path)
    return result


def _free(out: Path, stem: str, fmt: str) -> Path:
    version = 1
    while True:
        path = out / (f"{stem}.{fmt}" if version == 1 else f"{stem}-v{version}.{fmt}")
        if not path.exists():
            return path
        version += 1
