"""A small fictional commercial dispute for the demo: Harbor Point Provisions v. Calder Refrigeration.

Every word below was written for chambers; any resemblance to real firms is
accidental. PyMuPDF builds the PDFs: a contract, three invoices, a deposition
excerpt, and a delivery receipt that exists only as a scanned picture (so it
needs OCR). The production copies carry Bates stamps (HPP-000001 on); the
unstamped originals sit beside them, outside the matter's sources. The e-mail
thread is real RFC 5322 mail with an attachment. An earlier chambers draft,
saved among the correspondence as ``notes.pdf``, shows the quarantine at work.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pymupdf

from evidence.errors import MatterNotFound
from evidence.guard import check_output
from evidence.matters import Matter, create_matter, get_matter
from evidence.provenance import register_output, sha256_bytes
from evidence.store import open_index, text_registered

SAMPLE_MATTER = "harbor-point"
BATES_PREFIX = "HPP"

CONTRACT = [
    "EQUIPMENT SUPPLY AND INSTALLATION AGREEMENT\n\nDated January 10, 2024, between Harbor Point Provisions LLC, "
    "a seafood wholesaler of 14 Quay Street, Port Ellery (the Buyer), and Calder Refrigeration Systems, Inc., of "
    "220 Foundry Road, Millbrook (the Seller).\n\n1. Equipment. The Seller shall supply and install one walk-in "
    "blast freezer, model CRS-BF40, with two matched compressors, rated to hold minus twenty degrees Fahrenheit "
    "with a full load of product.\n\n2. Price. The price is $84,000, payable as follows: thirty percent on "
    "signing, forty percent on delivery of the compressors, and thirty percent on completion.",
    "3. Completion. Installation shall be complete, and the freezer shall hold minus twenty degrees for "
    "seventy-two hours without interruption, no later than May 1, 2024 (the Completion Date).\n\n4. Late "
    "completion. For each day after the Completion Date until completion, the Seller shall pay the Buyer $200 "
    "as liquidated damages, which the parties agree is a fair estimate of the Buyer's loss and not a "
    "penalty.\n\n5. Warranty. The Seller warrants the equipment and its installation for twelve months from "
    "completion. Within that period the Seller shall repair or, if repair fails twice, replace any defective "
    "component at no cost to the Buyer, responding on site within twenty-four hours of a written notice.",
    "6. Notices. Notices shall be in writing and may be sent by e-mail to the addresses below.\n\n7. Governing "
    "law. This Agreement is governed by the law of the State of Westmere.\n\nSigned for Harbor Point "
    "Provisions LLC: Dana Whitcombe, Operations Director (dana.whitcombe@harborpoint.example)\n\nSigned for "
    "Calder Refrigeration Systems, Inc.: Marcus Calder, President (m.calder@calder-refrig.example)",
]

INVOICES = [
    (
        "INV-1041",
        "20240115",
        "January 15, 2024",
        "Deposit, 30% of contract price, blast freezer CRS-BF40",
        "25,200.00",
    ),
    (
        "INV-1077",
        "20240402",
        "April 2, 2024",
        "Second instalment, 40%, on delivery of two compressors",
        "33,600.00",
    ),
    (
        "INV-1102",
        "20240528",
        "May 28, 2024",
        "Final instalment, 30%, on completion of installation",
        "25,200.00",
    ),
]

DEPOSITION = [
    "DEPOSITION OF MARCUS CALDER, taken November 14, 2024 (excerpt)\nHarbor Point Provisions LLC v. Calder "
    "Refrigeration Systems, Inc.\n\nQ. When did your crew finish the installation at Harbor Point?\nA. We "
    "finished the panels in early May. The freezer was running by May 24, I believe.\nQ. The agreement gave a "
    "completion date of May 1. Did you meet it?\nA. No. The second compressor came from our supplier three "
    "weeks late. That was outside our control.\nQ. Did you tell Harbor Point about the delay in writing?\n"
    "A. My project manager, Priya Nandakumar, e-mailed them in April.",
    "Q. On June 12 the freezer lost temperature overnight. Were you told?\nA. Yes, Ms. Whitcombe called the "
    "next morning and sent an e-mail.\nQ. When did your technician arrive?\nA. On June 14, in the afternoon.\n"
    "Q. That is more than twenty-four hours after the notice, is it not?\nA. It is. We had one technician "
    "for the whole county that week.\nQ. What did he find?\nA. The second compressor was short-cycling. He "
    "replaced a pressure switch. I do not know what product was lost; I was not there.",
]

RECEIPT = (
    "DELIVERY RECEIPT  -  CALDER REFRIGERATION\n\nDate: April 19, 2024\nDelivered to: Harbor Point Provisions, "
    "14 Quay Street\nItems: compressor unit A (serial 77-3141), crate of panel fittings\nNot delivered: "
    "compressor unit B - on back order\n\nReceived by: R. Okafor, warehouse"
)

THREAD = [
    (
        "priya.nandakumar@calder-refrig.example",
        "dana.whitcombe@harborpoint.example",
        "Tue, 16 Apr 2024 09:12:00 -0400",
        "Compressor B delayed",
        "Dana,\n\nOur supplier tells us the second compressor for your freezer will ship on May 6. Unit A and the "
        "fittings arrive on Friday. We will install A now and B as soon as it lands.\n\nPriya Nandakumar\nProject "
        "Manager, Calder Refrigeration",
    ),
    (
        "dana.whitcombe@harborpoint.example",
        "priya.nandakumar@calder-refrig.example",
        "Tue, 16 Apr 2024 11:40:00 -0400",
        "Re: Compressor B delayed",
        "Priya,\n\nThat puts completion well past May 1. Please note that we hold Calder to the completion date "
        "and to the late-completion clause in section 4. Our summer stock arrives in June.\n\nDana Whitcombe\n"
        "Operations Director, Harbor Point Provisions",
    ),
    (
        "dana.whitcombe@harborpoint.example",
        "m.calder@calder-refrig.example",
        "Thu, 13 Jun 2024 07:05:00 -0400",
        "Freezer failure - warranty notice",
        "Marcus,\n\nThis is written notice under section 5. The blast freezer rose to plus twelve degrees "
        "overnight on June 12 and we have moved what stock we could to a rented trailer. We need a technician "
        "today.\n\nDana Whitcombe",
    ),
]

PUNCH_LIST = (
    "Harbor Point freezer - open items, June 20, 2024\n1. Compressor B short-cycles under full load.\n"
    "2. Door heater strip not wired.\n3. Spoiled stock written off: 1,850 lb of scallops and halibut, "
    "invoice value $31,400.\n"
)

EARLIER_DRAFT = (
    "DRAFT DEMAND LETTER prepared by chambers. Calder Refrigeration failed to complete the blast freezer by "
    "the first of May and did not respond within twenty-four hours of the warranty notice of June 13. Harbor "
    "Point therefore claims liquidated damages of two hundred dollars a day from May 1 to May 24 and the value "
    "of the spoiled stock, and asks Calder to replace compressor B under the warranty. This draft must be "
    "checked against the sources before it is sent."
)

Progress = Callable[[str], None]


def generate_sample_matter(root: Path, progress: Progress | None = None) -> list[Path]:
    """Write the sample matter under ``root``; returns its source folders (production, correspondence, transcripts)."""
    say = progress or (lambda message: None)
    originals, production = root / "originals", root / "production"
    correspondence, transcripts = root / "correspondence", root / "transcripts"
    for folder in (originals, production, correspondence, transcripts):
        folder.mkdir(parents=True, exist_ok=True)
    say(f"Writing the sample matter '{SAMPLE_MATTER}' to {root}")
    documents = [
        (
            "01-supply-agreement.pdf",
            _text_pdf(CONTRACT, "Equipment Supply and Installation Agreement", "20240110"),
        ),
        *[
            (
                f"0{2 + i}-invoice-{number.lower()}.pdf",
                _text_pdf([_invoice(number, date, item, amount)], number, day),
            )
            for i, (number, day, date, item, amount) in enumerate(INVOICES)
        ],
        ("05-delivery-receipt-scan.pdf", _scanned_pdf(RECEIPT, "20240419")),
    ]
    bates = 1
    for name, doc in documents:
        doc.save(originals / name, garbage=3, deflate=True)
        for index in range(doc.page_count):
            _stamp(doc.load_page(index), f"{BATES_PREFIX}-{bates:06d}")
            bates += 1
        doc.save(production / name, garbage=3, deflate=True)
        doc.close()
    deposition = _text_pdf(DEPOSITION, "Deposition of Marcus Calder (excerpt)", "20241114")
    deposition.save(transcripts / "calder-deposition-excerpt.pdf", garbage=3, deflate=True)
    _write_thread(correspondence)
    _text_pdf([EARLIER_DRAFT[:300], EARLIER_DRAFT[300:]], "notes", "20241201").save(
        correspondence / "notes.pdf"
    )
    say(f"  {bates - 1} Bates-stamped pages in {production}, an e-mail thread, a deposition excerpt")
    return [production, correspondence, transcripts]


def _invoice(number: str, date: str, item: str, amount: str) -> str:
    return (
        f"CALDER REFRIGERATION SYSTEMS, INC.\n220 Foundry Road, Millbrook\n\nINVOICE {number}\nDate: {date}\n"
        f"Bill to: Harbor Point Provisions LLC, 14 Quay Street, Port Ellery\n\n{item}\nAmount due: ${amount}\n"
        "Terms: payable within 15 days. Contract of January 10, 2024."
    )


def _text_pdf(pages: list[str], title: str, date: str) -> pymupdf.Document:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 740), text, fontsize=11, fontname="tiro")
    doc.set_metadata({"title": title, "creationDate": f"D:{date}000000Z"})
    return doc


def _scanned_pdf(text: str, date: str) -> pymupdf.Document:
    """A page that is only a picture: text rendered to pixels and placed as an image, no text layer."""
    paper = pymupdf.open()
    page = paper.new_page()
    page.insert_textbox(pymupdf.Rect(72, 90, 540, 500), text, fontsize=14, fontname="cour")
    pixmap = page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scanned = scan.new_page()
    scanned.insert_image(scanned.rect, pixmap=pixmap)
    scan.set_metadata({"title": "Delivery receipt (scan)", "creationDate": f"D:{date}000000Z"})
    return scan


def _stamp(page: pymupdf.Page, number: str) -> None:
    """A Bates stamp at the visible bottom right, whatever the page's rotation (``page.rect`` is the
    visible page; the point is mapped to unrotated space, where PyMuPDF draws)."""
    corner = pymupdf.Point(page.rect.width - 110, page.rect.height - 20)
    page.insert_text(
        corner * page.derotation_matrix, number, fontsize=10, rotate=page.rotation, color=(0, 0, 0)
    )


def _write_thread(folder: Path) -> None:
    for index, (sender, to, date, subject, body) in enumerate(THREAD, start=1):
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Date"], mail["Subject"] = sender, to, date, subject
        mail.set_content(body)
        if index == len(THREAD):
            mail.add_attachment(
                PUNCH_LIST.encode(), maintype="text", subtype="plain", filename="open-items.txt"
            )
        slug = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")
        (folder / f"{index:02d}-{slug}.eml").write_bytes(mail.as_bytes())


def prepare_sample_matter(db_path: Path, root: Path, progress: Progress | None = None) -> Matter:
    """Generate the sample matter once, record chambers' earlier draft as an output, create the matter.

    Safe to run again: files already written are left alone (so a re-ingest finds them unchanged), the
    draft is registered once, and an existing matter is reused.
    """
    sources = [root / "production", root / "correspondence", root / "transcripts"]
    if not all(folder.is_dir() for folder in sources):
        check_output(db_path, root, what="demo home (CHAMBERS_HOME)", folder=True)
        sources = generate_sample_matter(root, progress)
    with open_index(db_path) as db:
        registered = text_registered(db, sha256_bytes(EARLIER_DRAFT.encode()))
    if not registered:
        register_output(db_path, EARLIER_DRAFT, "draft")
    try:
        return get_matter(db_path, SAMPLE_MATTER)
    except MatterNotFound:
        return create_matter(db_path, SAMPLE_MATTER, sources)
