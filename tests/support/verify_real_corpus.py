"""The real-world verifier corpus (tests/verify_real): its matter and library, built and scored.

The authorities are real opinions as they are distributed (see tests/verify_real/SOURCES.md),
ingested by evidence's own ingest. The record they are cited beside is generated here by
PyMuPDF, because no public production carries Bates stamps and a deposition of the same
events: a ten-page production stamped ABC0000001 on (no separator, the common form) and a
deposition transcript of Ms. Ramos in the reporters' 25-numbered-lines layout with a "Page N"
header. Its facts are the public facts of Mata v. Avianca (Flight 670, August 27, 2019, a
metal serving cart); the witness and her testimony are invented for the corpus.

Each draft ``NAME.md`` has ``NAME.answers.json``: ``[kind, text, occurrence, truth, note]``
per checkable item, truth ``true``, ``fabricated`` or ``unverifiable`` (a real authority that is
not in the library: it must be flagged, and counts in neither rate).
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
import pytest

from evidence.ingest import ingest_matter
from evidence.matters import create_matter

CORPUS = Path(__file__).parent.parent / "verify_real"


def _opinions_folder() -> Path | None:
    """The real opinions, which this repository does not carry (they are other repositories' files).

    They are looked for in ``$CHAMBERS_REAL_OPINIONS``, then in the shared folder beside the
    clone (``../shared/corpus/verify_real/opinions``); SOURCES.md lists each file with its
    sha256 and where it comes from.
    """
    named = os.environ.get("CHAMBERS_REAL_OPINIONS")
    shared = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "verify_real" / "opinions"
    for folder in (Path(named) if named else None, shared, CORPUS / "opinions"):
        if folder is not None and (folder / "tarrant-v-herrmann.pdf").is_file():
            return folder
    return None


OPINIONS = _opinions_folder()
requires_opinions = pytest.mark.skipif(
    OPINIONS is None,
    reason="the real opinions of tests/verify_real/SOURCES.md are not here: put them in "
    "../shared/corpus/verify_real/opinions or name their folder in CHAMBERS_REAL_OPINIONS",
)
MATTER = "mata-record"
LIBRARY = f"{MATTER}-authorities"
PRODUCTION = {
    1: "Passenger manifest, August 27, 2019. Avianca Flight 670, New York (JFK) to Bogota. Passenger 24C Roberto Mata boarded at 10:05.",
    2: "Cabin incident report. During meal service a metal serving cart struck the left knee of the passenger in 24C. "
    "The passenger was struck by a metal serving cart after it rolled from the forward galley.",
    3: "Purser's statement. The purser states the cart was secured in its galley position before departure.",
    4: "Purser's statement, continued. The purser completed this report on landing on August 27, 2019.",
    5: "Photograph 1 of the passenger's left knee, taken at the gate.",
    6: "Photograph 2 of the passenger's left knee, taken at the gate.",
    7: "Crew roster for Flight 670. Flight attendant M. Ramos, position L2.",
    8: "Cabin log, page 1. Pre-flight checks of the forward galley.",
    9: "Cabin log, page 2. Cart inspection recorded at 09:40 by the L2 flight attendant.",
    10: "Maintenance file. Cart brake serviced on July 2, 2019.",
}
TESTIMONY = {  # (page, line): what the line says; every other line is a question or colloquy
    (12, 3): "Q. Was the cart locked?",
    (12, 4): "A. No. The cart was not locked when it rolled into",
    (12, 5): "the aisle.",
    (13, 6): "Q. Where was the passenger?",
    (13, 7): "A. I think the passenger had already stood up when the",
    (13, 8): "cart moved.",
    (14, 1): "Q. Did you check the brake?",
    (14, 2): "A. I did not check the brake before the service",
    (14, 3): "began.",
}
TRANSCRIPT_PAGES = 20


@dataclass(frozen=True)
class RealCorpus:
    database_file: Path
    matter: str
    library: str
    not_indexed: tuple[str, ...] = ()


def _production(folder: Path) -> None:
    doc = pymupdf.open()
    for number, text in PRODUCTION.items():
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 600), text, fontsize=11, fontname="helv")
        page.insert_text((460, 760), f"ABC{number:07d}", fontsize=10, fontname="helv")
    doc.save(folder / "Avianca production 001.pdf")
    doc.close()


def _transcript(folder: Path) -> None:
    doc = pymupdf.open()
    for page_no in range(1, TRANSCRIPT_PAGES + 1):
        page = doc.new_page()
        page.insert_text((280, 50), f"Page {page_no}", fontsize=10, fontname="cour")
        for line in range(1, 26):
            said = TESTIMONY.get((page_no, line), f"MR. LODUCA: Colloquy on page {page_no}, line {line}.")
            page.insert_text((60, 80 + line * 26), f"{line:>2}  {said}", fontsize=10, fontname="cour")
    doc.save(folder / "Ramos deposition transcript.pdf")
    doc.close()


def build_real_corpus(root: Path) -> RealCorpus:
    """The record matter and the library of real opinions, ingested under ``root``."""
    database_file = root / "chambers.sqlite3"
    record = root / "record"
    record.mkdir()
    _production(record)
    _transcript(record)
    opinions = root / "opinions"
    if OPINIONS is None:
        raise FileNotFoundError(f"The real opinions are missing: {requires_opinions.kwargs['reason']}.")
    shutil.copytree(OPINIONS, opinions)
    create_matter(database_file, MATTER, [record])
    create_matter(database_file, LIBRARY, [opinions])
    ingest_matter(database_file, MATTER, tessdata=None)
    ingest_matter(database_file, LIBRARY, tessdata=None)
    not_indexed = _add_attorney_citations(database_file, opinions)
    return RealCorpus(database_file, MATTER, LIBRARY, not_indexed)


def _add_attorney_citations(database_file: Path, opinions: Path) -> tuple[str, ...]:
    """Say each slip opinion's citation, as the attorney does with `chambers authorities add --cite`."""
    try:
        from drafting.verify.library import add_citations, list_authorities
    except ImportError:  # the verifier before the library learned attorney-given citations
        return ()
    for name, cites in json.loads((CORPUS / "citations.json").read_text()).items():
        add_citations(database_file, LIBRARY, opinions / name, cites)
    return tuple(a.file for a in list_authorities(database_file, LIBRARY) if not a.citations)


@dataclass
class Score:
    part: str
    true_items: int = 0
    true_blocked: int = 0
    fabricated: int = 0
    fabricated_blocked: int = 0
    unverifiable: int = 0
    unverifiable_flagged: int = 0
    true_unverifiable: int = 0  # true items the verifier could not check here (a slip opinion's pin)
    fabricated_verified: int = 0
    dropped: list[str] = field(default_factory=list)  # answer-key items with no flag at all
    misses: list[str] = field(default_factory=list)  # fabricated not blocked, true blocked
    unexpected_blocks: list[str] = field(default_factory=list)  # blocks on things not in the key

    @property
    def fabricated_rate(self) -> float:
        return self.fabricated_blocked / self.fabricated if self.fabricated else 0.0

    @property
    def true_rate(self) -> float:
        return self.true_blocked / self.true_items if self.true_items else 0.0

    def line(self) -> str:
        return (
            f"{self.part}: fabricated blocked {self.fabricated_rate:.1%} ({self.fabricated_blocked}/{self.fabricated}), "
            f"true blocked {self.true_rate:.1%} ({self.true_blocked}/{self.true_items}), "
            f"true unverifiable {self.true_unverifiable}/{self.true_items}, "
            f"fabricated verified {self.fabricated_verified}, "
            f"unverifiable flagged {self.unverifiable_flagged}/{self.unverifiable}, "
            f"dropped {len(self.dropped)}, unexpected blocks {len(self.unexpected_blocks)}"
        )


def score_part(corpus: RealCorpus, part: str) -> Score:
    """Verify every draft of ``tests/verify_real/<part>`` and compare its flags with the answer key."""
    from drafting.verify import verify_draft

    score = Score(part)
    for answers_file in sorted((CORPUS / part).glob("*.answers.json")):
        draft = answers_file.with_name(answers_file.name.replace(".answers.json", ".md"))
        report = verify_draft(corpus.database_file, draft, corpus.matter, corpus.library)
        seen: Counter[tuple[str, str]] = Counter()
        flags = {}
        for flag in sorted(report.flags, key=lambda f: (f.start, f.end)):
            flags[(flag.kind, flag.text, seen[(flag.kind, flag.text)])] = flag
            seen[(flag.kind, flag.text)] += 1
        keyed = set()
        for kind, text, occurrence, truth, note in json.loads(answers_file.read_text()):
            keyed.add((kind, text, occurrence))
            found = flags.get((kind, text, occurrence))
            where = f"{draft.name}: {kind} {text!r}#{occurrence} ({note})"
            if found is None:
                score.dropped.append(where)
                got, verdict = "missing", "missing"
            else:
                got, verdict = found.severity, getattr(found, "verdict", "")
                where += f" -> {found.severity}/{verdict}: {found.message}"
            if truth == "fabricated":
                score.fabricated += 1
                score.fabricated_blocked += got == "block"
                score.fabricated_verified += verdict == "verified"
                if got != "block":
                    score.misses.append("NOT BLOCKED " + where)
            elif truth == "true":
                score.true_items += 1
                # a true item is wrongly blocked when the sources are said to contradict it; one
                # that cannot be checked here (unverifiable) is counted apart
                wrong = verdict == "contradicted" if verdict else got == "block"
                score.true_blocked += wrong
                score.true_unverifiable += verdict == "unverifiable"
                if wrong:
                    score.misses.append("FALSE BLOCK " + where)
            else:
                score.unverifiable += 1
                score.unverifiable_flagged += got in ("block", "warn")
        for key, flag in flags.items():
            if (
                key not in keyed
                and getattr(flag, "verdict", "contradicted") == "contradicted"
                and flag.severity == "block"
            ):
                score.unexpected_blocks.append(f"{draft.name}: {flag.kind} {flag.text!r}: {flag.message}")
    return score
