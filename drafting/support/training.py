"""The attorney's marks on support judgements as training rows for the support role.

A mark says only that the role's answer was wrong, not what the right answer is, so each mark is
one undesirable example: the exact messages the role was sent for that pair, and the answer it
gave (its label and span as it answered them, before any discard for a span not in the passage).
The corrections export writes these rows beside the correction pairs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drafting.support.prompt import messages
from drafting.support.store import marks_of


@dataclass(frozen=True)
class MarkedAnswer:
    matter: str
    at: str
    note: str  # the attorney's
    cite: str
    pages: list[str]
    source: str
    sha256: str
    messages: list[dict[str, Any]]  # what the support role was sent
    answer: dict[str, str]  # what it answered: label, missing, span

    def answer_json(self) -> str:
        return json.dumps(self.answer, ensure_ascii=False)


def marked_answers(db_path: Path, matter: str | None = None) -> list[MarkedAnswer]:
    """Every marked judgement of ``matter`` (or of every matter), oldest first."""
    out = []
    for mark in marks_of(db_path, matter):
        judgement, pair = mark.judgement, mark.pair
        answer = {
            "label": str(judgement.get("answered") or judgement.get("label", "")),
            "missing": str(judgement.get("missing", "")),
            "span": str(judgement.get("answered_span") or judgement.get("span", "")),
        }
        out.append(
            MarkedAnswer(
                mark.matter,
                mark.at,
                mark.note,
                str(pair.get("cite", "")),
                [str(p) for p in pair.get("pages", [])],
                str(pair.get("source", "")),
                str(pair.get("sha256", "")),
                messages(str(pair.get("claim", "")), str(pair.get("passage", ""))),
                answer,
            )
        )
    return out
