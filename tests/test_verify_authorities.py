"""The authorities library on real opinions as distributed (tests/verify_real/opinions).

``chambers authorities add|list`` is run in process on three real court PDFs: two slip opinions
whose text never states their own page (the attorney gives it) and an unpublished one that
stays "not indexed" with the reason. The own-citation finder is also run on the real Fisher
slip opinion text, whose syllabus cites Detroit Timber and Grutter before anything else.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from drafting.verify.authorities import caption_words, captions, own_citations
from drafting.verify.sources import Page
from tests.support.verify_real_corpus import OPINIONS as REAL_OPINIONS
from tests.support.verify_real_corpus import requires_opinions
from tui.cli.main import main

OPINIONS = REAL_OPINIONS or Path("missing")


def _page(text: str, title: str = "opinion.pdf", page_no: int = 1) -> Page:
    return Page(0, page_no, 1, "opinion.pdf", "/x/opinion.pdf", title, page_no, None, text, text.lower())


@requires_opinions
def test_a_slip_opinion_never_takes_a_cited_case_for_its_own_citation() -> None:
    fisher = _page((OPINIONS / "fisher-v-university-of-texas.txt").read_text())
    assert own_citations([fisher]) == []  # not Detroit Timber 200 U.S. 321, nor Grutter 539 U.S. 306
    blocks = captions([fisher], set())
    assert blocks[0] == "FISHER v. UNIVERSITY OF TEXAS AT AUSTIN ET AL."
    assert "bollinger" not in caption_words(" ".join(blocks))  # Grutter v. Bollinger is cited, not a party
    assert "detroit" not in caption_words(" ".join(blocks))


@pytest.mark.parametrize(
    ("text", "title", "expected"),
    [
        ("Opinion of the Court\nCite as: 569 U. S. 614 (2013)\nNOTICE: ...", "slip.pdf", ["569 U.S. 614"]),
        (
            "DocketNumber: 07-1824\nCitation Numbers: 520 F.3d 1, 2008 U.S. App. LEXIS 456, 2008 WL 104105\n",
            "x.txt",
            ["520 F.3d 1", "2008 U.S.App.LEXIS 456", "2008 WL 104105"],
        ),
        (
            "NORTHGATE FOODS, INC. v. ARCTIC COIL CO.\n512 F.3d 210 (9th Cir. 2008)\n\nOpinion.",
            "n.pdf",
            ["512 F.3d 210"],
        ),
        (
            "Opinion text with no citation of its own.",
            "Smith v. Jones, 88 Cal. App. 5th 301 (2023)",
            ["88 Cal.App.5th 301"],
        ),
        ("See United States v. Detroit Timber & Lumber Co., 200 U. S. 321, 337.\n", "slip.pdf", []),
        ("656 F. 3d 1222, affirmed.\n", "slip.pdf", []),
        ("e.g., Alabama v. North Carolina, 560 U. S. 330, ___. Many compacts\n", "slip.pdf", []),
        # First Circuit slip texts whose body lines a citation of another case happens to end
        (
            "and we affirmed.  United States v. Blanco, 888 F.2d  907 (1st\nCir. 1989).   Cf.  Iaea v.  Sunn,  "
            "800 F.2d  861 (9th  Cir.  1986)\n",
            "slip.txt",
            [],
        ),
        ("May 1, 1985).   Thereafter, in Cok v. Cosentino, 876 F.2d 1\n", "slip.txt", []),
        ("U.S. BANK N.A. v. SMITH, 512 F.3d 210 (9th Cir. 2008)\n", "n.pdf", ["512 F.3d 210"]),
        # Columbia XML's tags as line breaks put a cited case's parts on lines of their own, after prose
        (
            "The matter of alimony is entrusted to the discretion of the trial court and is not set aside.\n"
            "Trammell v.\nTrammell\n,\n589 So.2d 743\n(Ala.Civ.App. 1991).\n",
            "x.txt",
            [],
        ),
        ("2d Dept.: 102 A.D.3d 885, 958 N.Y.S.2d 206 (Kings)\n", "x.txt", []),  # the decision below
        # a slip typed in a narrow column: no line of its prose has a sentence's words, two running on do
        (
            "No. 93-1519\nMARY SEUFERT FISCHER,\nPlaintiff, Appellant,\nv.\nPHILLIP A. ROLLINS,\n"
            "Per Curiam.   Plaintiff has appealed  from an order\n"
            "denying  in forma  pauperis status.    The appeal  is timely.\n"
            "for damages  against state court judges.   Stump v. Sparkman,\n"
            "435  U.S. 349  (1978); Pierson  v. Ray,  386 U.S.  547 (1967)\n"
            "1 United States v. Barker Steel Co., Inc., 774 F. Supp. 65\n",
            "slip.txt",
            [],
        ),
        (  # its own citation over the counsel's short lines is still its own
            "GOLDEN INVESTMENT CORP. v. CHRONIAK\n981 F.2d 16 (1st Cir. 1993)\n"
            "Peter S. Wright, Jr.  with whom Wright & Cherry were on brief  for\nappellees.\n"
            "Cyr,  Circuit  Judge.   Appellants  Armand  Roberts and\n",
            "slip.txt",
            ["981 F.2d 16"],
        ),
        (
            "This opinion is uncorrected and subject to revision before publication in the Official Reports.\n"
            "Feliciano v Seabrook\n2020 NY Slip Op 50753(U)\nDecided on June 11, 2020\n",
            "x.txt",
            ["2020 NYSlipOp 50753(U)"],
        ),
    ],
)
def test_own_citation_from_header_lines_cite_as_and_metadata(
    text: str, title: str, expected: list[str]
) -> None:
    assert [c.key for c in own_citations([_page(text, title)])] == expected


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@requires_opinions
def test_authorities_add_and_list_on_real_opinion_pdfs_three_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHAMBERS_HOME", str(tmp_path / "home"))
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    for name in (
        "tarrant-v-herrmann.pdf",
        "calvary-chapel-v-mills.pdf",
        "st-pierre-v-standard-insurance.pdf",
        "gift-surplus-v-state-ex-rel-cooper.pdf",
    ):
        shutil.copy(OPINIONS / name, downloads / name)

    code, out, _ = _run(capsys, "authorities", "add", str(downloads / "tarrant-v-herrmann.pdf"))
    assert code == 1  # the slip opinion says "Cite as: 569 U. S. ____": not indexed, and said so
    assert "Ingested tarrant-v-herrmann.pdf: 1 file(s) read" in out  # the file, not its folder
    assert "NOT INDEXED  tarrant-v-herrmann.pdf: no citation of its own" in out
    assert "--cite" in out and "200 U.S. 321" not in out

    code, out, _ = _run(
        capsys,
        "authorities",
        "add",
        str(downloads / "tarrant-v-herrmann.pdf"),
        "--cite",
        "569 U.S. 614 (2013)",
        "--cite",
        "133 S. Ct. 2120",
    )
    assert code == 0
    assert "569 U.S. 614 = 133 S.Ct. 2120  TARRANT REGIONAL WATER DISTRICT v. HERRMANN ET AL." in out

    code, out, _ = _run(
        capsys, "authorities", "add", str(downloads / "calvary-chapel-v-mills.pdf"), "--cite", "984 F.3d 21"
    )
    assert code == 0 and "984 F.3d 21  CALVARY CHAPEL OF BANGOR" in out and "JANET T. MILLS" in out

    # North Carolina prints its public-domain citation at the head of every page: indexed by itself
    code, out, _ = _run(
        capsys, "authorities", "add", str(downloads / "gift-surplus-v-state-ex-rel-cooper.pdf")
    )
    assert code == 0 and "2022 NCSC 1  GIFT SURPLUS, LLC, and SANDHILL AMUSEMENTS" in out
    assert "STATE OF NORTH CAROLINA, ex rel. ROY COOPER" in out and "268 N.C. App. 1" not in out

    code, _, err = _run(
        capsys,
        "authorities",
        "add",
        str(downloads / "st-pierre-v-standard-insurance.pdf"),
        "--cite",
        "page 12",
    )
    assert code == 2 and "'page 12' is not a case citation" in err and "VOLUME REPORTER PAGE" in err

    code, _, err = _run(capsys, "authorities", "add", str(downloads / "missing.pdf"), "--cite", "1 U.S. 1")
    assert code == 2 and "There is no file at" in err

    code, out, _ = _run(capsys, "authorities", "list")
    assert code == 0  # only the files named were ingested: St. Pierre, never added, is not in the library
    lines = out.splitlines()
    assert lines[0].startswith("984 F.3d 21  CALVARY CHAPEL OF BANGOR")
    assert lines[1].startswith("2022 NCSC 1  GIFT SURPLUS, LLC")
    assert lines[2].startswith("569 U.S. 614 = 133 S.Ct. 2120  TARRANT REGIONAL")
    assert lines[3] == "authorities: 3 opinion(s) indexed, 0 not indexed."
    assert "st-pierre" not in out

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(OPINIONS / "fisher-v-university-of-texas.txt", outside / "fisher.txt")
    code, out, _ = _run(
        capsys,
        "authorities",
        "add",
        str(outside / "fisher.txt"),
        "--cite",
        "570 U.S. 297",
        "--cite",
        "133 S. Ct. 2411",
    )
    assert code == 0 and "Copied fisher.txt into" in out and (downloads / "fisher.txt").is_file()
    assert "570 U.S. 297 = 133 S.Ct. 2411  FISHER v. UNIVERSITY OF TEXAS AT AUSTIN ET AL." in out


def test_verifying_against_a_matter_with_no_ingested_pages_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHAMBERS_HOME", str(tmp_path / "home"))
    (tmp_path / "empty").mkdir()
    draft = tmp_path / "draft.md"
    draft.write_text(
        'The flight left (ABC0000001). Fisher v. Univ. of Tex., 570 U.S. 297 (2013). "A quote here."\n'
    )
    assert _run(capsys, "matter", "new", "empty", "--sources", str(tmp_path / "empty"))[0] == 0
    code, out, err = _run(capsys, "verify", str(draft), "--matter", "empty")
    assert code == 2 and out == ""  # no flag per statement
    assert "No sources to verify against" in err and "Run `chambers evidence ingest empty` first" in err


def test_an_unreadable_or_empty_opinion_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHAMBERS_HOME", str(tmp_path / "home"))
    folder = tmp_path / "opinions"
    folder.mkdir()
    (folder / "corrupt.pdf").write_bytes(b"\x00\x01not a pdf at all" * 100)
    (folder / "empty.txt").write_text("")
    code, _, err = _run(capsys, "authorities", "add", str(folder / "corrupt.pdf"), "--cite", "1 U.S. 1")
    assert code == 2 and "Ingest could not read corrupt.pdf" in err
    code, _, err = _run(capsys, "authorities", "add", str(folder / "empty.txt"), "--cite", "2 U.S. 2")
    assert code == 2 and "empty.txt has no readable text" in err
    code, out, _ = _run(capsys, "authorities", "list")
    assert "2 U.S. 2" not in out  # nothing was recorded for either
