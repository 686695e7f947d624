"""Every message a flag can carry, produced by a real draft over a real ingested matter and library.

The checks build every flag through ``make_flag``; this test finds each of its call sites in the
checks' source (by AST, so a new message cannot be added without this test noticing), records
which call site built each flag while two drafts are verified, prints every message, and fails
if any call site was never reached. The matter is a small production with a blank page, an
amount and a model number, and Ms. Ramos's transcript with an errata sheet; the library holds two
real court PDFs (tests/verify_real/opinions), a statute and a BIA-style decision without a "v."
caption.
"""

from __future__ import annotations

import ast
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf
import pytest

import drafting.verify.checks_cases as checks_cases
import drafting.verify.checks_quotes as checks_quotes
import drafting.verify.checks_record as checks_record
import drafting.verify.checks_sources as checks_sources
from drafting.verify.library import add_citations
from drafting.verify.sources import load_sources
from drafting.verify.verifier import load_library, verify_text
from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from tests.support.verify_real_corpus import OPINIONS, _transcript, requires_opinions

MODULES = (checks_record, checks_sources, checks_cases, checks_quotes)
PAGES = {
    1: "Manifest of August 27, 2019. Passenger 24C boarded at 10:05.",
    2: "Invoice for cart repairs of $1,250.00 dated July 2, 2019. The cart was secured in its galley position.",
    3: "Cart model RTX 3060 inspected. The purser's statement follows.",
    4: "",  # a page that carries only its stamp
    5: "Maintenance log for August 2019: brakes serviced. Total due $980.00.",
}
DRAFT = """
The flight left on August 27, 2019 (ABC0000001). The repair was invoiced on July 2, 2019 (ABC0000002).
The manifest is dated August 27, 2019 (ABC0000003). The contract was signed on March 3, 2018 (ABC0000001).
The inspection took place on or about August 25, 2019. The log covers August 2019. Nothing happened in March 2031.
The parties met on July 2, 2019. They met again on May 5, 2017. The notice came on June 12.
The repairs cost $1,250.00 (ABC0000002). The log totals $980.00 (ABC0000002). The manifest lists $980.00.
Three days at $410.00 per day come to $1,230.00.

"Zyzzyva quokkas xylophonically."

The pages are at ABC0000001-ABC0000002, ABC0000004 and ABC0000005-03. See ABC0000000. See ABC0000019.
The model was RTX 3060. See XYZ 123456. The invoice number was QQQ 55512. See Ex. 4.

Ms. Ramos said "the cart was not locked when it rolled into the aisle." Ramos Dep. 12:4-5.
She said "the cart was not locked when it rolled into the aisle." Ramos Dep. 14:2-3.
She was asked "Was the cart locked?" Ramos Dep. 12:3.
She corrected "change 'off' to 'on'" at Ramos Dep. 14:2.
Mr. Diaz said "the cart was secured by me." Diaz Dep. 3:4. See Ramos Dep. 99:1. See Ramos Dep. 12:30.

The invoice says "cart repairs of $1,250.00" (ABC0000002). It also says "the cart was secured in its galley position" (ABC0000003).
The purser wrote "the purser's statement follows." The purser also wrote "the purser's statement, follows".
The cart was "secured" and "unreliable". The report says "nothing here was ever written down anywhere" (ABC0000003).
The log says ". . . … …" (ABC0000005).

Congress's approval makes a compact federal law. Tarrant Reg'l Water Dist. v. Herrmann, 569 U.S. 614 (2013).
The Court said that "a congressionally approved compact, as a federal law, pre-empts any state law." Tarrant, 569 U.S. at 627.
It added that "each compact must be read as a contract between sovereigns." Id. at 628.
It said "a congressionally approved compact, as a federal law, pre-empts any state law." Tarrant Reg'l Water Dist. v. Herrmann, 569 U.S. 614 (2013).
The Court wrote "We hold that Tarrant's claims lack merit." The holding came in 2012. Tarrant Reg'l Water Dist. v. Herrmann, 569 U.S. 614 (2012).
The caption differs in Zicherman v. Korean Air Lines Co., 984 F.3d 21 (1st Cir. 2020). Zicherman, 984 F.3d at 25.
A bare cite: 984 F.3d 21. Varghese v. China S. Airlines Co., 925 F.3d 1339 (11th Cir. 2019). Id. at 1345.
It said "tolling applies to every claim." Varghese, 925 F.3d at 1345.
A slip opinion says "the Chapel stumbles at the first step." Smith v. Jones, 12 Fake Rptr. 34 (2001).
Matter of Z-Z-O-, 26 I&N Dec. 586 (BIA 2015). Other authority, 123 F.4th at 456. Doe v. Roe, 3 U.S. 3 (1790).
The Board agreed in In re Smith, 26 I&N Dec. 586 (BIA 2015).
A caption names one party in Town of Merrimac v. Village of Merrimac, 753 N.W.2d 552 (Wis. Ct. App. 2008).
"We hold that Tarrant's claims lack merit."
The compact's history is at Tarrant, 569 U.S. at 600.
The contract fell in Alpha Co. v. Beta Corp., 10 F.4th 100, 105 (2d Cir. 2021). See Alpha Co., 10 F.4th at 107.
The court held that "the second page says damages are owed." Alpha Co., 10 F.4th at 101.
It held that "the first page says the contract is void." Alpha Co., 10 F.4th at 102.
It said the "repeatedly third page ends it." Alpha Co., 10 F.4th at 102.
It said "the second page says damages are waived." Alpha Co., 10 F.4th at 101.
It said "quantum chromodynamics governs every lease of farmland." Alpha Co., 10 F.4th at 101.
The dates differ in Gamma LLC v. Delta Inc., 11 F.4th 200 (2d Cir. 2021).
It noted "Nothing here says when. The parties filed nothing further." Gamma LLC, 11 F.4th at 201.
An opinion added without its citation: Delta Corp. v. Omega LLC, 15 F.4th 300 (2d Cir. 2021).
No opinion begins inside another: Alpha Co. v. Beta Corp., 10 F.4th 101 (2d Cir. 2021).
A decision's own date is no record fact: Alpha Co. v. Beta Corp., 10 F.4th 100 (2d Cir. Mar. 3, 2021).
A party misspelled: Alpah Co. v. Beta Corp., 10 F.4th 100 (2d Cir. 2021). The witness agreed. Trial Tr. 45. Id. at 46.
Another court: Calvary Chapel of Bangor v. Mills, 984 F.3d 21 (2d Cir. 2020).
Another district: Epsilon Inc. v. Zeta LLC, 20 F. Supp. 3d 400 (S.D.N.Y. 2014).

Under 42 U.S.C. § 1983 and 28 U.S.C. § 1331 the court has jurisdiction.
It reaches "Every person who, under color of any statute." 42 U.S.C. § 1983.
It grants "original jurisdiction of all civil actions arising under the Constitution." 28 U.S.C. § 1331. Id.
A footnote's words: "the second page says damages are owed." Alpha Co. v. Beta Corp., 10 F.4th 100, 100 n.1 (2d Cir. 2021).
"""
NO_LIBRARY_DRAFT = "It arrived on June 12. The deposit was $777.00. Id. at 4. The flight left (ABC0000001). Tarrant Reg'l Water Dist. v. Herrmann, 569 U.S. 614 (2013)."


