"""Bates productions on real generated PDFs: placement, rotation, continuity, refusals."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pymupdf
import pytest

from evidence.matters import create_matter
from exhibits import schema as exhibits_schema
from exhibits.errors import (
    AlreadyStamped,
    BatesCollision,
    BatesWidthTooSmall,
    EncryptedPdf,
    ExhibitsError,
    OutputOverSource,
    UnreadablePdf,
)
from exhibits.numbering import bates_format
from exhibits.registry import find_bates, production_log
from exhibits.stamp import plan_production, run_production
from tests.support.exhibits_files import A4, LEGAL, LETTER, text_pdf
from workspace.database import connect

MATTER = "acme"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "chambers.sqlite3"
    (tmp_path / "sources").mkdir()
    create_matter(path, MATTER, [tmp_path / "sources"])
    return path


def produce(
    db_path: Path,
    sources: list[Path],
    out: Path,
    *,
    prefix: str = "ACME",
    width: int = 6,
    start: int | None = None,
    restamp: bool = False,
):  # type: ignore[no-untyped-def]
    plan = plan_production(
        db_path, MATTER, sources, bates_format(prefix, width), out, start=start, restamp=restamp
    )
    return run_production(db_path, plan)


def stamp_rect(page: pymupdf.Page, label: str) -> pymupdf.Rect:
    """The stamp's box as the reader sees the page."""
    (hit,) = [w for w in page.get_text("words") if w[4] == label]
    return pymupdf.Rect(hit[:4]) * page.rotation_matrix


def test_stamps_sit_bottom_right_upright_on_rotated_and_mixed_pages(db_path: Path, tmp_path: Path) -> None:
    source = text_pdf(
        tmp_path / "sources" / "mixed.pdf",
        [f"Page {i + 1} body text." for i in range(8)],
        sizes=[LETTER, A4, LEGAL, (842, 595)],
        rotations=[0, 90, 180, 270],
    )
    result = produce(db_path, [source], tmp_path / "out")
    with pymupdf.open(tmp_path / "out" / "mixed.pdf") as doc:
        for index, page in enumerate(doc):
            label = f"ACME-{index + 1:06d}"
            box = stamp_rect(page, label)
            visible = page.rect
            assert visible.contains(box), (index, box, visible)
            assert box.x0 > visible.width / 2 and box.y0 > visible.height * 0.9, (index, page.rotation, box)
            assert box.width > box.height, f"page {index + 1} stamp is not upright as seen"
            assert page.rotation == [0, 90, 180, 270][index % 4]
    assert result.shrunk == []


def test_stamp_never_covers_content_and_says_which_pages_were_shrunk(db_path: Path, tmp_path: Path) -> None:
    filler = " ".join(["Lorem ipsum dolor sit amet consectetur."] * 100)
    source = text_pdf(tmp_path / "sources" / "full.pdf", [filler[:500], "short page"], rotations=[90, 0])
    source2 = text_pdf(tmp_path / "sources" / "bleed.pdf", [filler], full_bleed=True)
    result = produce(db_path, [source, source2], tmp_path / "out")
    assert ("bleed.pdf", 1) in result.shrunk and ("full.pdf", 2) not in result.shrunk
    for name, first in (("full.pdf", 1), ("bleed.pdf", 3)):
        with pymupdf.open(tmp_path / "out" / name) as doc:
            for index, page in enumerate(doc):
                label = f"ACME-{first + index:06d}"
                box = stamp_rect(page, label)
                others = [
                    pymupdf.Rect(w[:4]) * page.rotation_matrix
                    for w in page.get_text("words")
                    if w[4] != label
                ]
                assert others, "the page's own text must survive"
                assert not any(box.intersects(o) for o in others), f"{name} p.{index + 1} stamp overlaps text"
    assert "END OF PAGE TEXT RUNS HERE" in pymupdf.open(tmp_path / "out" / "bleed.pdf")[0].get_text()


