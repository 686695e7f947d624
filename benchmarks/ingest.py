"""What evidence ingest and search cost, against bare PyMuPDF and bare FTS5 measured in the same run.

Three measurements over generated text PDFs (about 300 words a page, a
deterministic mix of legal words and made-up names, so the FTS5 index looks
like a real one):

1. Ingest time. A 2,000-page PDF is ingested into a fresh database (hash,
   per-page text, Bates, one transaction, FTS5 index, and the overlap check
   against an output registry that holds a draft) and compared with a bare
   ``for page in doc: page.get_text()`` loop over the same file, median of
   the runs, alternating. Target: <= 1.3x the bare loop.
2. Peak memory ingesting 1,000 pages and 10,000 pages (ten files), each in
   a fresh process: its ru_maxrss, and the peak of Python allocations during
   the ingest (tracemalloc), against a bare get_text loop over the same pages
   in its own process. Target: flat in the page count (a file's bytes are
   held while it is read, so the peak follows the largest file, not the
   matter).
3. Search latency. The 10,000-page database from 2; 60 queries of one to
   three words, each run 5 times, through ``search_db`` (bm25, snippets,
   joins for provenance) on an open connection; p95 against a bare
   ``MATCH ... ORDER BY rank LIMIT 20``. Target: p95 < 20 ms.

Benchmarks report; they do not fail on noisy machines: each target prints
PASS or MISS and the exit status is 0. Run from the repo root::

    python -m benchmarks.ingest [--pages 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import pymupdf

from benchmarks.common import DOMAIN_WORDS, FUNCTION_WORDS
from evidence import schema as evidence_schema
from evidence.ingest import ingest_matter
from evidence.matters import create_matter, get_matter
from evidence.provenance import register_output
from evidence.search import search_db
from evidence.store import require_matter
from workspace.database import connect

LEGAL = DOMAIN_WORDS + FUNCTION_WORDS


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    syllables = ["ka", "lo", "mer", "dan", "vi", "tor", "el", "bra", "sun", "qua", "ris", "mon", "fe", "gal"]
    made_up = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(size)}
    return sorted(made_up)


def page_text(rng: random.Random, words: list[str], n: int = 300) -> str:
    picked = [rng.choice(LEGAL) if rng.random() < 0.6 else rng.choice(words) for _ in range(n)]
    lines = [" ".join(picked[i : i + 14]) for i in range(0, n, 14)]
    return "\n".join(lines)


def write_pdf(path: Path, pages: int, seed: int, words: list[str]) -> Path:
    rng = random.Random(seed)
    doc = pymupdf.open()
    for index in range(pages):
        page = doc.new_page()
        page.insert_text((50, 60), page_text(rng, words), fontsize=9, lineheight=1.3)
        page.insert_text((480, 820), f"BEN-{seed * 100000 + index + 1:06d}", fontsize=9)
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def bare_get_text(paths: list[Path]) -> int:
    pages = 0
    for path in paths:
        with pymupdf.open(path) as doc:
            for page in doc:
                page.get_text()
                pages += 1
    return pages


def fresh_matter(db_path: Path, source: Path, name: str = "bench") -> None:
    try:
        get_matter(db_path, name)
    except Exception:
        create_matter(db_path, name, [source])


def timed_ingest(folder: Path, workdir: Path, run: int) -> float:
    db_path = workdir / f"ingest-{run}.sqlite3"
    register_output(db_path, page_text(random.Random(99), LEGAL, 400), "draft")  # the overlap check is live
    fresh_matter(db_path, folder)
    start = time.perf_counter()
    report = ingest_matter(db_path, "bench", tessdata=None)
    elapsed = time.perf_counter() - start
    assert report.pages > 0 and not report.quarantined, report.notices
    return elapsed


def child(mode: str, folder: str, db: str) -> None:
    """Run in a fresh process so ru_maxrss is this measurement's own peak."""
    files = sorted(Path(folder).glob("*.pdf"))
    tracemalloc.start()
    if mode == "bare":
        bare_get_text(files)
    else:
        fresh_matter(Path(db), Path(folder))
        ingest_matter(Path(db), "bench", tessdata=None)
    peak = tracemalloc.get_traced_memory()[1] // 1024
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, peak)  # KiB on Linux


