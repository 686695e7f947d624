"""The registry of everything chambers writes, and the quarantine that keeps it out of evidence.

An evidence builder that takes in the pipeline's own outputs lets a model
"ground" its claims on model text, the more so as the outputs pile up. Every
output chambers writes is therefore registered here (the hash of
the file, and the hashes of its normalized text shingles), and ingest
quarantines a source file when:

1. its sha256 is a registered output (it *is* one of our files);
2. it lies in one of chambers' own output folders (the data folder, or any
   folder holding a ``.chambers-output`` marker);
3. its PDF metadata names chambers as the program that made it;
4. its text substantially overlaps registered output text.

Rule 4, the threshold. Text is normalized (case-folded, punctuation and
spacing dropped) and cut into overlapping runs of ``SHINGLE_WORDS`` = 8 words.
Two independently written texts almost never share an 8-word run except in
quotations and boilerplate, so the share of a file's runs that also occur in
generated text measures how much of it was copied from chambers' output. A
file is quarantined at ``OVERLAP_THRESHOLD`` = 50% or more: a re-typed,
re-formatted or lightly edited draft still shares most of its runs (the
failure above was 79%), while a primary document quoted in a draft shares only
the quoted passages. The case it would catch wrongly is a short primary
document that a draft quoted whole. So when an output is registered, its
runs that quote text already indexed as primary evidence are marked as
quotations; they count for neither side, and the share is taken over the
rest of the file. A file is quarantined when that share is 50% or more and
generated runs are at least ``MIN_GENERATED_SHARE`` (10%) of all its runs (so
a stray common phrase never condemns a quoted source), while a saved draft
that is mostly quotations is still caught by its own words.
Every quarantine is visible, with the overlap, in ``chambers evidence audit``.

Shingle hashes are Python's hash of a tuple of CRC-32 word hashes: computed in
C (ingest speed matters) and, for integers, free of hash randomisation.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Iterable
from pathlib import Path

from evidence.store import (
    Connection,
    add_output,
    index_is_empty,
    open_index,
    phrase_indexed,
    registry_is_empty,
    shingle_marks,
)
from evidence.store import (
    registered_output as registered_output,  # read by ingest, the report and corrections
)

SHINGLE_WORDS = 8
OVERLAP_THRESHOLD = 0.5
# Large files are measured on a sample of pages spread evenly through them: the rule is about the
# share of a whole file, which a few hundred pages estimate well, and ingest speed matters.
OVERLAP_SAMPLE_PAGES = 200
OUTPUT_MARKER = ".chambers-output"  # a folder holding this file is one of chambers' output folders
_WORD = re.compile(r"\w+")


MIN_GENERATED_SHARE = 0.1  # and at least this share of all its runs must be generated text


def _run_hashes(words: list[str]) -> list[int]:
    """The hash of each run of ``SHINGLE_WORDS`` words, by starting position."""
    ids = list(map(zlib.crc32, map(str.encode, words)))
    if len(ids) < SHINGLE_WORDS:
        return [hash(tuple(ids))] if ids else []
    return [hash(run) for run in zip(*(ids[i:] for i in range(SHINGLE_WORDS)), strict=False)]


def shingle_hashes(text: str) -> set[int]:
    """The hashes of every run of ``SHINGLE_WORDS`` normalized words in ``text``."""
    return set(_run_hashes(_WORD.findall(text.casefold())))


def quoted_runs(db: Connection, words: list[str]) -> set[int]:
    """Starting positions of the runs that quote text already indexed as primary evidence.

    Each run is looked up as an FTS5 phrase (about a millisecond each against
    10,000 pages; registration happens once per output, so exactness wins).
    """
    if len(words) < SHINGLE_WORDS or index_is_empty(db):
        return set()
    quoted = set()
    for start in range(len(words) - SHINGLE_WORDS + 1):
        if phrase_indexed(db, '"' + " ".join(words[start : start + SHINGLE_WORDS]) + '"'):
            quoted.add(start)
    return quoted


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def register_output(db_path: Path, output: Path | str, kind: str) -> int:
    """Record something chambers wrote, so ingest will never take it for evidence.

    ``output`` is the path of a file chambers wrote (its bytes are hashed and its
    text shingled) or the text itself. Call it for every draft, review,
    summary and export. Returns the registry id.
    """
    path: Path | None = None
    file_sha: str | None = None
    if isinstance(output, Path):
        path = output.absolute()
        data = path.read_bytes()
        file_sha = sha256_bytes(data)
        text = _text_of_output(path, data)
    else:
        text = output
    words = _WORD.findall(text.casefold())
    with open_index(db_path) as db:
        quoted = quoted_runs(db, words)
        hashes: dict[int, int] = {}
        for position, value in enumerate(_run_hashes(words)):
            hashes[value] = max(hashes.get(value, 0), int(position in quoted))
        return add_output(db, kind, path, file_sha, sha256_bytes(text.encode("utf-8")), hashes)


def _text_of_output(path: Path, data: bytes) -> str:
    from evidence.errors import UnreadableFile
    from evidence.readers import read_source  # readers import PyMuPDF; keep this module light

    try:
        documents = read_source(path.name, data)
    except UnreadableFile:  # an output we cannot read back is still fingerprinted by its file hash
        return ""
    return "\n".join(page.text for doc in documents for page in doc.pages)


class OverlapMeter:
    """Counts, page by page, how many of a file's shingles are in the registry (memory stays flat).

    With ``page_count`` above ``OVERLAP_SAMPLE_PAGES`` only every n-th page is measured.
    """

    def __init__(self, db: Connection, page_count: int = 0) -> None:
        self.db = db
        self.active = not registry_is_empty(db)
        self.every = max(1, -(-page_count // OVERLAP_SAMPLE_PAGES))  # ceiling division
        self.seen = 0
        self.total = 0
        self.matched = 0  # runs found in generated text
        self.quoted = 0  # runs found in outputs only where those outputs quote primary evidence

    def add(self, text: str) -> None:
        self.seen += 1
        if not self.active or (self.seen - 1) % self.every:
            return
        hashes = list(shingle_hashes(text))
        self.total += len(hashes)
        for start in range(0, len(hashes), 500):
            for quoted in shingle_marks(self.db, hashes[start : start + 500]):
                if quoted:
                    self.quoted += 1
                else:
                    self.matched += 1

    @property
    def share(self) -> float:
        """The share of the file's own (not quoted-from-evidence) runs that are generated text."""
        own = self.total - self.quoted
        return self.matched / own if own else 0.0

    def reason(self) -> str | None:
        floor = self.total and self.matched >= MIN_GENERATED_SHARE * self.total
        if floor and self.share >= OVERLAP_THRESHOLD:
            return (
                f"{self.share:.0%} of its text matches text chambers generated (the limit is "
                f"{OVERLAP_THRESHOLD:.0%} of its 8-word runs); it is probably an earlier draft or summary"
            )
        return None


def in_output_folder(path: Path, output_roots: Iterable[Path]) -> Path | None:
    """The chambers output folder ``path`` lies in, if any (the roots and any marked folder)."""
    resolved = path.resolve()
    for root in output_roots:
        try:
            resolved.relative_to(root.resolve())
        except ValueError:
            continue
        return root
    for parent in resolved.parents:
        if (parent / OUTPUT_MARKER).exists():
            return parent
    return None


def made_by_chambers(creator: str | None) -> bool:
    return bool(creator) and "chambers" in (creator or "").lower()
