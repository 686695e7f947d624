"""What chambers' exhibit work costs on top of bare PyMuPDF, over 2,000 generated pages.

Measured in one run, each against a baseline from the same run:

1. Stamping time: ``run_production`` (open, look for an existing stamp, find
   the content's boxes, place, draw, save to a temporary file, hash, register)
   against a bare loop of ``insert_text`` + ``save`` over the same pages with the
   same save options. Target <= 1.2x.
2. Output size: the stamped production against its input. Target <= 1.1x.
3. Redaction: ``run_redaction`` (find on each page as drawn and by position, in
   hidden layers and off the page; apply, save, then verify: every page with
   PyMuPDF and pdftotext, every non-page place, every object and decompressed
   stream) per page, against a bare ``search_for`` +
   ``apply_redactions`` + ``save`` loop; and the size of a redacted file whose
   boxes cover pictures (``PDF_REDACT_IMAGE_PIXELS`` rewrites those) against its
   input, chambers' save options against PyMuPDF's defaults. Target <= 1.1x.
4. Peak memory (max RSS of a fresh process) of a stamped production and of a
   binder at 500 and at 2,000 pages: flat means the 2,000-page figure is close
   to the 500-page one, not four times it.

Times are CPU seconds (this process and its children), best of several runs,
so that other work on a shared machine does not skew the ratios.

Benchmarks report; they do not fail. Each target prints PASS or MISS; exit 0.

    python -m benchmarks.exhibits [--pages N] [--reps R]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pymupdf

SSN = "123-45-6789"
REFERENCE_SAVE = {"garbage": 3, "deflate": 1}  # PyMuPDF's documented save for a stamped file
SIZES = [(612, 792), (595, 842), (612, 1008), (842, 595)]


def make_pages(path: Path, pages: int, *, ssn_every: int = 0, image_every: int = 0) -> Path:
    """Text pages of mixed sizes and rotations; optionally an SSN and a picture under it."""
    doc = pymupdf.open()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 120), False)
    pix.set_rect(pix.irect, (200, 210, 230))
    for n in range(pages):
        width, height = SIZES[n % len(SIZES)]
        page = doc.new_page(width=width, height=height)
        if image_every and n % image_every == 0:
            page.insert_image(pymupdf.Rect(60, 60, 460, 180), pixmap=pix)
        body = (
            f"Page {n + 1}. The parties met on the loading dock and discussed the compressor schedule. " * 8
        )
        if ssn_every and n % ssn_every == 0:
            body = f"Employee SSN {SSN}. " + body
        page.insert_textbox(pymupdf.Rect(72, 72, width - 72, height - 120), body, fontsize=11)
        page.set_rotation([0, 90, 180, 270][n % 4])
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def bare_stamp(src: Path, out: Path, save: dict[str, int] | None = None) -> None:
    doc = pymupdf.open(src)
    for index in range(doc.page_count):
        page = doc.load_page(index)
        r = page.rect
        point = pymupdf.Point(r.width - 110, r.height - 20) * page.derotation_matrix
        page.insert_text(point, f"ABC-{index + 1:06d}", fontsize=10, rotate=page.rotation, color=(0, 0, 0))
    doc.save(out, **(save or REFERENCE_SAVE))
    doc.close()


def bare_redact(src: Path, out: Path) -> None:
    doc = pymupdf.open(src)
    for index in range(doc.page_count):
        page = doc.load_page(index)
        for rect in page.search_for(SSN):
            page.add_redact_annot(rect, fill=(0, 0, 0))
        page.apply_redactions()
    doc.save(out)
    doc.close()


def fresh_home(root: Path) -> Path:
    from evidence.matters import create_matter

    home = Path(tempfile.mkdtemp(dir=root))
    db_path = home / "chambers.sqlite3"
    sources = home / "sources"  # the matter's own folder: outputs beside it, never in it
    sources.mkdir()
    create_matter(db_path, "bench", [sources])
    return db_path


def chambers_stamp(db_path: Path, src: Path, out_dir: Path) -> None:
    from exhibits.numbering import bates_format
    from exhibits.stamp import plan_production, run_production

    plan = plan_production(db_path, "bench", [src], bates_format("ABC", 6), out_dir)
    run_production(db_path, plan)


def chambers_redact(db_path: Path, src: Path, out_dir: Path) -> None:
    from exhibits.find import RedactionRequest
    from exhibits.patterns import patterns_named
    from exhibits.redact import run_redaction

    run_redaction(db_path, "bench", [src], out_dir, RedactionRequest(patterns=tuple(patterns_named(["ssn"]))))


def chambers_bind(db_path: Path, src: Path, out: Path, copies: int) -> None:
    from exhibits.binder import Exhibit, plan_binder, run_binder
    from exhibits.numbering import bates_format

    plan = plan_binder(
        db_path,
        "bench",
        [Exhibit(src, f"Part {n + 1}") for n in range(copies)],
        out,
        bates=bates_format("BND", 6),
    )
    run_binder(db_path, plan)


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (pdftotext): unlike wall time, it does not
    grow when other work shares the machine, so ratios measured on a busy 2-core box still mean something."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best_of(reps: int, fn, *args) -> float:  # type: ignore[no-untyped-def]
    times = []
    for rep in range(reps):
        start = cpu_seconds()
        fn(*args, rep)
        times.append(cpu_seconds() - start)
    return min(times)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def peak_rss_mb(kind: str, pages: int, root: Path) -> tuple[float, float]:
    """(peak RSS of the imports, peak RSS of the work) of a fresh process that stamps or binds ``pages`` pages.

    The high-water mark (VmHWM) is reset after the imports, whose transient peak would hide the work's.

    The source PDFs are made here, outside the measured process; a binder is made of 250-page
    exhibits, so it holds ``pages`` pages of others' documents.
    """
    work = root / f"{kind}-{pages}"
    work.mkdir()
    src = make_pages(work / "src.pdf", pages if kind == "stamp" else 250)
    db = fresh_home(work)
    call = (
        f"chambers_stamp(Path({str(db)!r}), Path({str(src)!r}), Path({str(work / 'out')!r}))"
        if kind == "stamp"
        else f"chambers_bind(Path({str(db)!r}), Path({str(src)!r}), Path({str(work / 'binder.pdf')!r}), {pages // 250})"
    )
    code = f"""