def _call_sites() -> dict[tuple[str, int], str]:
    """(file, first line) -> the message expression, for every make_flag call in the checks."""
    sites = {}
    for module in MODULES:
        path = str(Path(module.__file__ or "").resolve())
        tree = ast.parse(Path(path).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "make_flag":
                sites[(path, node.lineno, node.end_lineno or node.lineno)] = ast.unparse(node.args[2])
    return {(p, first): message for (p, first, _), message in sites.items()}


@pytest.fixture(scope="module")
def matter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("messages")
    record, opinions = root / "record", root / "opinions"
    record.mkdir()
    opinions.mkdir()
    doc = pymupdf.open()
    for number, text in PAGES.items():
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 600), text, fontsize=11, fontname="helv")
        page.insert_text((460, 760), f"ABC{number:07d}", fontsize=10, fontname="helv")
    doc.save(record / "production.pdf")
    doc.close()
    _transcript(record)
    transcript = pymupdf.open(record / "Ramos deposition transcript.pdf")
    errata = transcript.new_page()
    errata.insert_text((60, 80), "ERRATA SHEET", fontsize=12, fontname="cour")
    errata.insert_text((60, 110), "Page 14 line 2: change 'off' to 'on'", fontsize=10, fontname="cour")
    transcript.saveIncr()
    transcript.close()
    for name in ("tarrant-v-herrmann.pdf", "calvary-chapel-v-mills.pdf"):
        shutil.copy((OPINIONS or Path("missing")) / name, opinions / name)
    (opinions / "title-42.txt").write_text("42 U.S.C. 1983. Every person who, under color of any statute ...")
    (opinions / "matter-of-z-z-o.txt").write_text("Matter of Z-Z-O-, Respondent\n\nDecided by Board. Asylum.")
    (opinions / "merrimac.txt").write_text(  # a caption cut after its first party
        "753 N.W.2d 552\n2008 WI App 98\nTOWN OF MERRIMAC, Plaintiff-Appellant,\n\nWe affirm the circuit court.\n"
    )
    (opinions / "alpha-v-beta.txt").write_text(  # a vendor text with bracketed page markers
        "ALPHA CO. v. BETA CORP.\n10 F.4th 100 (2d Cir. 2021)\nThe first page says the contract is void.\n"
        "[10 F.4th 101]\nThe second page says damages are owed.\n[10 F.4th 102]\nThe rpea tedly third page ends it.\n"
    )
    (opinions / "delta-v-omega.txt").write_text("DELTA CORP. v. OMEGA LLC\nThe judgment is affirmed.\n")
    (opinions / "gamma-v-delta.txt").write_text(
        "GAMMA LLC v. DELTA INC.\n11 F.4th 200\nNothing here says when. The parties filed nothing further.\n"
        "*203 The judgment is affirmed in every part.\n*204 So ordered by the panel today.\n"  # a late first marker
    )
    (opinions / "per-curiam.txt").write_text("Per curiam. The judgment below is affirmed.")
    (opinions / "epsilon-v-zeta.txt").write_text(  # a district court's head names its district
        "UNITED STATES DISTRICT COURT\nCENTRAL DISTRICT OF CALIFORNIA\nEPSILON INC. v. ZETA LLC\n"
        "20 F. Supp. 3d 400 (C.D. Cal. 2014)\nThe motion is denied.\n"
    )
    database = root / "chambers.sqlite3"
    create_matter(database, "m", [record])
    create_matter(database, "m-authorities", [opinions])
    ingest_matter(database, "m", tessdata=None)
    ingest_matter(database, "m-authorities", tessdata=None)
    add_citations(database, "m-authorities", opinions / "tarrant-v-herrmann.pdf", ["569 U.S. 614 (2013)"])
    add_citations(database, "m-authorities", opinions / "calvary-chapel-v-mills.pdf", ["984 F.3d 21"])
    add_citations(database, "m-authorities", opinions / "matter-of-z-z-o.txt", ["26 I&N Dec. 586 (BIA 2015)"])
    add_citations(database, "m-authorities", opinions / "per-curiam.txt", ["3 U.S. 3"])
    return database


