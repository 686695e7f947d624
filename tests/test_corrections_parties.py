"""Parties proposed from a matter's documents, confirmed once, and the export scrub of names and personal
data: captions, preambles, letterheads, signatures and e-mail headers, each on text shaped like the real
thing; what is not a party (a cited case, a role word) is not proposed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corrections.errors import CorrectionsError
from corrections.party_finder import MatterPage, find_names, propose_from_pages
from corrections.party_proposals import choose, confirm_parties
from corrections.scrub import Scrubber, party_list
from evidence.identifiers import PERSONAL_DATA

STACKED_CAPTION = """UNITED STATES DISTRICT COURT
DISTRICT OF WESTMERE
ORCHARD LANE BAKERY, INC.,
Plaintiff,
v.
TOLLAND OVEN WORKS LLC,
Defendant.
Civil Action No. 1:26-cv-00412
COMPLAINT
Plaintiff Orchard Lane Bakery, Inc. brings this action. See Smith v. Jones, 123 F.3d 456 (9th Cir. 2001).
"""
LEASE = """COMMERCIAL LEASE
This Lease is made on March 3, 2025 by and between Ms. Helena Varga (the Landlord), of 88 Birch Avenue,
Rosedale, and Tolland Oven Works LLC (the Tenant)."""
LETTER = """KESTREL & MOORE LLP
500 Canal Street, Suite 1200, Rosedale, WS 40211

March 9, 2025

Dear Mr. Okonjo,

We write about the oven. Tolland must repair it. Call me at (555) 201-3344.

Very truly yours,

Jonas Whitfield
Kestrel & Moore LLP"""
MAIL = """From: "Amara Okonjo" <amara@orchardlane.example>
To: jonas.whitfield@kestrelmoore.example
Cc: Legal Team <legal@orchardlane.example>
Date: Mon, 10 Mar 2025 09:00:00 -0400
Subject: Oven

Jonas,

The oven failed again. Helena says the lease covers it.

