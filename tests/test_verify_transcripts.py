"""Deposition cites in the layouts court reporters use, each a real PDF made by PyMuPDF and ingested.

Every transcript is an excerpt that starts at the reporter's page 44, so the file's page
number is never the printed one: "Dep. 45:3-4" must find the page printed 45 and the lines
numbered 3 and 4 in its margin, whether the number is at the top, at the bottom, in a "Page 45"
header, or one of four pages on a condensed sheet, and an errata sheet at the end is not a page.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from drafting.verify.sources import MatterSources, load_sources
from drafting.verify.verifier import verify_text
from evidence.ingest import ingest_matter
from evidence.matters import create_matter

FIRST = 44
SAID = {3: "A. The brake was off when the cart left", 4: "the galley.", 10: "Q. Who checked it?"}


def _line(page: int, line: int) -> str:
    return SAID.get(line, f"colloquy {page}-{line}") if page == 45 else f"colloquy {page}-{line}"


def _plain(path: Path, where: str) -> None:
    doc = pymupdf.open()
    for number in range(FIRST, FIRST + 3):
        page = doc.new_page()
        y_number = 40 if where == "top" else 780
        page.insert_text((300, y_number), str(number), fontsize=10, fontname="cour")
        for line in range(1, 26):
            page.insert_text(
                (60, 70 + line * 27), f"{line:>2}  {_line(number, line)}", fontsize=10, fontname="cour"
            )
    if where == "bottom":  # and an errata sheet after the last page
        errata = doc.new_page()
        errata.insert_text((60, 80), "ERRATA SHEET", fontsize=12, fontname="cour")
        errata.insert_text((60, 110), "Page 45 line 3: change 'off' to 'on'", fontsize=10, fontname="cour")
    doc.save(path)
    doc.close()


def _condensed(path: Path) -> None:
    """Four reporter's pages on a sheet, each under a "Page N" header, read quadrant by quadrant."""
    doc = pymupdf.open()
    sheet = doc.new_page()
    for slot, number in enumerate(range(FIRST, FIRST + 4)):
        x = 40 + (slot % 2) * 280
        y = 40 + (slot // 2) * 380
        sheet.insert_text((x + 80, y), f"Page {number}", fontsize=7, fontname="cour")
        for line in range(1, 26):
            sheet.insert_text(
                (x, y + line * 13), f"{line:>2} {_line(number, line)}", fontsize=6, fontname="cour"
            )
    doc.save(path)
    doc.close()


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> MatterSources:
    root = tmp_path_factory.mktemp("transcripts")
    folder = root / "record"
    folder.mkdir()
    _plain(folder / "Topnumber deposition.pdf", "top")
    _plain(folder / "Footnumber deposition.pdf", "bottom")
    _condensed(folder / "Condensed deposition (condensed).pdf")
    database = root / "chambers.sqlite3"
    create_matter(database, "depositions", [folder])
    ingest_matter(database, "depositions", tessdata=None)
    return load_sources(database, "depositions")


@pytest.mark.parametrize("deponent", ["Topnumber", "Footnumber", "Condensed"])
def test_dep_cite_finds_the_printed_page_and_margin_lines(transcripts: MatterSources, deponent: str) -> None:
    draft = (
        f'{deponent} testified that "the brake was off when the cart left the galley." {deponent} Dep. 45:3-4.\n\n'
        f'{deponent} also said "the brake was off when the cart left the galley." {deponent} Dep. 46:3-4.\n\n'
        f"See {deponent} Dep. 45:26. See {deponent} Dep. 52:1."
    )
    flags = verify_text(draft, "draft.md", transcripts).flags
    by_text = [(f.kind, f.text, f.severity, f.message) for f in flags]
    quote_ok, dep_ok, quote_wrong, dep_46, dep_26, dep_52 = by_text
    assert quote_ok[2] == "ok" and "testimony at the cited lines" in quote_ok[3]
    assert dep_ok[2] == "ok" and dep_ok[3].startswith("Transcript page 45, lines 3-4")
    assert quote_wrong[2] == "block"
    assert f"{deponent} said this, but at page 45, lines 3-4, not at the cited lines" in quote_wrong[3]
    assert dep_46[2] == "ok"
    assert dep_26 == (
        "deposition",
        f"{deponent} Dep. 45:26",
        "block",
        f"Page 45 of {deponent}'s transcript has 25 lines, not 26.",
    )
    assert dep_52[2] == "block" and "has no page 52" in dep_52[3]


def test_a_question_is_not_the_witness_testimony(transcripts: MatterSources) -> None:
    flags = verify_text('He was asked "Who checked it?" Topnumber Dep. 45:10.', "d.md", transcripts).flags
    quote = next(f for f in flags if f.kind == "quotation")
    assert quote.severity == "block" and "the examining lawyer's question" in quote.message
