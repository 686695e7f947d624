"""The export scrub on a realistic matter: a tile supply dispute with two companies, their people, their
lawyers and a deponent, in a contract and a letter (PDFs made with PyMuPDF), an e-mail thread with a
forwarded message, and a deposition transcript. The attorney proposes the parties, confirms them all,
and exports with --scrub: no name, short form, defined term or person of the matter is left in any row.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pymupdf
import pytest

CONTRACT = """TILE SUPPLY AGREEMENT

This Tile Supply Agreement is made on January 6, 2025 between Wexford Tile Co., a New Jersey
corporation ("Seller"), and Bellmont Builders LLC, a New York limited liability company ("Buyer").

1. Seller shall deliver 4,000 square feet of porcelain floor tile to Buyer's project at 210 Linden
Street, Kingsport, by February 17, 2025.

2. Tile that arrives cracked may be rejected by Buyer within five days of delivery.

WEXFORD TILE CO.
By: /s/ Thomas O'Keefe
Name: Thomas O'Keefe
Title: President

BELLMONT BUILDERS LLC
By: /s/ Priya Anand
Name: Priya Anand
Title: Project Manager
"""
LETTER = """MARSH & DUVALL LLP
Lena Marsh | Partner
200 Harbor Road, Suite 4, Kingsport, NY 10021

March 3, 2025

Thomas O'Keefe
Wexford Tile Co.
88 Foundry Lane, Trenton, NJ 08601

Dear Mr. O'Keefe:

We represent Bellmont Builders. Wexford delivered 61 pallets of cracked tile, and Bellmont rejected
them on February 19. Seller has neither replaced the tile nor refunded the price.

Sincerely,

Lena Marsh
Counsel to Bellmont Builders LLC
"""
MAIL = """From: "Anand, Priya" <priya.anand@bellmontbuilders.example>
To: Tom O'Keefe <tokeefe@wexfordtile.example>
Cc: Gregory Halvorsen <ghalvorsen@bellmontbuilders.example>
Date: Wed, 19 Feb 2025 08:02:00 -0500
Subject: Cracked tile at Linden Street

Tom,

Half the pallets arrived cracked. Halvorsen photographed every one on site yesterday.

Priya Anand
Project Manager | Bellmont Builders

-----Original Message-----
From: Thomas O'Keefe <tokeefe@wexfordtile.example>
Sent: Friday, February 14, 2025 4:12 PM
To: Priya Anand
Subject: Delivery

The tile ships Monday.
"""
DEPOSITION = """UNITED STATES DISTRICT COURT
SOUTHERN DISTRICT OF NEW YORK
BELLMONT BUILDERS LLC,
Plaintiff,
v.
WEXFORD TILE CO.,
Defendant.
Case No. 1:25-cv-02231

DEPOSITION OF GREGORY HALVORSEN
Taken April 22, 2025, at Kingsport, New York

APPEARANCES:
LENA MARSH, ESQ., of Marsh & Duvall LLP, for Plaintiff
RAYMOND COLE, ESQ., of Cole Pritchard LLP, for Defendant

GREGORY HALVORSEN, having been duly sworn, testified as follows:
EXAMINATION BY MR. COLE:
Q. Mr. Halvorsen, who told you the tile was cracked?
A. Ms. Anand called me. I photographed the pallets.
"""
FINAL = """Dear Mr. O'Keefe:

Wexford agreed to deliver sound tile to Bellmont by February 17, 2025. Seller delivered 61 cracked
pallets instead, as Gregory Halvorsen photographed and as Ms. Anand told Mr. O'Keefe the same day.
WEXFORD has not replaced them. Raymond Cole may reach Lena Marsh at Marsh & Duvall.

Bellmont Builders demands a refund within ten days.

