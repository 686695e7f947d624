"""Binders: chosen documents consolidated into one exhibit PDF.

Layout: an index of exhibits first (its page numbers are known before
anything is built, because page counts are read in the plan), then for each
exhibit a slip sheet ("EXHIBIT 3" and a short description) followed by the
document. Bookmarks point at the index and at each slip sheet (``set_toc``,
1-based pages). Optionally the whole binder is Bates-stamped from the matter's
registry, page by page as it is assembled. Documents are inserted in chunks
of pages and closed at once, with progress after each chunk; the exhibit list
goes out as CSV beside the binder.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pymupdf

from evidence.errors import UnreadablePdf
from evidence.pdf_open import MUPDF_ERRORS, open_pdf
from evidence.store import require_matter
from exhibits.numbering import BatesFormat, check_width
from exhibits.pdfio import (
    LeftOut,
    check_outputs,
    describe_left_out,
    discard,
    guard_outputs,
    nothing_readable,
    readable_pdfs,
    save_to_temp,
)
from exhibits.pending import Step, publish_files, recover_productions, remove_stray_temps
from exhibits.registry import LoggedDocument, check_free, next_free, record_written, reserve_range
from exhibits.stamp import Progress, ProgressFn, stamp_document
from exhibits.store import open_exhibits
from workspace.digest import file_sha256
from workspace.paths import publish, sync_file, temp_name, write_temp

SLIP_SIZE = (612, 792)  # US Letter
INDEX_ROWS = 34  # exhibits listed per index page
CHUNK_PAGES = 50  # pages inserted per step: progress stays live and a step's memory is bounded


@dataclass(frozen=True)
class Exhibit:
    source: Path
    description: str


@dataclass(frozen=True)
class PlannedExhibit:
    number: int
    exhibit: Exhibit
    page_count: int
    slip_page: int  # 1-based page of its slip sheet in the binder

    @property
    def first_page(self) -> int:
        return self.slip_page + 1

    @property
    def last_page(self) -> int:
        return self.slip_page + self.page_count


@dataclass
class BinderPlan:
    matter: str
    output: Path
    exhibits: list[PlannedExhibit]
    index_pages: int
    bates: BatesFormat | None = None
    first_number: int = 0
    restamp: bool = False
    settled: list[str] = field(default_factory=list)  # what a crash had left, finished or rolled back
    left_out: list[LeftOut] = field(default_factory=list)  # exhibits that cannot be read, with why

    @property
    def pages(self) -> int:
        return self.index_pages + sum(1 + e.page_count for e in self.exhibits)

    @property
    def list_csv(self) -> Path:
        return self.output.with_name(f"{self.output.stem}.exhibit-list.csv")

    def bates_of(self, page: int) -> str:
        return self.bates.label(self.first_number + page - 1) if self.bates else ""

    def describe(self) -> list[str]:
        stamped = (
            f", Bates {self.bates_of(1)}..{self.bates_of(self.pages)}" if self.bates else ", no Bates stamps"
        )
        lines = [
            f"Binder for matter '{self.matter}': {len(self.exhibits)} exhibit(s), {self.pages} pages{stamped}",
            f"Output: {self.output} (exhibit list {self.list_csv.name})",
            f"  p.1-{self.index_pages}  Index of exhibits",
        ]
        for e in self.exhibits:
            lines.append(
                f"  p.{e.slip_page}-{e.last_page}  Exhibit {e.number}: {e.exhibit.description} "
                f"({e.exhibit.source.name}, {e.page_count} p.)"
            )
        return self.settled + lines + describe_left_out(self.left_out)


def plan_binder(
    db_path: Path,
    matter: str,
    exhibits: Sequence[Exhibit],
    output: Path,
    *,
    bates: BatesFormat | None = None,
    start: int | None = None,
    restamp: bool = False,
) -> BinderPlan:
    with open_exhibits(db_path) as db:
        matter_id = require_matter(db, matter).id
        settled = recover_productions(db)  # an earlier production a crash left unfinished is settled first
    remove_stray_temps(output.parent)
    readable, left_out = readable_pdfs([e.source for e in exhibits])
    if not readable:
        raise nothing_readable(left_out)
    counts = dict(readable)
    kept = [(e, counts[Path(e.source)]) for e in exhibits if Path(e.source) in counts]
    plan = BinderPlan(matter, output, *_layout(kept), bates, 0, restamp, settled, left_out)
    guard_outputs(db_path, output.parent, [output, plan.list_csv], "binder file name (--out)")
    check_outputs([output, plan.list_csv], [e.source for e in exhibits])
    if bates is not None:
        with open_exhibits(db_path) as db:
            plan.first_number = start if start is not None else next_free(db, matter_id, bates.prefix)
            check_width(bates, plan.first_number, plan.pages)
            check_free(db, matter_id, bates, plan.first_number, plan.first_number + plan.pages - 1)
    return plan


def _layout(exhibits: Sequence[tuple[Exhibit, int]]) -> tuple[list[PlannedExhibit], int]:
    """Exhibit numbers and slip-sheet pages for (exhibit, page count) in order, and the index's pages."""
    index_pages = max(1, -(-len(exhibits) // INDEX_ROWS))
    planned, page = [], index_pages + 1
    for number, (exhibit, count) in enumerate(exhibits, start=1):
        planned.append(PlannedExhibit(number, exhibit, count, page))
        page += 1 + count
    return planned, index_pages


class _ExhibitFailed(Exception):
    def __init__(self, item: PlannedExhibit, error: UnreadablePdf) -> None:
        super().__init__(error.message)
        self.item, self.error = item, error


def run_binder(
    db_path: Path, plan: BinderPlan, progress: ProgressFn | None = None, step: Step | None = None
) -> BinderPlan:
    """Build the binder; an exhibit MuPDF cannot copy is left out with its notice and the rest rebuilt.

    Returns the plan as built (it differs from ``plan`` when an exhibit was left out).
    """
    while True:
        try:
            return _build(db_path, plan, progress, step or (lambda name: None))
        except _ExhibitFailed as failed:
            kept = [(e.exhibit, e.page_count) for e in plan.exhibits if e is not failed.item]
            left_out = [*plan.left_out, LeftOut(failed.item.exhibit.source, failed.error)]
            if not kept:
                raise nothing_readable(left_out) from failed
            plan = replace(plan, exhibits=[], left_out=left_out)
            plan.exhibits, plan.index_pages = _layout(kept)


def _build(db_path: Path, plan: BinderPlan, progress: ProgressFn | None, step: Step) -> BinderPlan:
    """Reserve the Bates range (if any), assemble into a temporary file, record it, then rename into place."""
    files = [(temp_name(plan.output), plan.output), (temp_name(plan.list_csv), plan.list_csv)]
    with open_exhibits(db_path) as db:
        production_id = None
        if plan.bates is not None:
            last = plan.first_number + plan.pages - 1
            production_id = reserve_range(
                db,
                require_matter(db, plan.matter).id,
                "binder",
                plan.bates,
                plan.output.parent,
                plan.first_number,
                last,
                files,
            )
            step("reserved")
        try:
            tmp = _assemble(plan, progress or (lambda p: None))
            sync_file(tmp)
            write_temp(plan.list_csv, exhibit_list_csv(plan))
            step("complete")
            if production_id is not None:
                sha = file_sha256(tmp)
                whole = LoggedDocument(
                    1,
                    str(plan.output.absolute()),
                    sha,
                    str(plan.output.absolute()),
                    sha,
                    plan.pages,
                    plan.first_number,
                    plan.first_number + plan.pages - 1,
                    (),
                )
                record_written(db, production_id, [whole], {t: file_sha256(t) for t, _ in files})
                step("recorded")
        except BaseException:
            if production_id is not None:
                recover_productions(db, abandoned=production_id)
            discard(temp for temp, _ in files)
            raise
        if production_id is not None:
            publish_files(db, production_id, files, step)
        else:
            for temp, final in files:
                publish(temp, final)
    step("done")
    return plan


def _assemble(plan: BinderPlan, report: ProgressFn) -> Path:
    """The binder, Bates-stamped if asked, saved under its temporary name; returns that name."""
    total = plan.pages * (2 if plan.bates else 1)  # assembly, then (optionally) a stamping pass
    binder = pymupdf.open()
    try:
        _index_pages(binder, plan)
        report(Progress(binder.page_count, total, "index"))
        toc: list[list[object]] = [[1, "Index of exhibits", 1]]
        for item in plan.exhibits:
            _slip_sheet(binder, item)
            toc.append([1, f"Exhibit {item.number}: {item.exhibit.description}", item.slip_page])
            src = open_pdf(item.exhibit.source)
            try:
                for start in range(0, src.page_count, CHUNK_PAGES):
                    binder.insert_pdf(
                        src, from_page=start, to_page=min(start + CHUNK_PAGES, src.page_count) - 1
                    )
                    report(Progress(binder.page_count, total, item.exhibit.source.name))
            except MUPDF_ERRORS as exc:
                name = str(item.exhibit.source)
                message = f"{name} could not be copied into the binder ({exc}). Ask for a fresh copy of it."
                raise _ExhibitFailed(item, UnreadablePdf(name, message)) from exc
            finally:
                src.close()
        binder.set_toc(toc)
        if plan.bates is not None:
            stamped = 0

            def tick() -> None:
                nonlocal stamped
                stamped += 1
                if stamped % CHUNK_PAGES == 0 or stamped == plan.pages:
                    report(Progress(plan.pages + stamped, total, "Bates stamps"))

            stamp_document(
                binder,
                plan.bates,
                plan.first_number,
                name=str(plan.output),
                restamp=plan.restamp,
                progress=tick,
            )
        binder.set_metadata({"title": f"Exhibits, matter {plan.matter}"})
        return save_to_temp(binder, plan.output)
    finally:
        binder.close()


def _index_pages(binder: pymupdf.Document, plan: BinderPlan) -> None:
    for start in range(0, max(len(plan.exhibits), 1), INDEX_ROWS):
        page = binder.new_page(width=SLIP_SIZE[0], height=SLIP_SIZE[1])
        title = "INDEX OF EXHIBITS" + (" (continued)" if start else "")
        page.insert_text((72, 90), title, fontsize=16, fontname="hebo")
        y = 130.0
        for item in plan.exhibits[start : start + INDEX_ROWS]:
            where = f"page {item.slip_page}" + (f"   {plan.bates_of(item.slip_page)}" if plan.bates else "")
            desc = _fit(f"Exhibit {item.number}   {item.exhibit.description}", 380)
            page.insert_text((72, y), desc, fontsize=11, fontname="helv")
            page.insert_text((470, y), where, fontsize=10, fontname="helv")
            y += 18


def _slip_sheet(binder: pymupdf.Document, item: PlannedExhibit) -> None:
    page = binder.new_page(width=SLIP_SIZE[0], height=SLIP_SIZE[1])
    page.insert_textbox(
        pymupdf.Rect(72, 300, 540, 360),
        f"EXHIBIT {item.number}",
        fontsize=32,
        fontname="hebo",
        align=pymupdf.TEXT_ALIGN_CENTER,
    )
    page.insert_textbox(
        pymupdf.Rect(90, 380, 522, 520),
        item.exhibit.description,
        fontsize=13,
        fontname="helv",
        align=pymupdf.TEXT_ALIGN_CENTER,
    )


def _fit(text: str, width: float) -> str:
    """Shorten ``text`` with an ellipsis so it fits ``width`` points in 11-pt Helvetica."""
    if pymupdf.get_text_length(text, fontname="helv", fontsize=11) <= width:
        return text
    while text and pymupdf.get_text_length(text + "...", fontname="helv", fontsize=11) > width:
        text = text[:-1]
    return text + "..."


def exhibit_list_csv(plan: BinderPlan) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "exhibit",
            "description",
            "source",
            "source_sha256",
            "slip_page",
            "first_page",
            "last_page",
            "pages",
            "bates_first",
            "bates_last",
        ]
    )
    for e in plan.exhibits:
        sha = file_sha256(e.exhibit.source)
        writer.writerow(
            [
                e.number,
                e.exhibit.description,
                str(e.exhibit.source),
                sha,
                e.slip_page,
                e.first_page,
                e.last_page,
                e.page_count,
                plan.bates_of(e.slip_page),
                plan.bates_of(e.last_page),
            ]
        )
    return out.getvalue().encode("utf-8")