def test_numbers_continue_across_productions_and_are_never_reused(db_path: Path, tmp_path: Path) -> None:
    a = text_pdf(tmp_path / "sources" / "a.pdf", ["one", "two", "three"])
    b = text_pdf(tmp_path / "sources" / "b.pdf", ["four", "five"])
    first = produce(db_path, [a], tmp_path / "vol1")
    second = produce(db_path, [b], tmp_path / "vol2")
    assert (first.plan.first, first.plan.last) == (1, 3)
    assert (second.plan.first, second.plan.last) == (4, 5)
    assert "ACME-000004" in pymupdf.open(tmp_path / "vol2" / "b.pdf")[0].get_text()
    with pytest.raises(BatesCollision, match=r"ACME-000006"):
        produce(db_path, [b], tmp_path / "vol3", start=3)
    assert not (tmp_path / "vol3").exists()
    third = produce(db_path, [b], tmp_path / "vol4", start=10)
    assert third.plan.first == 10
    db = connect(db_path, exhibits_schema.SCHEMA)
    rows = production_log(db, 1)
    hit = find_bates(db, 1, "ACME", 5)
    db.close()
    assert [(r.first_number, r.last_number, r.page_count) for r in rows] == [
        (1, 3, 3),
        (4, 5, 2),
        (10, 11, 2),
    ]
    assert (
        hit is not None
        and hit.page_no == 2
        and hit.source_path.endswith("b.pdf")
        and hit.label == "ACME-000005"
    )
    with open(tmp_path / "vol2" / "production-log.csv") as fh:
        (row,) = list(csv.DictReader(fh))
    assert (row["file"], row["bates_begin"], row["bates_end"], row["pages"]) == (
        "b.pdf",
        "ACME-000004",
        "ACME-000005",
        "2",
    )


def test_width_too_small_is_refused_before_anything_is_written(db_path: Path, tmp_path: Path) -> None:
    source = text_pdf(tmp_path / "sources" / "five.pdf", ["p"] * 5)
    with pytest.raises(BatesWidthTooSmall, match=r"ACME-1003.*--width 4"):
        produce(db_path, [source], tmp_path / "out", width=3, start=999)
    assert not (tmp_path / "out").exists()


def test_existing_stamp_is_refused_unless_asked(db_path: Path, tmp_path: Path) -> None:
    source = text_pdf(tmp_path / "sources" / "a.pdf", ["one", "two"])
    produce(db_path, [source], tmp_path / "vol1")
    stamped = tmp_path / "vol1" / "a.pdf"
    with pytest.raises(AlreadyStamped, match=r"page 1 already carries the Bates stamp ACME-000001"):
        produce(db_path, [stamped], tmp_path / "vol2", prefix="XYZ")
    assert not (tmp_path / "vol2" / "a.pdf").exists()
    again = produce(db_path, [stamped], tmp_path / "vol3", prefix="XYZ", restamp=True)
    text = pymupdf.open(tmp_path / "vol3" / "a.pdf")[0].get_text()
    assert "ACME-000001" in text and "XYZ-000001" in text and again.plan.first == 1


def test_a_bad_file_is_left_out_with_its_notice_and_the_rest_is_produced(
    db_path: Path, tmp_path: Path
) -> None:
    good = text_pdf(tmp_path / "sources" / "good.pdf", ["fine"])
    locked = tmp_path / "sources" / "locked.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    doc.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")
    corrupt = tmp_path / "sources" / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    result = produce(db_path, [locked, good, corrupt], tmp_path / "out")
    assert [d.source for d in result.plan.documents] == [good] and result.plan.first == 1
    shown = "\n".join(result.plan.describe())
    assert re.search(r"locked\.pdf is password-protected\. Open it with its password", shown)
    assert re.search(r"corrupt\.pdf is damaged.*Ask for a fresh copy", shown)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".chambers-output",
        "good.pdf",
        "production-log.csv",
    ]
    with pytest.raises(
        EncryptedPdf, match=r"locked\.pdf is password-protected.*1 more file.*Nothing was written"
    ):
        produce(db_path, [locked, corrupt], tmp_path / "out2")
    with pytest.raises(UnreadablePdf, match=r"corrupt\.pdf"):
        produce(db_path, [corrupt], tmp_path / "out2")
    with pytest.raises(OutputOverSource):
        produce(db_path, [good], tmp_path / "sources")
    assert not (tmp_path / "out2").exists()
    assert pymupdf.open(good)[0].get_text().strip() == "fine"


def test_two_sources_with_one_name_are_refused(db_path: Path, tmp_path: Path) -> None:
    first = text_pdf(tmp_path / "sources" / "a" / "letter.pdf", ["one"])
    second = text_pdf(tmp_path / "sources" / "b" / "letter.pdf", ["two"])
    with pytest.raises(ExhibitsError, match=r"share the name letter\.pdf"):
        produce(db_path, [first, second], tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("prefix", ["VOL2", "HPP0", "ABC123456789"])
def test_a_prefix_ending_in_a_digit_cannot_be_told_from_its_numbers(prefix: str) -> None:
    with pytest.raises(ExhibitsError, match=rf"'{prefix}' ends in a digit.*{prefix}0*1 reads as prefix"):
        bates_format(prefix, 6)


@pytest.mark.parametrize("prefix", ["HPP", "A2B", "ABC-", "x1y"])
def test_a_prefix_ending_in_a_letter_is_taken_as_written(prefix: str) -> None:
    assert bates_format(prefix, 6).prefix == prefix.rstrip("-").upper()
