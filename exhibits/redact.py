"""Redaction that removes: find, apply with PyMuPDF, save, re-extract, and only then publish.

Image mode, chosen on purpose: ``PDF_REDACT_IMAGE_PIXELS``. It is the only
mode that removes what a picture shows under the box (a scanned SSN) while
keeping the rest of the picture; ``REMOVE`` would delete a whole scanned page
and ``NONE`` would leave the number readable in the pixels. Its cost is that
each image under a box is rewritten as a new, uncompressed image (files have
grown 3.5-fold), so only images a box actually overlaps are touched (MuPDF
leaves the others alone), the file is saved with ``deflate_images`` so the
rewritten pictures are compressed again, and ``garbage=4`` drops the
originals, which would otherwise stay in the file with the text visible. Line
art fully under a box is removed; text under a box is removed character by
character.

The whole file is read first, so that a value found anywhere is looked for
everywhere (core.py). Pages are searched with every layer switched on, their
pictures read on their own (imageocr.py), then each page again widened to
find text drawn off it (hidden.py, remove.py); ``--scrub`` then redacts every
attached file in its own format or removes it, saying why (attached.py), and
removes or rewrites every other place that holds a hit (places.py,
unlisted.py, objects.py). Each document is saved to a temporary file and
verified there (verify.py);
a leak raises ``RedactionLeak`` and nothing is published for any document of
the request. The log records each box with a keyed hash (HMAC-SHA256) of the
text it removed: an SSN has only 10^9 values, so a plain hash in a log that
travels with the production could be reversed by trying them all. The key
stays in the chambers database, so the attorney can still prove what a box
covered.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from evidence.index.store import load_matter
from evidence.pdf_open import PDF_FAILURES, open_pdf
from exhibits.core import SAVE_OPTIONS, gathered, pages, redact_open
from exhibits.errors import RedactionLeak
from exhibits.find import Hit, RedactionRequest, check_rects, find_on_page, tessdata_for
from exhibits.hidden import layers_on
from exhibits.imageocr import Doubt, read_pictures
from exhibits.pdfio import (
    LeftOut,
    check_outputs,
    discard,
    guard_outputs,
    left_out_for,
    save_to_temp,
)
from exhibits.stamp import Progress, ProgressFn
from exhibits.store import RedactedFile, RedactionBox, record_redactions
from exhibits.unlisted import every_place
from exhibits.verify import Leak, verify_file
from workspace.digest import file_sha256
from workspace.paths import publish, write_atomically


@dataclass
class DocumentRedaction:
    source: Path
    output: Path
    page_count: int
    hits: list[Hit] = field(default_factory=list)
    scrubbed: list[str] = field(default_factory=list)
    verified_with: list[str] = field(default_factory=list)
    checked: str = ""  # what verification read, for the attorney
    output_sha256: str = ""
    attachments: list[str] = field(default_factory=list)  # each attached file redacted or removed
    doubts: list[Doubt] = field(default_factory=list)  # pictures OCR read with low confidence

    @property
    def log_csv(self) -> Path:
        return self.output.with_name(f"{self.output.stem}.redaction-log.csv")

    def describe(self) -> list[str]:
        lines = [f"{self.source.name} -> {self.output.name}: {len(self.hits)} redaction(s)"]
        for hit in self.hits:
            shown = _masked(hit.text)
            lines.append(
                f"  p.{hit.page_no:<4} {hit.reason:<16} {len(hit.rects)} box(es){' OCR' if hit.ocr else ''}  {shown}"
            )
        lines += [f"  {notice}" for notice in self.attachments]
        lines += [f"  Check: {doubt.describe()}" for doubt in self.doubts]
        return lines


def _masked(text: str) -> str:
    """What the dry run shows: the length and the last two characters, enough to recognise it."""
    return "*" * max(len(text) - 2, 0) + text[-2:] if len(text) > 4 else "*" * len(text)


def plan_redaction(
    sources: Sequence[Path], out_dir: Path, request: RedactionRequest
) -> list[DocumentRedaction]:
    """Find every hit without changing anything: the dry run, and the first half of the real run."""
    tessdata = tessdata_for(request)
    planned = []
    outputs = [out_dir / Path(s).name for s in sources]
    check_outputs(outputs, sources)
    for source, output in zip(sources, outputs, strict=True):
        doc = open_pdf(Path(source))
        try:
            check_rects(request.rects, doc.page_count, str(source))
            item = DocumentRedaction(Path(source), output, doc.page_count)
            found = gathered(doc, request)
            with layers_on(doc):
                for page in pages(doc):
                    hits, _ = find_on_page(page, found, tessdata)
                    covered = [r for hit in hits for r in hit.rects]
                    pictures, doubts = read_pictures(page, found, tessdata, covered)
                    item.hits.extend(hits + pictures)
                    item.doubts.extend(doubts)
            if request.scrub:
                matcher = found.matcher().with_known({h.text: h.reason for h in item.hits if h.text})
                item.scrubbed = [place.where for place in every_place(doc) if matcher.find(place.text)]
        finally:
            doc.close()
        planned.append(item)
    return planned


def redact_document(
    item: DocumentRedaction, request: RedactionRequest, tick: Callable[[], None] = lambda: None
) -> Path:
    """Apply, scrub, save to a temporary file and verify it; returns the verified temporary file."""
    tessdata = tessdata_for(request)
    doc = open_pdf(item.source)
    try:
        outcome = redact_open(doc, request, tessdata, tick)
        item.hits, item.scrubbed = outcome.hits, outcome.scrubbed
        item.attachments, item.doubts = outcome.attachments, outcome.doubts
        matcher = request.matcher().with_known(outcome.known)
        tmp = save_to_temp(doc, item.output, **SAVE_OPTIONS)
    finally:
        doc.close()
    ocr_pages = {h.page_no for h in item.hits if h.ocr}
    cleared = [(h.page_no, r) for h in item.hits if h.reason == "rectangle" for r in h.rects]
    try:
        verification = verify_file(tmp, matcher, ocr_pages, tessdata, cleared)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    item.verified_with, item.checked = verification.readers, verification.summary()
    if verification.leaks:
        tmp.unlink(missing_ok=True)
        raise RedactionLeak(_leak_message(item, verification.leaks, request.scrub))
    item.output_sha256 = file_sha256(tmp)
    return tmp


def _leak_message(item: DocumentRedaction, leaks: list[Leak], scrubbed: bool) -> str:
    where = "; ".join(f"{leak.where}: {leak.reason}" for leak in leaks[:8])
    more = f" and {len(leaks) - 8} more" if len(leaks) > 8 else ""
    outside = any(not leak.where.startswith(("page", "pdftotext")) for leak in leaks)
    advice = (
        "Run again with --scrub to clear metadata, bookmarks, annotations, form fields, attachments, layer "
        "names, page labels and document-level entries."
        if outside and not scrubbed
        else "Add a rectangle over what remains (--rect PAGE:x0,y0,x1,y1), or redact by hand in a PDF editor."
    )
    return (
        f"{item.source}: after redaction the removed text can still be found ({where}{more}). No output "
        f"file was written. {advice}"
    )


def run_redaction(
    db_path: Path,
    matter: str,
    sources: Sequence[Path],
    out_dir: Path,
    request: RedactionRequest,
    progress: ProgressFn | None = None,
    left_out: list[LeftOut] | None = None,
) -> list[DocumentRedaction]:
    """Redact every source, verify each, and publish them all only when every one is clean.

    With ``left_out``, a document MuPDF cannot read through is left out there, with its notice, and
    the rest go on (a leak still stops them all).
    """
    report = progress or (lambda p: None)
    guard_outputs(db_path, out_dir, [out_dir / Path(s).name for s in sources], "output folder (--out)")
    planned = _shallow_plan(sources, out_dir)
    total = sum(p.page_count for p in planned)
    done = 0
    temps: list[Path] = []
    try:
        for item in planned:

            def tick(name: str = item.source.name) -> None:
                nonlocal done
                done += 1
                report(Progress(done, total, name))

            try:
                temps.append(redact_document(item, request, tick))
            except PDF_FAILURES as exc:
                if left_out is None:
                    raise
                left_out.append(left_out_for(item.source, exc))
        planned = [item for item in planned if not any(x.path == item.source for x in left_out or [])]
        key = secrets.token_hex(32)
        _record(db_path, matter, planned, key, request)
    except BaseException:
        discard(temps)
        raise
    for tmp, item in zip(temps, planned, strict=True):
        publish(tmp, item.output)
        write_atomically(item.log_csv, redaction_log_csv(item, key))
    return planned


def _shallow_plan(sources: Sequence[Path], out_dir: Path) -> list[DocumentRedaction]:
    """Outputs checked and page counts read, without the search (the real run searches once, itself)."""
    outputs = [out_dir / Path(s).name for s in sources]
    check_outputs(outputs, sources)
    items = []
    for source, output in zip(sources, outputs, strict=True):
        doc = open_pdf(Path(source))
        items.append(DocumentRedaction(Path(source), output, doc.page_count))
        doc.close()
    return items


def text_hmac(key: str, text: str) -> str:
    return hmac.new(bytes.fromhex(key), text.encode("utf-8"), hashlib.sha256).hexdigest()


def redaction_log_csv(item: DocumentRedaction, key: str) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "source",
            "output",
            "output_sha256",
            "page",
            "boxes",
            "reason",
            "ocr",
            "text_hmac_sha256",
            "verified_with",
        ]
    )
    for hit in item.hits:
        boxes = " ".join(",".join(f"{v:.1f}" for v in (r.x0, r.y0, r.x1, r.y1)) for r in hit.rects)
        writer.writerow(
            [
                item.source.name,
                item.output.name,
                item.output_sha256,
                hit.page_no,
                boxes,
                hit.reason,
                "yes" if hit.ocr else "no",
                text_hmac(key, hit.text),
                "+".join(item.verified_with),
            ]
        )
    return out.getvalue().encode("utf-8")


def _record(
    db_path: Path, matter: str, items: list[DocumentRedaction], key: str, request: RedactionRequest
) -> None:
    matter_id = load_matter(db_path, matter).id
    logged = [
        RedactedFile(
            str(item.source.absolute()),
            file_sha256(item.source),
            str(item.output.absolute()),
            item.output_sha256,
            key,
            "+".join(item.verified_with),
            item.scrubbed + item.attachments,
            [
                RedactionBox(
                    h.page_no,
                    [[r.x0, r.y0, r.x1, r.y1] for r in h.rects],
                    h.reason,
                    text_hmac(key, h.text),
                    h.ocr,
                )
                for h in item.hits
            ],
        )
        for item in items
    ]
    record_redactions(db_path, matter_id, logged, datetime.now(UTC).isoformat())
