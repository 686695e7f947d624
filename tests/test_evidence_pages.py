"""The evidence screen's headless helpers: filters typed in the search box, a page read whole, the document list."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.errors import EvidenceError
from evidence.pages import matter_documents, read_page, shown_path
from evidence.query import parse_query, without_filter
from evidence.search import SearchFilters, search
from tests.support.pipeline_setup import demo_database


@pytest.fixture
def demo_db(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return demo_database(tmp_path_factory.getbasetemp() / "evidence-demo", tmp_path / "chambers.sqlite3")


def test_filters_are_taken_out_of_the_words() -> None:
    words, filters = parse_query(
        'freezer "walk-in blast" doc:"supply agreement" FROM:2024-01-01 to:2024-06-30 bates:HPP-000001..HPP-000003'
    )
    assert words == 'freezer "walk-in blast"'
    assert filters == SearchFilters("supply agreement", "2024-01-01", "2024-06-30", "HPP-000001..HPP-000003")
    assert parse_query("compressor") == ("compressor", SearchFilters())
    # Only the four names are filters: another word with a colon is searched for, as in the CLI.
    assert parse_query("s.5:1 re:notice") == ("s.5:1 re:notice", SearchFilters())


@pytest.mark.parametrize(
    ("text", "says"),
    [("doc:invoice", "nothing to search for"), ("freezer doc:", "has no value"), ('to:"" x', "has no value")],
)
def test_filters_without_words_or_values_are_refused(text: str, says: str) -> None:
    with pytest.raises(EvidenceError, match=says):
        parse_query(text)


def test_choosing_a_document_replaces_the_doc_filter() -> None:
    assert without_filter('freezer doc:"a b" "walk in" DOC:x from:2024-01-01', "doc") == (
        'freezer "walk in" from:2024-01-01'
    )


def test_a_page_is_read_whole_with_its_bates(demo_db: Path) -> None:
    hit = search(demo_db, "harbor-point", "liquidated damages")[0]
    page = read_page(demo_db, hit.page_id)
    assert page.bates == "HPP-000002" and page.page_no == 2 and page.page_count == 3
    assert page.path.endswith("production/01-supply-agreement.pdf")
    assert "liquidated damages" in page.text and "5. Warranty." in page.text
    with pytest.raises(EvidenceError, match="no longer in the index"):
        read_page(demo_db, 99_999)


def test_documents_list_the_quarantined_file_with_its_reason(demo_db: Path) -> None:
    entries = matter_documents(demo_db, "harbor-point")
    indexed = [e for e in entries if not e.quarantined]
    assert len(indexed) == 10 and sum(e.pages for e in indexed) == 13
    contract = next(e for e in indexed if e.path.endswith("01-supply-agreement.pdf"))
    assert (contract.pages, contract.first_bates, contract.last_bates) == (3, "HPP-000001", "HPP-000003")
    (notes,) = [e for e in entries if e.quarantined]
    assert notes.path.endswith("correspondence/notes.pdf") and notes.pages == 0
    assert "matches text chambers generated" in notes.quarantined
    assert entries[-1] is notes, "what was kept out comes after what is in the index"


def test_paths_are_shown_inside_the_matter_folder() -> None:
    sources = (Path("/m/harbor/mail"), Path("/m/harbor/production"))
    assert shown_path("/m/harbor/production/01.pdf", sources) == "01.pdf"
    assert shown_path("/elsewhere/x.pdf", sources) == "/elsewhere/x.pdf"