from pathlib import Path
from benchmarks.exhibits import chambers_stamp, chambers_bind
import exhibits.stamp, exhibits.binder
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
print(hwm())
open("/proc/self/clear_refs", "w").write("5")  # reset the high-water mark: importing PyMuPDF peaks higher
{call}
print(hwm())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    floor, peak = out.stdout.split()[-2:]
    return float(floor), float(peak)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="chambers-bench-") as tmp:
        root = Path(tmp)
        src = make_pages(root / "source.pdf", args.pages)
        print(f"Stamping {args.pages} pages (mixed sizes, rotations 0/90/180/270), best of {args.reps}:")
        bare = best_of(args.reps, lambda rep: bare_stamp(src, root / f"bare-{rep}.pdf"))
        homes = [fresh_home(root) for _ in range(args.reps)]  # made outside the timing: a one-off per session
        ours = best_of(args.reps, lambda rep: chambers_stamp(homes[rep], src, root / f"prod-{rep}"))
        ratio = ours / bare
        print(
            f"  bare insert_text+save {bare:6.2f} s CPU   chambers {ours:6.2f} s CPU   ratio {ratio:.2f}x  "
            f"(target <= 1.20) {verdict(ratio <= 1.2)}"
        )
        from exhibits.pdfio import SAVE_OPTIONS

        lean = best_of(args.reps, lambda rep: bare_stamp(src, root / f"lean-{rep}.pdf", SAVE_OPTIONS))  # type: ignore[arg-type]
        print(
            f"  the same bare loop saved with chambers' options {lean:6.2f} s   ratio {ours / lean:.2f}x "
            "(what the stamping itself adds: content boxes, stamp check, registry, hashes)"
        )
        results.update(stamp_ratio_same_save=ours / lean)
        size = (root / "prod-0" / "source.pdf").stat().st_size / src.stat().st_size
        print(f"  output size / input size {size:.3f}x (target <= 1.10) {verdict(size <= 1.1)}")
        results.update(stamp_ratio=ratio, stamp_size=size)

        red_src = make_pages(root / "pii.pdf", args.pages, ssn_every=2, image_every=10)
        print(f"Redacting SSNs on {args.pages // 2} of {args.pages} pages (a picture under every 10th box):")
        bare = best_of(1, lambda rep: bare_redact(red_src, root / "bare-redacted.pdf"))
        home = fresh_home(root)
        ours = best_of(1, lambda rep: chambers_redact(home, red_src, root / "redacted"))
        per_page = ours / args.pages * 1000
        print(
            f"  bare search+apply+save {bare / args.pages * 1000:5.2f} ms/page   chambers redact+verify "
            f"{per_page:5.2f} ms/page   ratio {ours / bare:.2f}x"
        )
        size = (root / "redacted" / "pii.pdf").stat().st_size / red_src.stat().st_size
        bare_size = (root / "bare-redacted.pdf").stat().st_size / red_src.stat().st_size
        print(
            f"  output size / input size: chambers {size:.3f}x (target <= 1.10) {verdict(size <= 1.1)}; "
            f"PyMuPDF defaults {bare_size:.3f}x"
        )
        results.update(redact_ms_per_page=per_page, redact_size=size, redact_bare_size=bare_size)

        print("Peak memory (max RSS of a fresh process):")
        for kind in ("stamp", "bind"):
            (floor, small), (_, large) = peak_rss_mb(kind, 500, root), peak_rss_mb(kind, args.pages, root)
            growth = large / small
            print(
                f"  {kind:<5} imports {floor:5.1f} MB; work's peak at 500 pages {small:6.1f} MB, at {args.pages} pages "
                f"{large:6.1f} MB: {growth:.2f}x for {args.pages / 500:.0f}x the pages {verdict(growth < 1.5)}"
            )
            results[f"{kind}_rss_growth"] = growth
    print(json.dumps({k: round(v, 3) for k, v in results.items()}))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("CHAMBERS_HOME", tempfile.mkdtemp(prefix="chambers-bench-home-"))
    raise SystemExit(main())
