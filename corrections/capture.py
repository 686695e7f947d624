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
from dataclasses import dataclass
from pathlib import Path

from corrections.errors import CorrectionsError, PoisonedContext
from corrections.model import CorrectionInput, SourceRef
from corrections.redline import Redline, redline
from corrections.store import add_pair
from evidence.index.store import OwnOutput, own_outputs


@dataclass(frozen=True)
class CaptureResult:
    pair_id: int
    stored: bool  # False: an identical pair was already stored, and pair_id is that one
    redline: Redline


def pair_sha256(item: CorrectionInput) -> str:
    """The identity of a pair: what the model was given, what it wrote, what he made of it, and which model."""
    canonical = json.dumps(
        [
            item.task_type,
            item.instructions,
            [m.as_chat() for m in item.messages],
            item.draft,
            item.final,
            item.model,
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def check_primary(db_path: Path, item: CorrectionInput) -> None:
    """Raise PoisonedContext for the first chunk that is not a primary source."""
    written = own_outputs(db_path, (s.sha256 for m in item.messages for s in m.sources if s.primary))
    for index, message in enumerate(item.messages, start=1):
        for source in message.sources:
            why = _why_not_primary(source, written.get(source.sha256))
            if why:
                raise PoisonedContext(
                    f"Message {index} ({message.role}) carried [{source.label}] {source.path} page "
                    f"{source.page_no}, which {why}. A model must never learn from its own text as if it "
                    "were the client's evidence. Re-run the draft with primary sources only (the context "
                    "builder leaves such pages out), then accept it again."
                )


def _why_not_primary(source: SourceRef, written: OwnOutput | None) -> str | None:
    if not source.primary:
        return "is marked as not primary"
    if written is not None:
        return f"is a {written.kind} chambers wrote on {written.created_at[:10]} (registered output)"
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
    check_primary(db_path, item)
    pair_id, stored = add_pair(db_path, item, digest, line)
    return CaptureResult(pair_id, stored, line)
