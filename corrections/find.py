"""The pairs that hold some words: what the workstation's search (/) finds among his corrections.

Read through the store's batched pass over every pair and checked in Python, as the browser's
filters are: the newest matches are kept, so memory stays flat however many pairs there are.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path

from corrections.model import StoredPair
from corrections.store import iter_pairs


def pairs_holding(db_path: Path, words: Sequence[str], limit: int = 20) -> list[StoredPair]:
    """The newest pairs whose instructions, draft or final text hold each of ``words`` (lower case)."""
    if not words or not db_path.exists():
        return []
    kept: deque[StoredPair] = deque(maxlen=limit)
    for pair in iter_pairs(db_path):
        text = f"{pair.instructions}\n{pair.draft}\n{pair.final}".lower()
        if all(word in text for word in words):
            kept.append(pair)
    return list(reversed(kept))
