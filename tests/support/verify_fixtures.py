"""The demo matter (Harbor Point v. Calder), really generated and ingested, and a small authorities library.

The opinions are fictional, written for these tests; they are PDFs made by PyMuPDF and ingested
by evidence's own ingest, like the attorney's folder of opinions would be.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from evidence.sample_matter import SAMPLE_MATTER, prepare_sample_matter

LIBRARY = f"{SAMPLE_MATTER}-authorities"
OPINIONS = {
    "northgate.pdf": [
        # the reporter's page numbers as vendor text prints them (star pages), so pins can be checked
        "NORTHGATE FOODS, INC. v. ARCTIC COIL CO.\n512 F.3d 210 (9th Cir. 2008)\n\nOpinion of the court.\n*211\n"
        "A clause fixing damages for each day of delay is enforceable where the parties' estimate of the "
        "loss was reasonable when they contracted, and it is not a penalty merely because actual loss is "
        "hard to prove.",
        "*212\nThe seller's supplier delays do not excuse late completion unless the contract says so. Affirmed.",
    ],
    "bayview.pdf": [
        "BAYVIEW SEAFOOD CO. v. POLAR SYSTEMS, INC.\n88 Cal. App. 5th 301 (2023)\n\n*302\nA warranty that "
        "promises a response on site within a fixed time is breached when the seller arrives late, "
        "whatever the cause of the failure. The buyer may recover the value of goods lost while it waited.",
    ],
}


@dataclass(frozen=True)
class DemoMatter:
    database_file: Path
    matter: str
    library: str


def build_demo_matter(root: Path) -> DemoMatter:
    """Generate and ingest the sample matter and the authorities library under ``root``."""
    database_file = root / "chambers.db"
    prepare_sample_matter(database_file, root / "sample")
    ingest_matter(database_file, SAMPLE_MATTER)
    opinions = root / "opinions"
    opinions.mkdir()
    for name, pages in OPINIONS.items():
        doc = pymupdf.open()
        for text in pages:
            doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 540, 740), text, fontsize=11, fontname="tiro")
        doc.save(opinions / name)
        doc.close()
    create_matter(database_file, LIBRARY, [opinions])
    ingest_matter(database_file, LIBRARY)
    return DemoMatter(database_file, SAMPLE_MATTER, LIBRARY)