Lena Marsh"""
# Everything of the matter that names a party or a person, as the documents and the letter write it.
NAMES = (
    "Wexford",
    "Bellmont",
    "Seller",
    "Buyer",
    "O'Keefe",
    "Thomas",
    "Priya",
    "Anand",
    "Halvorsen",
    "Gregory",
    "Lena",
    "Marsh",
    "Duvall",
    "Raymond",
    "Cole",
    "Pritchard",
)


def _pdf(path: Path, text: str) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 560, 800), text, fontsize=9)
    doc.save(path)


@pytest.fixture
def matter(isolated_home: Path, tmp_path: Path) -> Path:
    from evidence.ingest import ingest_matter
    from evidence.matters import create_matter
    from workspace.paths import Paths

    db = Paths.from_environment().database_file
    folder = tmp_path / "bellmont-wexford"
    folder.mkdir()
    _pdf(folder / "supply-agreement.pdf", CONTRACT)
    _pdf(folder / "demand-letter.pdf", LETTER)
    (folder / "cracked-tile.eml").write_text(MAIL, encoding="utf-8")
    (folder / "halvorsen-deposition.txt").write_text(DEPOSITION, encoding="utf-8")
    db.parent.mkdir(parents=True, exist_ok=True)
    create_matter(db, "bellmont-wexford", [folder])
    ingest_matter(db, "bellmont-wexford")
    return db


def _left(text: str) -> list[str]:
    return [name for name in NAMES if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE)]


def test_proposals_name_the_people_short_forms_and_defined_terms(matter: Path) -> None:
    from corrections.party_proposals import propose_parties

    proposals = {p.name: p for p in propose_parties(matter, "bellmont-wexford")}
    people = {name for name, p in proposals.items() if p.kind == "person"}
    assert {"Thomas O'Keefe", "Priya Anand", "Gregory Halvorsen", "Lena Marsh", "Raymond Cole"} <= people
    assert {"Wexford Tile Co.", "Bellmont Builders LLC", "Marsh & Duvall LLP"} <= set(proposals)
    assert {"Seller", "Wexford"} <= set(proposals["Wexford Tile Co."].variants)
    assert {"Buyer", "Bellmont Builders", "Bellmont"} <= set(proposals["Bellmont Builders LLC"].variants)
    halvorsen = proposals["Gregory Halvorsen"]
    assert any(w.startswith("deposition, halvorsen-deposition.txt") for w in halvorsen.found_in)
    assert any(w.startswith("letterhead, demand-letter.pdf") for w in proposals["Lena Marsh"].found_in)
    assert not {"Anand, Priya", "Project Manager", "Original Message"} & set(proposals)


def test_a_scrubbed_export_of_the_matter_leaves_none_of_its_names(
    matter: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from corrections.capture import capture
    from corrections.model import DrafterMessage
    from evidence.pages import matter_page_texts
    from tests.support.corrections_data import make_input
    from tui.cli.main import main

    sources = "\n\n".join(
        f"[S{n}] {row[0]}:\n{row[3]}"
        for n, row in enumerate(matter_page_texts(matter, "bellmont-wexford"), start=1)
    )
    assert len(_left(sources)) == len(NAMES)  # the prompt holds every name before the scrub
    messages = (DrafterMessage("system", "Draft for the attorney."), DrafterMessage("user", sources))
    draft = FINAL.replace("within ten days", "soon")
    capture(matter, make_input(matter="bellmont-wexford", messages=messages, draft=draft, final=FINAL))
    assert main(["corrections", "parties", "bellmont-wexford", "--confirm", "all"]) == 0
    listed = capsys.readouterr().out
    assert "Seller -> [PARTY-" in listed and "and its shorter forms: " in listed  # he sees what goes
    for fmt in ("pairs", "dpo"):
        out = tmp_path / f"{fmt}.jsonl"
        assert main(["corrections", "export", "--format", fmt, "--out", str(out), "--scrub"]) == 0
        text = out.read_text(encoding="utf-8")
        assert _left(json.dumps(json.loads(text), ensure_ascii=False)) == [], fmt
        assert "[EMAIL]" in text and "[PARTY-" in text
    row = json.loads((tmp_path / "pairs.jsonl").read_text(encoding="utf-8"))
    assert "sound tile to [PARTY-" in row["final"] and "61 cracked" in row["final"]  # prose stays
    assert "demands a refund within ten days" in row["final"]


def test_a_typed_name_brings_its_short_forms_and_prose_keeps_its_ordinary_words() -> None:
    from corrections.scrub import Scrubber

    scrub = Scrubber(
        {
            "Wexford Tile Co.": "[PARTY-A]",
            "Seller": "[PARTY-A]",
            "Lena Marsh": "[PARTY-B]",
            "Marsh & Duvall LLP": "[PARTY-C]",
        }
    )
    assert scrub.text("Wexford Tile and WEXFORD, the Seller, left the seller's tile in a marsh.") == (
        "[PARTY-A] and [PARTY-A], the [PARTY-A], left the seller's tile in a marsh."
    )
    assert scrub.text("Ms. Marsh of Marsh & Duvall sent wexford-tile.pdf and marsh-notes.txt to Lena.") == (
        "Ms. [PARTY-B] of [PARTY-C] sent [PARTY-A]-tile.pdf and [PARTY-B]-notes.txt to [PARTY-B]."
    )


def test_a_word_processors_apostrophe_is_the_same_name() -> None:
    from corrections.party_finder import MatterPage, propose_from_pages
    from corrections.scrub import Scrubber

    pages = [MatterPage("a.pdf", "pdf", 1, "By: /s/ Thomas O’Keefe\nName: Thomas O'Keefe\nTitle: President")]
    proposals = propose_from_pages(pages)  # one person, whichever spelling is listed
    assert len(proposals) == 1 and proposals[0].name.replace("’", "'") == "Thomas O'Keefe"
    scrub = Scrubber({"Thomas O'Keefe": "[PARTY-A]"})
    assert scrub.text("THOMAS O’KEEFE wrote; Mr. O’Keefe signed.") == "[PARTY-A] wrote; Mr. [PARTY-A] signed."
