"""The registry of everything chambers writes, and the quarantine that keeps it out of evidence.

MISSION lesson 2: an evidence builder once scooped up the pipeline's own earlier
outputs, so 79% of a bundle was model text and a model "grounded" its claims
on it. Every output chambers writes is therefore registered here (the hash of
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
the quoted passages. The one case it can catch wrongly is a short primary
document that a draft quoted whole; the quarantine is visible, with the
overlap, in ``chambers evidence audit``, so the attorney sees it.

Shingle hashes are Python's hash of a tuple of CRC-32 word hashes: computed in
C (ingest speed matters) and, for integers, free of hash randomisation.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import zlib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from workspace.database import connect

SHINGLE_WORDS = 8
OVERLAP_THRESHOLD = 0.5
# Large files are measured on a sample of pages spread evenly through them: the rule is about the
# share of a whole file, which a few hundred pages estimate well, and ingest speed matters.
OVERLAP_SAMPLE_PAGES = 200
OUTPUT_MARKER = ".chambers-output"  # a folder holding this file is one of chambers' output folders
_WORD = re.compile(r"\w+")


def shingle_hashes(text: str) -> set[int]:
    """The hashes of every run of ``SHINGLE_WORDS`` normalized words in ``text``."""
    ids = list(map(zlib.crc32, map(str.encode, _WORD.findall(text.casefold()))))
    if len(ids) < SHINGLE_WORDS:
        return {hash(tuple(ids))} if ids else set()
    return {hash(run) for run in zip(*(ids[i:] for i in range(SHINGLE_WORDS)), strict=False)}


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
    hashes = shingle_hashes(text)
    db = connect(db_path)
    try:
        with db:
            cur = db.execute(
                "INSERT INTO outputs (kind, path, sha256, text_sha256, shingles, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    str(path) if path else None,
                    file_sha,
                    sha256_bytes(text.encode("utf-8")),
                    len(hashes),
                    datetime.now(UTC).isoformat(),
                ),
            )
            output_id = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT OR IGNORE INTO output_shingles (hash, output_id) VALUES (?, ?)",
                ((h, output_id) for h in hashes),
            )
        return output_id
    finally:
        db.close()


def _text_of_output(path: Path, data: bytes) -> str:
    from evidence.errors import UnreadableFile
    from evidence.readers import read_source  # readers import PyMuPDF; keep this module light

    try:
        documents = read_source(path.name, data)
    except UnreadableFile:  # an output we cannot read back is still fingerprinted by its file hash
        return ""
    return "\n".join(page.text for doc in documents for page in doc.pages)


def registered_output(db: sqlite3.Connection, sha256: str) -> sqlite3.Row | None:
    return db.execute(
        "SELECT id, kind, created_at FROM outputs WHERE sha256 = ? ORDER BY id LIMIT 1", (sha256,)
    ).fetchone()


def registry_is_empty(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM output_shingles LIMIT 1").fetchone() is None


class OverlapMeter:
    """Counts, page by page, how many of a file's shingles are in the registry (memory stays flat).

    With ``page_count`` above ``OVERLAP_SAMPLE_PAGES`` only every n-th page is measured.
    """

    def __init__(self, db: sqlite3.Connection, page_count: int = 0) -> None:
        self.db = db
        self.active = not registry_is_empty(db)
        self.every = max(1, -(-page_count // OVERLAP_SAMPLE_PAGES))  # ceiling division
        self.seen = 0
        self.total = 0
        self.matched = 0

    def add(self, text: str) -> None:
        self.seen += 1
        if not self.active or (self.seen - 1) % self.every:
            return
        hashes = list(shingle_hashes(text))
        self.total += len(hashes)
        for start in range(0, len(hashes), 500):
            batch = hashes[start : start + 500]
            marks = ",".join("?" * len(batch))
            row = self.db.execute(
                f"SELECT count(DISTINCT hash) FROM output_shingles WHERE hash IN ({marks})", batch
            ).fetchone()
            self.matched += int(row[0])

    @property
    def share(self) -> float:
        return self.matched / self.total if self.total else 0.0

    def reason(self) -> str | None:
        if self.total and self.share >= OVERLAP_THRESHOLD:
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