@requires_opinions
def test_every_message_a_flag_can_carry(matter: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sites = _call_sites()
    reached: dict[tuple[str, int], str] = {}
    real: Callable[..., Any] = checks_record.make_flag

    def recording(*args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1)
        path, line = str(Path(caller.f_code.co_filename).resolve()), caller.f_lineno
        site = max((s for s in sites if s[0] == path and s[1] <= line), key=lambda s: s[1])
        flag = real(*args, **kwargs)
        reached.setdefault(
            site, f"{flag.severity.upper():<5} {flag.kind:<10} {flag.text[:40]!r}: {flag.message}"
        )
        return flag

    for module in MODULES:
        monkeypatch.setattr(module, "make_flag", recording)
    sources = load_sources(matter, "m")
    report = verify_text(DRAFT, "draft.md", sources, load_library(matter, "m-authorities"))
    verify_text(NO_LIBRARY_DRAFT, "bare.md", sources, None)
    print()
    for site in sorted(reached):
        print(f"{Path(site[0]).name}:{site[1]:<4} {reached[site]}")
    missing = {
        f"{Path(p).name}:{line}": message for (p, line), message in sites.items() if (p, line) not in reached
    }
    assert not missing, missing
    in_re = next(f for f in report.flags if f.text == "26 I&N Dec. 586" and f.severity == "block")
    assert 'the subject "Smith" named in the draft is not in its caption' in in_re.message
    assert "'Matter of Z-Z-O-, Respondent'" in in_re.message
