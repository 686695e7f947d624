"""The demo's sample matter: generated, ingested (OCR included), its earlier draft quarantined, 100% primary."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.report import audit_matter
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.evidence_files import tree_hashes
from tests.test_evidence_ingest import rows
from tui.cli.evidence import setup_demo_matter
from workspace.paths import Paths


def test_the_demo_matter_ingests_with_bates_ocr_and_its_draft_quarantined(
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = Paths.from_environment()
    assert setup_demo_matter(paths) == 0
    out = capsys.readouterr().out
    root = paths.config_file.parent / "sample-matter"
    assert "Primary: 100.0% of indexed text" in out and "notes.pdf was quarantined" in out
    before = tree_hashes(root)

    bates = rows(paths.database_file, "SELECT bates, ocr FROM pages WHERE bates IS NOT NULL ORDER BY bates")
    assert [r["bates"] for r in bates] == [f"HPP-{n:06d}" for n in range(1, 8)]
    assert [r["ocr"] for r in bates][-1] == 1  # the scanned delivery receipt, read by Tesseract
    (scan,) = rows(
        paths.database_file, "SELECT f.text FROM pages_fts f JOIN pages p ON p.id = f.rowid WHERE p.ocr = 1"
    )
    assert "back order" in scan["text"]
    audit = audit_matter(paths.database_file, SAMPLE_MATTER)
    assert audit.primary_share == 1.0 and audit.documents == 10 and not audit.unread
    assert [Path(p).name for p, _ in audit.quarantined] == ["notes.pdf"]

    assert setup_demo_matter(paths) == 0  # running the demo again changes nothing
    assert "0 file(s) read (0 pages), 10 unchanged" in capsys.readouterr().out
    assert tree_hashes(root) == before
