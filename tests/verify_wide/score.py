"""Score the verifier on the generated drafts of the wide corpus, a part at a time.

A part's opinions are copied into a library and ingested by evidence's own ingest; each generated
draft is verified against it and every item is given the verdict of the flag over its span. The
verdict is read as the verifier reports it: ``flag.verdict`` (verified, contradicted,
unverifiable) where the report has one, else from the severity (block is contradicted, warn is
unverifiable, ok is verified). An item with no flag over it has no verdict.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from drafting.verify.library import Authority
from drafting.verify.model import Flag
from tests.verify_wide.assemble import assemble_placed, load_manifest
from tests.verify_wide.generate import Draft, Item, generate
from tests.verify_wide.split import recorded_heldout

FABRICATED_IN_HELD_SLOT = ("party", "year", "pin-range", "word", "quote-page")


REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_CORPUS = REPO_ROOT.parent / "shared" / "corpus"
PLACED_CACHE = REPO_ROOT / "build" / "verify_wide_opinions"


def wide_opinions_folder() -> Path | None:
    """The assembled wide corpus: ``$CHAMBERS_REAL_OPINIONS`` or ``../shared/corpus/verify_real/opinions``,
    whichever holds every file the manifest lists; else the corpus assembled (into ``build/``) from the
    files placed anywhere under ``../shared/corpus/``, found by their sha256, if every one is there."""
    named = os.environ.get("CHAMBERS_REAL_OPINIONS")
    names = [e["name"] for e in load_manifest()]
    for folder in (Path(named) if named else None, SHARED_CORPUS / "verify_real" / "opinions"):
        if folder is not None and all((folder / n).is_file() for n in names):
            return folder
    if SHARED_CORPUS.is_dir() and not assemble_placed(PLACED_CACHE, [SHARED_CORPUS]):
        return PLACED_CACHE
    return None


MISSING_REASON = (
    "the wide corpus of tests/verify_real/SOURCES.md is not here: assemble it with "
    "`python -m tests.verify_wide.assemble DIR` and name DIR in CHAMBERS_REAL_OPINIONS, "
    "or put its files in ../shared/corpus/verify_real/opinions"
)


def verdict_of(flag: Flag) -> str:
    verdict = getattr(flag, "verdict", None)
    severity = flag.severity
    if verdict in ("verified", "contradicted", "unverifiable"):
        if verdict == "verified" and severity == "block":
            return "contradicted"
        return str(verdict)
    return {"block": "contradicted", "warn": "unverifiable"}.get(severity, "verified")


@dataclass
class PartScore:
    part: str
    opinions: int = 0
    drafts: int = 0
    verdicts: list[tuple[Item, str, str]] = field(default_factory=list)  # item, verdict, message
    held: set[str] = field(default_factory=set)
    indexed: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)  # file: citations, reason
    unverifiable_reasons: Counter[tuple[str, str]] = field(default_factory=Counter)  # (truth, reason)

    def counts(self) -> dict[tuple[str, str], Counter[str]]:
        out: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for item, verdict, _ in self.verdicts:
            out[(item.truth, item.category)][verdict] += 1
        return out

    def rates(self) -> dict[str, float]:
        fab = [(i, v) for i, v, _ in self.verdicts if i.truth == "fabricated"]
        held = [(i, v) for i, v in fab if i.category in FABRICATED_IN_HELD_SLOT and i.slot in self.held]
        true = [(i, v) for i, v, _ in self.verdicts if i.truth == "true"]

        def share(rows: list[tuple[Item, str]], verdict: str) -> float:
            return sum(v == verdict for _, v in rows) / len(rows) if rows else 0.0

        return {
            "fabricated": len(fab),
            "fabricated_verified": share(fab, "verified"),
            "held_fabricated": len(held),
            "held_contradicted": share(held, "contradicted"),
            "true": len(true),
            "true_contradicted": share(true, "contradicted"),
            "true_unverifiable": share(true, "unverifiable"),
            "no_verdict": sum(v == "none" for _, v, _ in self.verdicts),
        }

    def line(self) -> str:
        r = self.rates()
        return (
            f"{self.part}: {self.opinions} opinions, {self.drafts} drafts, {len(self.verdicts)} items; "
            f"fabricated {r['fabricated']}: verified {r['fabricated_verified']:.1%}; "
            f"in a held slot {r['held_fabricated']}: contradicted {r['held_contradicted']:.1%}; "
            f"true {r['true']}: contradicted {r['true_contradicted']:.1%}, unverifiable {r['true_unverifiable']:.1%}; "
            f"no verdict {r['no_verdict']}"
        )

    def table(self) -> list[str]:
        rows = []
        for (truth, category), counter in sorted(self.counts().items()):
            total = sum(counter.values())
            cells = ", ".join(
                f"{v} {counter[v]}"
                for v in ("verified", "contradicted", "unverifiable", "none")
                if counter[v]
            )
            rows.append(f"  {truth:10} {category:11} {total:5}: {cells}")
        return rows

    def reason_lines(self) -> list[str]:
        """How many items of each truth were left unverifiable for each named reason: figures only,
        so the held-back part can be read this way without reading its items."""
        rows = []
        for truth in ("true", "fabricated"):
            counts = {r: n for (t, r), n in self.unverifiable_reasons.items() if t == truth}
            if counts:
                cells = ", ".join(
                    f"{r or 'unnamed'} {n}" for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))
                )
                rows.append(f"  {truth:10} unverifiable, by reason: {cells}")
        return rows

    def canonical(self) -> str:
        """Every item's verdict and message in draft order, for the byte-identical rerun check."""
        return json.dumps(
            [[i.opinion, i.category, i.start, v, m] for i, v, m in self.verdicts], ensure_ascii=False
        )