def peak_kib(mode: str, folder: Path, db: Path) -> tuple[int, int]:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.ingest", "--child", mode, str(folder), str(db)],
        capture_output=True,
        text=True,
        check=True,
    )
    rss, traced = out.stdout.strip().splitlines()[-1].split()
    return int(rss), int(traced)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", nargs=3, metavar=("MODE", "FOLDER", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0

    rng = random.Random(7)
    words = vocabulary(rng)
    with tempfile.TemporaryDirectory(prefix="chambers-bench-") as tmp:
        work = Path(tmp)
        one = work / "one"
        one.mkdir()
        print(f"Generating a {args.pages}-page PDF and ten 1,000-page PDFs ...", flush=True)
        big = write_pdf(one / "big.pdf", args.pages, 1, words)
        ten = work / "ten"
        ten.mkdir()
        for i in range(10):
            write_pdf(ten / f"part-{i:02d}.pdf", 1000, 10 + i, words)
        thousand = work / "thousand"
        thousand.mkdir()
        (thousand / "part-00.pdf").symlink_to(ten / "part-00.pdf")

        print(f"\n1. Ingest time, {args.pages} pages (median of {args.runs}, alternating with the bare loop)")
        bare_times, ingest_times = [], []
        bare_get_text([big])  # warm the file cache and PyMuPDF
        for run in range(args.runs):
            start = time.perf_counter()
            bare_get_text([big])
            bare_times.append(time.perf_counter() - start)
            ingest_times.append(timed_ingest(one, work, run))
        bare, ingest = statistics.median(bare_times), statistics.median(ingest_times)
        ratio = ingest / bare
        print(f"   bare PyMuPDF get_text loop: {bare:6.2f} s  ({args.pages / bare:,.0f} pages/s)")
        print(f"   chambers ingest:            {ingest:6.2f} s  ({args.pages / ingest:,.0f} pages/s)")
        print(f"   ratio {ratio:.2f}x   target <= 1.30x   {verdict(ratio <= 1.3)}")

        print("\n2. Peak memory (fresh process each: ru_maxrss, and tracemalloc peak of Python allocations)")
        mem = {}
        for label, folder in (("1k", thousand), ("10k", ten)):
            mem[label] = (
                peak_kib("bare", folder, work / "unused.sqlite3"),
                peak_kib("ingest", folder, work / f"mem-{label}.sqlite3"),
            )
            (bare_rss, bare_py), (ingest_rss, ingest_py) = mem[label]
            print(
                f"   {label:>3} pages: bare loop {bare_rss / 1024:6.1f} MiB (Python {bare_py / 1024:5.1f} MiB), "
                f"ingest {ingest_rss / 1024:6.1f} MiB (Python {ingest_py / 1024:5.1f} MiB), "
                f"rss ratio {ingest_rss / bare_rss:.2f}x"
            )
        growth = mem["10k"][1][0] / mem["1k"][1][0]
        py_growth = mem["10k"][1][1] / mem["1k"][1][1]
        print(
            f"   ingest peak 10k / 1k: rss {growth:.2f}x, Python {py_growth:.2f}x   target: flat (<= 1.25x)   "
            f"{verdict(max(growth, py_growth) <= 1.25)}"
        )

        print("\n3. Search latency over 10,000 pages (the 10k database above)")
        db = connect(work / "mem-10k.sqlite3", evidence_schema.SCHEMA)
        matter_id = require_matter(db, "bench").id
        pages = db.execute("SELECT count(*) FROM pages").fetchone()[0]
        qrng = random.Random(3)
        queries = [
            " ".join(qrng.choice(LEGAL[:60] + words) for _ in range(qrng.randint(1, 3))) for _ in range(60)
        ]
        bare_ms, search_ms = [], []
        for _ in range(5):
            for query in queries:
                fts = " ".join(f'"{w}"' for w in query.split())
                start = time.perf_counter()
                db.execute(
                    "SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? ORDER BY rank LIMIT 20", (fts,)
                ).fetchall()
                bare_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                search_db(db, matter_id, query, limit=20)
                search_ms.append((time.perf_counter() - start) * 1000)
        db.close()
        p95 = statistics.quantiles(search_ms, n=20)[-1]
        bare_p95 = statistics.quantiles(bare_ms, n=20)[-1]
        print(f"   {pages:,} pages indexed, {len(search_ms)} searches")
        print(f"   bare FTS5 MATCH/rank:  p50 {statistics.median(bare_ms):6.2f} ms  p95 {bare_p95:6.2f} ms")
        print(
            f"   chambers search_db:    p50 {statistics.median(search_ms):6.2f} ms  p95 {p95:6.2f} ms "
            f"(ratio {p95 / bare_p95:.2f}x)"
        )
        print(f"   p95 {p95:.2f} ms   target < 20 ms   {verdict(p95 < 20)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
