"""Every PDF of a corpus through ingest, a Bates production and a redaction: notices, never tracebacks.

Usage: python -m tests.support.wild_corpus DIR [DIR...] [--ocr never|auto]. Each file is copied into one
matter's source folder and the matter is ingested once (so one bad file must not stop the rest);
each file is then stamped and redacted on its own. A file may be refused, with a chambers error
naming it; any other exception is a failure, printed with its traceback, and the exit code is 1.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from exhibits.find import RedactionRequest
from exhibits.numbering import bates_format
from exhibits.patterns import patterns_named
from exhibits.pdfio import LeftOut
from exhibits.redact import run_redaction
from exhibits.stamp import plan_production, run_production
from workspace.errors import ChambersError


@dataclass
class CorpusReport:
    files: int = 0
    ingest: Counter[str] = field(default_factory=Counter)  # indexed, or the notice kind
    stamp: Counter[str] = field(default_factory=Counter)  # ok, or the refusal's title
    redact: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)  # "file, stage: traceback"
    outcomes: dict[str, list[str]] = field(default_factory=dict)  # file -> "stage: outcome" in order

    def lines(self) -> list[str]:
        out = [f"{self.files} PDF(s); failures (tracebacks): {len(self.failures)}"]
        for stage in ("ingest", "stamp", "redact"):
            counts: Counter[str] = getattr(self, stage)
            out.append(f"  {stage:<7} " + ", ".join(f"{k}: {v}" for k, v in counts.most_common()))
        return out + self.failures


STAGES = ("ingest", "stamp", "redact")


def run_corpus(
    pdfs: list[Path], work: Path, *, ocr: str = "never", stages: tuple[str, ...] = STAGES
) -> CorpusReport:
    """``work`` is an empty folder for the matter, its database and the outputs."""
    report = CorpusReport(files=len(pdfs))
    sources, db_path = work / "sources", work / "home" / "chambers.sqlite3"
    sources.mkdir(parents=True)
    copies = []
    for number, pdf in enumerate(pdfs):
        copy = sources / f"{number:04d}-{pdf.name}"  # two suites may use one name
        shutil.copyfile(pdf, copy)
        copies.append(copy)
    create_matter(db_path, "wild", [sources])
    try:
        if "ingest" not in stages:
            return _exhibits(report, copies, db_path, work, ocr, stages)
        ingested = ingest_matter(db_path, "wild", tessdata=None if ocr == "never" else True)
    except Exception:
        report.failures.append(f"(the whole matter), ingest: {traceback.format_exc()}")
    else:
        kinds = {n.path: n.kind for n in ingested.notices if n.kind in ("error", "encrypted", "skipped")}
        for copy in copies:
            report.ingest[kinds.get(str(copy), "indexed")] += 1
            report.outcomes.setdefault(copy.name, []).append(f"ingest: {kinds.get(str(copy), 'indexed')}")
    return _exhibits(report, copies, db_path, work, ocr, stages)


def _exhibits(
    report: CorpusReport, copies: list[Path], db_path: Path, work: Path, ocr: str, stages: tuple[str, ...]
) -> CorpusReport:
    request = RedactionRequest(terms=("the",), patterns=tuple(patterns_named(["ssn", "email"])), ocr=ocr)
    for copy in copies:
        if "stamp" in stages:
            _stage(report, "stamp", copy, lambda c=copy: _stamp(db_path, c, work / "stamped" / c.stem))
        if "redact" in stages:
            _stage(
                report,
                "redact",
                copy,
                lambda c=copy: _redact(db_path, c, work / "redacted" / c.stem, request),
            )
    return report


def _stamp(db_path: Path, pdf: Path, out: Path) -> None:
    plan = plan_production(db_path, "wild", [pdf], bates_format("WILD", 7), out)
    run_production(db_path, plan)


def _redact(db_path: Path, pdf: Path, out: Path, request: RedactionRequest) -> None:
    left_out: list[LeftOut] = []
    run_redaction(db_path, "wild", [pdf], out, request, left_out=left_out)
    if left_out:
        raise left_out[0].error


def _stage(report: CorpusReport, stage: str, pdf: Path, work: object) -> None:
    counts: Counter[str] = getattr(report, stage)
    try:
        work()  # type: ignore[operator]
    except ChambersError as exc:
        outcome = exc.title
    except Exception:
        outcome = "TRACEBACK"
        report.failures.append(f"{pdf.name}, {stage}: {traceback.format_exc()}")
    else:
        outcome = "ok"
    counts[outcome] += 1
    report.outcomes.setdefault(pdf.name, []).append(f"{stage}: {outcome}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.wild_corpus")
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--ocr", default="never", choices=["never", "auto"])
    parser.add_argument("--list", action="store_true", help="print every file's outcome at each stage")
    parser.add_argument("--stages", default=",".join(STAGES), help="which of ingest,stamp,redact to run")
    args = parser.parse_args(argv)
    pdfs = sorted(
        p for folder in args.folders for p in folder.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf"
    )
    with tempfile.TemporaryDirectory() as work:
        report = run_corpus(pdfs, Path(work), ocr=args.ocr, stages=tuple(args.stages.split(",")))
    print("\n".join(report.lines()))
    if args.list:
        for name, outcomes in sorted(report.outcomes.items()):
            print(f"{name}\t" + "\t".join(outcomes))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