def part_entries(part: str) -> list[dict]:
    heldout = set(recorded_heldout())
    return [e for e in load_manifest() if (e["name"] in heldout) == (part == "heldout")]


def build_library(root: Path, opinions: Path, entries: list[dict]) -> Path:
    """A database with a record matter (empty) and the part's opinions as its authorities library."""
    from evidence.ingest import ingest_matter
    from evidence.matters import create_matter

    database_file = root / "chambers.sqlite3"
    record, library = root / "record", root / "opinions"
    record.mkdir(parents=True)
    library.mkdir()
    (record / "note.txt").write_text("The record of this matter is not cited by the generated drafts.\n")
    for entry in entries:
        shutil.copy2(opinions / entry["name"], library / entry["name"])
    create_matter(database_file, "wide", [record])
    create_matter(database_file, "wide-authorities", [library])
    ingest_matter(database_file, "wide", tessdata=None)
    ingest_matter(database_file, "wide-authorities", tessdata=None)
    _add_attorney_citations(database_file, library)
    return database_file


def _add_attorney_citations(database_file: Path, library: Path) -> None:
    """The citations the attorney gives the slip opinions (tests/verify_real/citations.json), as
    `chambers authorities add --cite` does; only those of this part's files."""
    from drafting.verify.library import add_citations

    given = json.loads((Path(__file__).parents[1] / "verify_real" / "citations.json").read_text())
    for name, cites in sorted(given.items()):
        if (library / name).is_file():
            add_citations(database_file, "wide-authorities", library / name, cites)


def _held_slots(authorities: list[Authority]) -> set[str]:
    held = set()
    for authority in authorities:
        for cite in authority.citations:
            held.add(" ".join(cite.replace(".", ". ").split()).replace(". ", ".").lower())
    return held


def _norm_slot(slot: str) -> str:
    return " ".join(slot.replace(".", ". ").split()).replace(". ", ".").lower()


def score_drafts(database_file: Path, drafts: list[Draft], part: str, opinions: int) -> PartScore:
    from drafting.verify import load_matter_index, verify_with
    from drafting.verify.library import authorities_of

    index = load_matter_index(database_file, "wide", "wide-authorities")
    assert index.library is not None
    authorities = authorities_of(index.library)  # the library verify reads, not a second reading of it
    held = _held_slots(authorities)
    score = PartScore(part, opinions, len(drafts))
    score.indexed = {a.file: (a.citations, a.reason) for a in authorities}
    for draft in drafts:
        report = verify_with(database_file, draft.text, draft.name + ".md", index)
        for item in draft.items or []:
            over = [
                f for f in report.flags if f.start < item.end and item.start < f.end and f.kind in item.kinds
            ]
            over.sort(key=lambda f: (item.kinds.index(f.kind), abs(f.start - item.start)))
            if over:
                verdict = verdict_of(over[0])
                score.verdicts.append((item, verdict, over[0].message))
                if verdict == "unverifiable":
                    score.unverifiable_reasons[(item.truth, over[0].reason)] += 1
            else:
                score.verdicts.append((item, "none", ""))
            if _norm_slot(item.slot) in held:
                score.held.add(item.slot)
    return score


def score_part(root: Path, opinions: Path, part: str, per_opinion: int = 8) -> PartScore:
    entries = part_entries(part)
    database_file = build_library(root, opinions, entries)
    drafts = generate(opinions, entries, per_opinion)
    return score_drafts(database_file, drafts, part, len(entries))


def canonical_in_process(opinions: Path, part: str, hash_seed: str) -> str:
    """The part's canonical verdicts computed by a fresh interpreter with ``PYTHONHASHSEED=hash_seed``,
    since a rerun is a new process: anything that hangs on set or dict-of-str order shows here."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run(
        [sys.executable, "-m", "tests.verify_wide.score", str(opinions), part],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


def main(argv: list[str]) -> int:
    import logging
    import sys
    import tempfile

    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        sys.stdout.write(score_part(Path(tmp), Path(argv[0]), argv[1]).canonical())
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
