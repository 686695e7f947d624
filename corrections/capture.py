"""Capture: store a correction pair when the attorney accepts (or saves) an edited draft.

The refusal comes first: a pair whose model inputs held any chunk that is not a
primary source would teach a model to treat generated text as the client's evidence, so it is
refused, naming the chunk and the reason. A chunk is non-primary when its provenance says so, or
when its file's hash is in the registry of what chambers wrote (the flag could be stale; the
registry is checked again at capture).

Identical pairs (same inputs, draft, final text and model) are stored once: accepting the same
draft twice must not weigh it double in training.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from corrections.errors import CorrectionsError, PoisonedContext
from corrections.model import CorrectionInput, SourceRef
from corrections.redline import Redline, redline, word_diff
from evidence.provenance import registered_output
from workspace.database import connect


@dataclass(frozen=True)
class CaptureResult:
    pair_id: int
    stored: bool  # False: an identical pair was already stored, and pair_id is that one
    redline: Redline


def pair_sha256(item: CorrectionInput) -> str:
    """The identity of a pair: what the model was given, what it wrote, what he made of it, and which model."""
    canonical = json.dumps(
        [item.task_type, item.instructions, [m.as_chat() for m in item.messages], item.draft, item.final,
         item.model],
        ensure_ascii=False, separators=(",", ":"),
    )  # fmt: skip
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def check_primary(db: sqlite3.Connection, item: CorrectionInput) -> None:
    """Raise PoisonedContext for the first chunk that is not a primary source."""
    for index, message in enumerate(item.messages, start=1):
        for source in message.sources:
            why = _why_not_primary(db, source)
            if why:
                raise PoisonedContext(
                    f"Message {index} ({message.role}) carried [{source.label}] {source.path} page "
                    f"{source.page_no}, which {why}. A model must never learn from its own text as if it "
                    "were the client's evidence. Re-run the draft with primary sources only (the context "
                    "builder leaves such pages out), then accept it again."
                )


def _why_not_primary(db: sqlite3.Connection, source: SourceRef) -> str | None:
    if not source.primary:
        return "is marked as not primary"
    found = registered_output(db, source.sha256)
    if found is not None:
        return f"is a {found['kind']} chambers wrote on {str(found['created_at'])[:10]} (registered output)"
    return None


def capture(db_path: Path, item: CorrectionInput) -> CaptureResult:
    """Store ``item`` and its paragraph sub-pairs; refuse poisoned inputs; store identical pairs once."""
    if not item.final.strip():
        raise CorrectionsError(
            "The final text is empty, so there is nothing to learn from. Accept the draft once it holds "
            "your text.",
            title="Correction not saved: no final text",
        )
    line = redline(item.draft, item.final)
    digest = pair_sha256(item)
    db = connect(db_path)
    try:
        check_primary(db, item)
        existing = db.execute("SELECT id FROM corrections_pairs WHERE pair_sha256 = ?", (digest,)).fetchone()
        if existing is not None:
            return CaptureResult(int(existing[0]), False, line)
        with db:
            pair_id = _insert(db, item, digest, line)
    finally:
        db.close()
    return CaptureResult(pair_id, True, line)


def _insert(db: sqlite3.Connection, item: CorrectionInput, digest: str, line: Redline) -> int:
    sources = [
        {"message": index, **asdict(source)}
        for index, message in enumerate(item.messages)
        for source in message.sources
    ]
    cur = db.execute(
        """INSERT INTO corrections_pairs (pair_sha256, matter, task_type, instructions, messages_json,
               sources_json, draft, final, backend, model, server_build, run_id, trigger, drafted_at,
               accepted_at, captured_at, draft_words, final_words, words_added, words_removed, edit_ratio)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (digest, item.matter, item.task_type, item.instructions,
         json.dumps([m.as_chat() for m in item.messages], ensure_ascii=False),
         json.dumps(sources, ensure_ascii=False), item.draft, item.final, item.backend, item.model,
         item.server_build, item.run_id, item.trigger, item.drafted_at, item.accepted_at,
         datetime.now(UTC).isoformat(), line.draft_words, line.final_words, line.words_added,
         line.words_removed, line.edit_ratio),
    )  # fmt: skip
    pair_id = int(cur.lastrowid or 0)
    if item.adapter is not None:
        db.execute(
            "UPDATE corrections_pairs SET adapter = ?, adapter_sha256 = ? WHERE id = ?",
            (item.adapter, item.adapter_sha256, pair_id),
        )
    db.executemany(
        "INSERT INTO corrections_paragraphs (pair_id, seq, draft, final, edit_ratio) VALUES (?, ?, ?, ?, ?)",
        [(pair_id, seq, p.draft, p.final, word_diff(p.draft, p.final).edit_ratio)
         for seq, p in enumerate(line.paragraph_pairs, start=1)],
    )  # fmt: skip
    return pair_id
