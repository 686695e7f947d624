"""Reading the index back: one page whole, and a matter's documents with what was kept out.

The evidence screen shows what search found in full (the page's text, file,
page number and Bates) and what the matter holds, quarantined files included,
so the attorney can see literally what the models may be given. It calls these
functions rather than querying the tables itself, like every other room.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evidence.errors import EvidenceError
from evidence.ingest import quarantine_reason
from evidence.store import (
    DocumentEntry,
    PageView,
    document_entries,
    notices,
    open_index,
    page_id_of,
    page_texts,
    page_view,
    require_matter,
)

__all__ = [
    "DocumentEntry",
    "PageView",
    "find_bates_page",
    "find_page",
    "matter_documents",
    "matter_page_texts",
    "read_page",
    "shown_path",
]


def read_page(db_path: Path, page_id: int) -> PageView:
    """The whole text of one indexed page, with where it comes from."""
    with open_index(db_path) as db:
        page = page_view(db, page_id)
    if page is None:
        raise EvidenceError(
            f"Page #{page_id} is no longer in the index (the matter was ingested again since the search). "
            "Search again.",
            title="Page not found",
        )
    return page


def find_page(db_path: Path, matter_name: str, file_name: str, page_no: int) -> PageView | None:
    """The page a verifier's pointer names (a file's name, with an attachment's part, and a page number)."""
    with open_index(db_path) as db:
        page_id = page_id_of(db, matter_name, file_name.split(" (", 1)[0], page_no)
    return read_page(db_path, page_id) if page_id is not None else None


def matter_documents(db_path: Path, matter_name: str) -> list[DocumentEntry]:
    """The matter's indexed documents in path order, then the files quarantined at the last ingest."""
    with open_index(db_path) as db:
        matter = require_matter(db, matter_name)
        entries = document_entries(db, matter.id)
        quarantined = notices(db, matter.id, "quarantined")
    seen: set[str] = set()
    for notice in quarantined:
        if notice.path not in seen:
            seen.add(notice.path)
            entries.append(
                DocumentEntry(
                    notice.path,
                    "",
                    Path(notice.path).name,
                    None,
                    0,
                    None,
                    None,
                    quarantined=quarantine_reason(notice.message),
                )
            )
    return entries


def shown_path(path: str, sources: tuple[Path, ...]) -> str:
    """A source file's path as the attorney knows it: inside the matter's folder, not from the root."""
    for source in sources:
        try:
            return Path(path).relative_to(source).as_posix()
        except ValueError:
            continue
    return path


def matter_page_texts(db_path: Path, matter_name: str) -> Iterator[tuple[str, str, int, str]]:
    """Every indexed page of a matter as (file name with its part, document kind, page number, text),
    in path order, read in batches so a large matter never sits in memory whole."""
    with open_index(db_path) as db:
        matter = require_matter(db, matter_name)
        for path, part, kind, page_no, text in page_texts(db, matter.id):
            yield Path(path).name + (f" ({part})" if part else ""), kind, page_no, text


def find_bates_page(db_path: Path, matter_name: str, bates: str) -> PageView | None:
    """The matter's page stamped ``bates`` (HPP-000004, however its separator is written); None when no
    page of the matter carries that stamp."""
    from evidence.bates import parse_bates
    from evidence.index.store import matter_pages

    wanted = parse_bates(bates)
    if wanted is None:
        return None
    _, pages = matter_pages(db_path, matter_name)
    for page in pages:
        if page.bates_prefix == wanted.prefix and page.bates_number == wanted.number:
            return read_page(db_path, page.page_id)
    return None
