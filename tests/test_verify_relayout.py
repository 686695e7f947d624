"""The same opinions in other real-world layouts: the verifier must reach the same verdicts on each.

A few real opinions (the shared real corpus, and tune-part opinions of the wide corpus where it is
assembled; never a held-back one) are printed again by tests/support/relayout.py with their page
boundaries in other forms (``*N``, ``[*N]``, ``[N]``, "Page N" lines, bracketed lines, a break
inside a hyphenated word, parallel pages as ``*N``/``**N``) and inside a court's sheets (wrapped and
hyphenated lines, slip-page footers, running heads, ECF stamps, form feeds, a real PDF). No layout
changes a word or the page a word is on, so each true and fabricated item generated from the
original file (tests/verify_wide/generate.py) must get the verdict it gets on the original.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from drafting.verify import load_matter_index, verify_with
from drafting.verify.library import add_citations
from evidence.ingest import ingest_matter
from evidence.matters import create_matter
from tests.support.relayout import layouts
from tests.verify_wide.assemble import load_manifest
from tests.verify_wide.generate import extra_drafts, opinion_drafts
from tests.verify_wide.score import verdict_of
from tests.verify_wide.split import recorded_heldout

# One of each way the sources print their pages: Fastcase's bracketed lines of two reporters, a
# slip opinion with none, the Caselaw Access Project's stars, and Columbia's "Page N" lines.
OPINIONS = (
    "petro-lubricant-v-adelman.txt",
    "fisher-v-university-of-texas.txt",
    "wester-v-missouri-department-of-labor-and-industrial-relatio-134-s-w-3d-757.txt",
    "rockstad-v-global-finance-investment-co-41-p-3d-583.txt",
)
PER_OPINION = 3
SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "verify_real" / "opinions"
GIVEN = json.loads((Path(__file__).parent / "verify_real" / "citations.json").read_text())
LAYOUTS = (
    "star",
    "star-in-word",
    "lexis-star",
    "bare-bracket",
    "page-line",
    "bracket-line",
    "bracket-split-word",
    "parallel-stars",
    "lexis-parallel",
    "ocr-spacing",
    "wrapped",
    "wrapped-hyphen",
    "footer-dash",
    "footer-bare",
    "footer-of",
    "two-sheets-footer-of",
    "head-cite",
    "head-parties",
    "head-court",
    "ecf",
    "form-feeds",
    "pdf",
    "pdf-star",
)
Key = tuple[str, int, str]  # draft, item's start, its category


def _source(name: str) -> Path | None:
    named = os.environ.get("CHAMBERS_REAL_OPINIONS")
    for folder in (Path(named) if named else None, SHARED):
        if folder is not None and (folder / name).is_file():
            return folder / name
    return None


def _file_name(name: str, data: str | bytes) -> str:
    return Path(name).stem + (".pdf" if isinstance(data, bytes) else ".txt")


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[Key, tuple[str, str]]]:
    """Each layout's verdict (and message) on every generated item, the original's under "original"."""
    found = {name: _source(name) for name in OPINIONS}
    present = {name: path for name, path in found.items() if path is not None}
    if "petro-lubricant-v-adelman.txt" not in present:
        pytest.skip("the real opinions are not here: put them in ../shared/corpus/verify_real/opinions")
    logging.disable(logging.WARNING)
    root = tmp_path_factory.mktemp("relayout")
    database = root / "chambers.sqlite3"
    record = root / "record"
    record.mkdir()
    (record / "note.txt").write_text("The record of this matter is not cited here.\n")
    create_matter(database, "m", [record])
    ingest_matter(database, "m", tessdata=None)
    manifest = {e["name"]: e for e in load_manifest()}
    drafts = []
    folders: dict[str, Path] = {}
    for name, path in present.items():
        entry, text = manifest[name], path.read_text(encoding="utf-8")
        drafts += opinion_drafts(entry, text, PER_OPINION) + extra_drafts(entry, text, PER_OPINION)
        for layout, data in layouts(entry, text).items():
            folder = folders.setdefault(layout, root / "layouts" / layout)
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / _file_name(name, data)
            target.write_bytes(data) if isinstance(data, bytes) else target.write_text(data, encoding="utf-8")
    out: dict[str, dict[Key, tuple[str, str]]] = {}
    for layout, folder in folders.items():
        library = f"library-{layout}"
        create_matter(database, library, [folder])
        ingest_matter(database, library, tessdata=None)
        for name, cites in GIVEN.items():  # the attorney's citations of the slip opinions
            for path in folder.glob(Path(name).stem + ".*"):
                add_citations(database, library, path, cites)
        index = load_matter_index(database, "m", library)
        seen: dict[Key, tuple[str, str]] = {}
        for draft in drafts:
            report = verify_with(database, draft.text, draft.name + ".md", index)
            for item in draft.items or []:
                over = [
                    f
                    for f in report.flags
                    if f.start < item.end and item.start < f.end and f.kind in item.kinds
                ]
                over.sort(key=lambda f: (item.kinds.index(f.kind), abs(f.start - item.start)))
                seen[(draft.name, item.start, item.category)] = (
                    (verdict_of(over[0]), over[0].message) if over else ("none", "")
                )
        out[layout] = seen
    logging.disable(logging.NOTSET)
    return out


def test_no_held_back_opinion_is_relaid() -> None:
    assert not set(OPINIONS) & set(recorded_heldout())


def test_the_original_layout_gets_true_items_right_and_blocks_the_fabricated(
    verdicts: dict[str, dict[Key, tuple[str, str]]],
) -> None:
    """The items are worth comparing: on the original files no true item is contradicted and no
    fabricated one verified (a layout that agrees with the original agrees with the truth)."""
    original = verdicts["original"]
    assert len(original) >= 40
    wrong = [
        (key, verdict)
        for key, (verdict, _) in original.items()
        if (verdict == "contradicted") == key[2].startswith("true") or verdict == "none"
        if verdict != "unverifiable"
    ]
    assert not wrong


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_reaches_the_original_verdicts(
    verdicts: dict[str, dict[Key, tuple[str, str]]], layout: str
) -> None:
    original, laid = verdicts["original"], verdicts[layout]
    changed = [
        f"{key[0]} {key[2]}@{key[1]}: {original[key][0]} -> {laid[key][0]}: {laid[key][1][:200]}"
        for key in original
        if laid[key][0] != original[key][0]
    ]
    assert not changed, "\n".join(changed)
