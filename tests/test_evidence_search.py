"""Search: FTS5 over pages, bm25 order, filters by document, date and Bates, highlighted snippets."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.errors import EvidenceError
from evidence.ingest import ingest_matter
from evidence.search import HIGHLIGHT, SearchFilters, search
from tests.support.evidence_files import make_pdf
from tests.test_evidence_ingest import new_matter

START, END = HIGHLIGHT


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    make_pdf(
        src / "contract.pdf",
        [
            "The compressor warranty runs twelve months.",
            "Payment is due in thirty days.",
            "The compressor, the compressor housing and every compressor part are covered.",
        ],
        bates=["HPP-000001", "HPP-000002", "HPP-000003"],
        metadata={"creationDate": "D:20240110000000Z", "title": "Supply contract"},
    )
    make_pdf(
        src / "invoice.pdf",
        ["Invoice 4471: compressor replacement, $9,400."],
        bates=["HPP-000010"],
        metadata={"creationDate": "D:20240601000000Z"},
    )
    path = tmp_path / "c.sqlite3"
    new_matter(path, src)
    ingest_matter(path, "acme", tessdata=None)
    return path


def test_hits_are_ranked_by_bm25_with_highlighted_snippets(db_path: Path) -> None:
    hits = search(db_path, "acme", "compressor")
    first = hits[0]
    assert (Path(first.path).name, first.page_no) == ("contract.pdf", 3)  # four mentions rank first
    assert len(hits) == 3 and hits[0].score <= hits[1].score <= hits[2].score
    assert f"{START}compressor{END}" in hits[0].snippet and hits[0].bates == "HPP-000003"
    assert hits[0].title == "Supply contract" and len(hits[0].sha256) == 64


def test_filters_by_document_date_and_bates(db_path: Path) -> None:
    assert {
        Path(h.path).name
        for h in search(db_path, "acme", "compressor", filters=SearchFilters(document="invoice"))
    } == {"invoice.pdf"}
    after_may = search(db_path, "acme", "compressor", filters=SearchFilters(date_from="2024-05-01"))
    assert [h.bates for h in after_may] == ["HPP-000010"]
    in_january = search(db_path, "acme", "compressor", filters=SearchFilters(date_to="2024-01-31"))
    assert {h.bates for h in in_january} == {"HPP-000001", "HPP-000003"}
    first_two = search(db_path, "acme", "compressor", filters=SearchFilters(bates="HPP-000001..HPP-000002"))
    assert [h.bates for h in first_two] == ["HPP-000001"]


def test_phrases_and_punctuation_are_plain_text_not_fts_syntax(db_path: Path) -> None:
    assert [h.page_no for h in search(db_path, "acme", '"thirty days"')] == [2]
    assert search(db_path, "acme", '"days thirty"') == []
    assert [h.bates for h in search(db_path, "acme", "invoice 4471: $9,400 (NEAR) AND")] == []
    assert [h.bates for h in search(db_path, "acme", "invoice 4471: $9,400")] == ["HPP-000010"]


def test_bad_filters_say_how_to_write_them(db_path: Path) -> None:
    with pytest.raises(EvidenceError, match="YYYY-MM-DD"):
        search(db_path, "acme", "compressor", filters=SearchFilters(date_from="June 2024"))
    with pytest.raises(EvidenceError, match="same prefix, lower number first"):
        search(db_path, "acme", "compressor", filters=SearchFilters(bates="HPP-000009..HPP-000002"))
    with pytest.raises(EvidenceError, match="no words"):
        search(db_path, "acme", " ?! ")
    with pytest.raises(EvidenceError, match="no matter named 'nope'"):
        search(db_path, "nope", "compressor")
