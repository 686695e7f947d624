"""The robustness corpus: every PDF through ingest, a Bates production and a redaction, with no traceback.

It runs the hostile shapes of tests/support/hostile_pdfs.py (found in public PDF test
suites, written here byte by byte) and every PDF placed in tests/pdfs_wild/ or in ../shared/corpus/pdfs_wild/ beside
the clone (tests/pdfs_wild/README.md says which public files belong there and
where each comes from; a file present there must match its listed sha256).
"""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

from tests.support.hostile_pdfs import every_shape
from tests.support.wild_corpus import run_corpus

WILD = Path(__file__).parent / "pdfs_wild"
SHARED_WILD = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "pdfs_wild"


def wild_pdfs() -> list[Path]:
    return sorted([*WILD.glob("*.pdf"), *SHARED_WILD.glob("*.pdf")])


def listed_sources() -> dict[str, str]:
    """file name -> sha256, from the corpus's SOURCES.tsv."""
    with open(WILD / "SOURCES.tsv", newline="") as fh:
        return {row["file"]: row["sha256"] for row in csv.DictReader(fh, delimiter="\t")}


def test_the_wild_files_present_are_the_listed_ones() -> None:
    listed = listed_sources()
    assert len(listed) >= 20
    for pdf in wild_pdfs():
        assert pdf.name in listed, f"{pdf.name} is not listed in SOURCES.tsv with its origin"
        assert hashlib.sha256(pdf.read_bytes()).hexdigest() == listed[pdf.name], pdf.name


def test_every_pdf_goes_through_ingest_stamp_and_redact_without_a_traceback(tmp_path: Path) -> None:
    hostile = every_shape(tmp_path / "hostile")
    wild = wild_pdfs()
    report = run_corpus(hostile + wild, tmp_path / "work", ocr="auto")
    print("\n".join(report.lines()))
    assert report.failures == [], "\n".join(report.failures)
    assert sum(report.ingest.values()) == len(hostile) + len(wild)
    # of the hostile shapes only the truncated file is readable; the rest are each a named notice
    assert report.stamp["A PDF could not be opened"] + report.stamp["A PDF is password-protected"] >= 6
    assert report.ingest["encrypted"] >= 1 and report.ingest["error"] >= 5
