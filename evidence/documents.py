"""What a reader makes of one source file: documents made of pages, produced lazily.

Pages are yielded one at a time so that a 2,000-page PDF never sits in memory
whole; ingest writes each page inside the file's one transaction as it comes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class PageText:
    page_no: int  # 1-based, as the attorney counts
    text: str
    ocr: bool = False
    unread: str | None = None  # why this page's text could not be read (it is then empty)


@dataclass
class SourceDocument:
    part: str  # "" for the file itself; "attachment N: name" for an e-mail attachment
    kind: str  # pdf | docx | text | email
    title: str
    doc_date: str | None
    page_count: int
    pages: Iterator[PageText]
    creator: str | None = None  # the producing application, where the format records one
    notes: list[str] = field(default_factory=list)  # things the attorney should know (encoding used...)
    repaired: bool = False  # MuPDF had to rebuild the file's structure: content may be lost


def single_page(text: str) -> Iterator[PageText]:
    yield PageText(page_no=1, text=text)
