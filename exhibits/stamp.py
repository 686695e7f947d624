"""A Bates production: stamped copies of source PDFs, numbered on from the matter's registry.

The whole production is planned and checked before any page is touched
(numbers fit the width, the range is free, no output lands on a source). The
range is then reserved as a pending production (re-checked inside the same
transaction), each document is stamped into a temporary file, and only when
every file is complete on disk is the production recorded as written and the
files renamed into place. A failure anywhere leaves no output and issues no
numbers; a crash is finished or rolled back at the next start
(exhibits.pending). Documents are opened one at a time, so memory stays flat
however long the production.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pymupdf

from evidence.bates import bates_on_page
from evidence.errors import UnreadablePdf
from evidence.pdf_open import MUPDF_ERRORS, PDF_FAILURES, load_page, open_pdf
from evidence.store import require_matter
from exhibits import placement
from exhibits.errors import AlreadyStamped
from exhibits.numbering import BatesFormat, check_width
from exhibits.pdfio import (
    LeftOut,
    as_unreadable,
    check_outputs,
    describe_left_out,
    guard_outputs,
    nothing_readable,
    readable_pdfs,
    save_to_temp,
)
from exhibits.pending import Step, publish_files, recover_productions, remove_stray_temps
from exhibits.registry import LoggedDocument, check_free, next_free, record_written, reserve_range
from exhibits.store import open_exhibits
from workspace.digest import file_sha256
from workspace.paths import sync_file, temp_name, write_temp

LOG_NAME = "production-log.csv"


@dataclass(frozen=True)
class Progress:
    """One page done: for a progress bar (``done`` of ``total`` pages) and a line of text."""

    done: int
    total: int
    document: str


ProgressFn = Callable[[Progress], None]


@dataclass(frozen=True)
class PlannedDocument:
    source: Path
    output: Path
    page_count: int
    first_number: int

    @property
    def last_number(self) -> int:
        return self.first_number + self.page_count - 1


@dataclass
class ProductionPlan:
    """What a production would do; the dry run prints it and writes nothing."""

    matter: str
    fmt: BatesFormat
    out_dir: Path
    documents: list[PlannedDocument]
    corner: str = "bottom-right"
    restamp: bool = False
    settled: list[str] = field(default_factory=list)  # what a crash had left, finished or rolled back
    left_out: list[LeftOut] = field(default_factory=list)  # sources that cannot be read, with why

    @property
    def pages(self) -> int:
        return sum(d.page_count for d in self.documents)

    @property
    def first(self) -> int:
        return self.documents[0].first_number

    @property
    def last(self) -> int:
        return self.documents[-1].last_number

    def describe(self) -> list[str]:
        lines = [
            f"Production for matter '{self.matter}': {len(self.documents)} document(s), {self.pages} pages, "
            f"{self.fmt.label(self.first)}..{self.fmt.label(self.last)}, stamped {self.corner}",
            f"Output folder: {self.out_dir}",
        ]
        for d in self.documents:
            lines.append(
                f"  {self.fmt.label(d.first_number)}..{self.fmt.label(d.last_number)}  "
                f"{d.page_count:>5} p.  {d.source.name} -> {d.output.name}"
            )
        return self.settled + lines + describe_left_out(self.left_out)


@dataclass
class ProductionResult:
    plan: ProductionPlan
    production_id: int
    log_csv: Path
    documents: list[LoggedDocument] = field(default_factory=list)

    @property
    def shrunk(self) -> list[tuple[str, int]]:
        """(file name, page) of every page whose content was shrunk to make room for the stamp."""
        return [(Path(d.source_path).name, p) for d in self.documents for p in d.shrunk_pages]


def plan_production(
    db_path: Path,
    matter: str,
    sources: Sequence[Path],
    fmt: BatesFormat,
    out_dir: Path,
    *,
    start: int | None = None,
    corner: str = "bottom-right",
    restamp: bool = False,
) -> ProductionPlan:
    """Check everything that can be checked before writing: files open, width fits, range is free.

    Nothing is reserved: the range is checked again when the production is run."""
    with open_exhibits(db_path) as db:
        matter_id = require_matter(db, matter).id
        settled = recover_productions(db)  # an earlier production a crash left unfinished is settled first
        remove_stray_temps(out_dir)
        readable, left_out = readable_pdfs(sources)
        if not readable:
            raise nothing_readable(left_out)
        sources = [path for path, _ in readable]
        counts = [count for _, count in readable]
        first = start if start is not None else next_free(db, matter_id, fmt.prefix)
        total = sum(counts)
        check_width(fmt, first, total)
        check_free(db, matter_id, fmt, first, first + total - 1)
    documents, number = [], first
    for source, count in zip(sources, counts, strict=True):
        documents.append(PlannedDocument(Path(source), out_dir / Path(source).name, count, number))
        number += count
    guard_outputs(
        db_path, out_dir, [d.output for d in documents] + [out_dir / LOG_NAME], "output folder (--out)"
    )
    check_outputs([d.output for d in documents] + [out_dir / LOG_NAME], sources)
    return ProductionPlan(matter, fmt, out_dir, documents, corner, restamp, settled, left_out)


def stamp_document(
    doc: pymupdf.Document,
    fmt: BatesFormat,
    first: int,
    *,
    name: str,
    corner: str = "bottom-right",
    restamp: bool = False,
    progress: Callable[[], None] = lambda: None,
) -> list[int]:
    """Stamp every page of ``doc`` from ``first`` on; returns the 1-based pages that were shrunk."""
    shrunk = []
    stamper = placement.Stamper(doc)
    for index in range(doc.page_count):
        page = load_page(doc, index, name)
        label = fmt.label(first + index)
        boxes = placement.content_boxes(page)
        if not restamp:
            _refuse_existing_stamp(page, boxes, name, index)
        spot = placement.place(page, label, corner, boxes)
        if spot.scale < 1.0:
            shrunk.append(index + 1)
        stamper.draw(page, label, spot.box)
        progress()
    return shrunk


def preview_shrinks(plan: ProductionPlan) -> list[tuple[str, int]]:
    """For the dry run: (file, page) of each page that would be shrunk; an existing stamp is refused here too."""
    found = []
    for planned in plan.documents:
        doc = open_pdf(planned.source)
        try:
            for index in range(doc.page_count):
                page = load_page(doc, index, str(planned.source))
                boxes = placement.content_boxes(page)
                if not plan.restamp:
                    _refuse_existing_stamp(page, boxes, str(planned.source), index)
                box = placement.stamp_box(page, plan.fmt.label(planned.first_number + index), plan.corner)
                if placement.overlaps(box, boxes):
                    found.append((planned.source.name, index + 1))
        except MUPDF_ERRORS as exc:
            raise as_unreadable(planned.source, exc) from exc
        finally:
            doc.close()
    return found


STAMP_BAND = 60.0  # points from the top and bottom edges where a Bates stamp sits (margins are 72)


def _refuse_existing_stamp(page: pymupdf.Page, boxes: list[pymupdf.Rect], name: str, index: int) -> None:
    """A stamp is a line of its own in the head or foot margin; text is read there only when some is drawn."""
    visible = page.rect
    for band in (
        pymupdf.Rect(0, visible.height - STAMP_BAND, visible.width, visible.height),
        pymupdf.Rect(0, 0, visible.width, STAMP_BAND),
    ):
        if not any(band.intersects(b) for b in boxes):
            continue
        text = page.get_text(clip=band * page.derotation_matrix)
        found = bates_on_page(text) if text.strip() else None
        if found:
            raise AlreadyStamped(
                f"{name}, page {index + 1} already carries the Bates stamp {found.text}. Nothing was "
                "written. Produce the unstamped original, or pass --restamp to stamp it again anyway."
            )


class _DocumentFailed(Exception):
    def __init__(self, planned: PlannedDocument, error: UnreadablePdf) -> None:
        super().__init__(error.message)
        self.planned, self.error = planned, error


def run_production(
    db_path: Path, plan: ProductionPlan, progress: ProgressFn | None = None, step: Step | None = None
) -> ProductionResult:
    """Reserve the range, stamp every document into a temporary file, record, then rename into place.

    Nothing is published or issued unless every document succeeds, and a crash at any step leaves a
    production that the next start finishes or rolls back (exhibits.pending). A document MuPDF fails
    on while it is stamped or saved is left out with its notice, and the production is made again
    without it, numbered from the same first number (nothing had been issued). ``step`` is told the
    name of each step as it is reached.
    """
    while True:
        try:
            return _produce(db_path, plan, progress, step)
        except _DocumentFailed as failed:
            plan = _without(plan, failed)


def _without(plan: ProductionPlan, failed: _DocumentFailed) -> ProductionPlan:
    left_out = [*plan.left_out, LeftOut(failed.planned.source, failed.error)]
    kept = [d for d in plan.documents if d is not failed.planned]
    if not kept:
        raise nothing_readable(left_out) from failed
    documents, number = [], plan.first
    for d in kept:
        documents.append(PlannedDocument(d.source, d.output, d.page_count, number))
        number += d.page_count
    return replace(plan, documents=documents, left_out=left_out)


def _produce(
    db_path: Path, plan: ProductionPlan, progress: ProgressFn | None, step: Step | None
) -> ProductionResult:
    report = progress or (lambda p: None)
    reached = step or (lambda name: None)
    log_csv = plan.out_dir / LOG_NAME
    files = [(temp_name(d.output), d.output) for d in plan.documents] + [(temp_name(log_csv), log_csv)]
    with open_exhibits(db_path) as db:
        matter_id = require_matter(db, plan.matter).id
        production_id = reserve_range(
            db, matter_id, "production", plan.fmt, plan.out_dir, plan.first, plan.last, files
        )
        reached("reserved")
        try:
            logged = _stamp_all(plan, report, reached)
            write_temp(log_csv, production_log_csv(plan.fmt, logged))
            hashes = {temp: file_sha256(temp) for temp, _ in files}
            reached("complete")
            record_written(db, production_id, logged, hashes)
        except BaseException:
            recover_productions(db, abandoned=production_id)
            raise
        reached("recorded")
        publish_files(db, production_id, files, reached)
    reached("done")
    return ProductionResult(plan, production_id, log_csv, logged)


def _stamp_all(plan: ProductionPlan, report: ProgressFn, reached: Step) -> list[LoggedDocument]:
    """Stamp each document into its temporary file, on disk (fsync) before the next is begun."""
    logged: list[LoggedDocument] = []
    done = 0
    for seq, planned in enumerate(plan.documents, start=1):
        source_sha = file_sha256(planned.source)
        doc = open_pdf(planned.source)
        try:

            def tick(name: str = planned.source.name) -> None:
                nonlocal done
                done += 1
                report(Progress(done, plan.pages, name))

            shrunk = stamp_document(
                doc,
                plan.fmt,
                planned.first_number,
                name=str(planned.source),
                corner=plan.corner,
                restamp=plan.restamp,
                progress=tick,
            )
            tmp = save_to_temp(doc, planned.output)
        except PDF_FAILURES as exc:
            raise _DocumentFailed(planned, as_unreadable(planned.source, exc)) from exc
        finally:
            doc.close()
        sync_file(tmp)
        logged.append(
            LoggedDocument(
                seq,
                str(planned.source.absolute()),
                source_sha,
                str(planned.output.absolute()),
                file_sha256(tmp),
                planned.page_count,
                planned.first_number,
                planned.last_number,
                tuple(shrunk),
            )
        )
        reached(f"stamped {seq}")
    return logged


def production_log_csv(fmt: BatesFormat, documents: Sequence[LoggedDocument]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    # file,bates_begin first: the columns evidence ingest reads from a production-log.csv
    writer.writerow(
        [
            "file",
            "bates_begin",
            "bates_end",
            "pages",
            "seq",
            "source",
            "source_sha256",
            "output",
            "output_sha256",
            "shrunk_pages",
        ]
    )
    for d in documents:
        writer.writerow(
            [
                Path(d.output_path).name,
                fmt.label(d.first_number),
                fmt.label(d.last_number),
                d.page_count,
                d.seq,
                d.source_path,
                d.source_sha256,
                d.output_path,
                d.output_sha256,
                " ".join(map(str, d.shrunk_pages)),
            ]
        )
    return out.getvalue().encode("utf-8")