Amara Okonjo
Owner, Orchard Lane Bakery"""


def pages() -> list[MatterPage]:
    return [
        MatterPage("complaint.pdf", "pdf", 1, STACKED_CAPTION),
        MatterPage("lease.pdf", "pdf", 1, LEASE),
        MatterPage("letter.pdf", "pdf", 1, LETTER),
        MatterPage("oven.eml", "email", 1, MAIL),
    ]


def test_each_kind_of_document_names_its_parties() -> None:
    found = {p.source: find_names(p) for p in pages()}
    assert ("Orchard Lane Bakery, Inc.", "caption") in found["complaint.pdf"]
    assert ("Tolland Oven Works LLC", "caption") in found["complaint.pdf"]
    assert found["lease.pdf"] == [("Helena Varga", "agreement"), ("Tolland Oven Works LLC", "agreement")]
    assert ("Kestrel & Moore LLP", "letterhead") in found["letter.pdf"]
    assert ("Jonas Whitfield", "signature") in found["letter.pdf"]
    assert set(found["oven.eml"]) == {
        ("Amara Okonjo", "e-mail header"),
        ("Jonas Whitfield", "e-mail header"),
        ("Amara Okonjo", "e-mail signature"),
        ("Amara Okonjo", "signature"),  # above "Owner, ..."
    }  # "Legal Team" is a role, not a party


def test_a_cited_case_and_role_words_are_not_proposed() -> None:
    names = {p.name for p in propose_from_pages(pages())}
    assert not {"Smith", "Jones", "See Smith", "United States District Court", "Legal Team"} & names
    assert "the Landlord" not in " ".join(names)


def test_proposals_merge_spellings_and_carry_the_short_forms_the_documents_use() -> None:
    proposals = {p.name: p for p in propose_from_pages(pages())}
    assert set(proposals) == {
        "Orchard Lane Bakery, Inc.",
        "Tolland Oven Works LLC",
        "Helena Varga",
        "Kestrel & Moore LLP",
        "Jonas Whitfield",
        "Amara Okonjo",
    }
    tolland = proposals["Tolland Oven Works LLC"]
    assert tolland.kind == "organisation" and "Tolland" in tolland.variants  # "Tolland must repair it"
    assert len(tolland.found_in) == 2 and tolland.found_in[0] == "caption, complaint.pdf p. 1"
    assert {"Helena"} <= set(proposals["Helena Varga"].variants)
    assert proposals["Amara Okonjo"].variants == ["Okonjo"]  # "Dear Mr. Okonjo"; "amara@" is no name
    assert proposals["Jonas Whitfield"].variants == ["Jonas"]


def test_confirmed_proposals_and_personal_data_leave_nothing_behind(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    proposals = propose_from_pages(pages())
    added = confirm_parties(db, "oven", choose(proposals, "all"))
    assert added["Tolland"] == added["Tolland Oven Works LLC"]
    scrub = Scrubber(party_list(db, "oven"), PERSONAL_DATA)
    out = scrub.text("\n".join(p.text for p in pages()))
    for party in proposals:
        for name in (party.name, *party.variants):
            assert name.casefold() not in out.casefold(), name
    assert not [f.find(out) for f in PERSONAL_DATA if f.find(out)]
    assert "[EMAIL]" in out and "[PHONE]" in out and "[ADDRESS]" in out
    assert "Call me at [PHONE]." in out


def test_choosing_proposals_by_number_refuses_what_was_not_listed() -> None:
    proposals = propose_from_pages(pages())
    assert [p.name for p in choose(proposals, "1, 2")] == [proposals[0].name, proposals[1].name]
    with pytest.raises(CorrectionsError, match=r"'9' is not one of the proposals \(1 to 6\)"):
        choose(proposals, "1,9")


def test_hashes_and_times_keep_their_digits_but_prose_loses_them() -> None:
    scrub = Scrubber({"Amara Okonjo": "[PARTY-A]"}, PERSONAL_DATA)
    row = {
        "sha256": "ab123456789cd",
        "accepted_at": "2026-11-02T10:00:00+00:00",
        "final": "Amara Okonjo, SSN 123-45-6789, amara@orchardlane.example",
    }
    assert scrub.deep(row) == {
        "sha256": "ab123456789cd",
        "accepted_at": "2026-11-02T10:00:00+00:00",
        "final": "[PARTY-A], SSN [SSN], [EMAIL]",
    }


def test_the_cli_proposes_confirms_once_and_the_scrub_then_exports(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evidence.ingest import ingest_matter
    from evidence.matters import create_matter
    from tests.support.corrections_data import store
    from tui.cli.main import main
    from workspace.paths import Paths

    db = Paths.from_environment().database_file
    folder = tmp_path / "oven"
    folder.mkdir()
    for page in pages():
        (folder / f"{page.source}.txt").write_text(page.text, encoding="utf-8")
    db.parent.mkdir(parents=True, exist_ok=True)
    create_matter(db, "oven", [folder])
    ingest_matter(db, "oven")
    store(db, matter="oven", final="Tolland must repair the oven. Write to amara@orchardlane.example.")
    out = tmp_path / "x.jsonl"
    assert main(["corrections", "export", "--format", "sft", "--out", str(out), "--scrub"]) != 0
    assert "corrections parties oven --propose" in capsys.readouterr().err and not out.exists()
    assert main(["corrections", "parties", "oven", "--propose"]) == 0
    listed = capsys.readouterr().out
    assert (
        "  1. " in listed and "Tolland Oven Works LLC (also: Tolland)" in listed and "--confirm all" in listed
    )
    assert main(["corrections", "parties", "oven", "--confirm", "all"]) == 0
    assert "Tolland -> [PARTY-" in capsys.readouterr().out
    assert main(["corrections", "parties", "oven", "--propose"]) == 0
    assert "name no party that is not confirmed already" in capsys.readouterr().out  # once is enough
    assert main(["corrections", "export", "--format", "sft", "--out", str(out), "--scrub"]) == 0
    answer = json.loads(out.read_text())["messages"][-1]["content"]
    assert answer.startswith("[PARTY-") and answer.endswith(" must repair the oven. Write to [EMAIL].")
