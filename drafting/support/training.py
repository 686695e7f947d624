"""The attorney's marks on support judgements as training rows for the support role.

Each mark becomes one row: the exact messages the role is sent for that pair, the answer it gave
(as "rejected": the attorney said it was wrong) and his note. Rows are JSON lines, written to a
temporary file and renamed, the same shape as the corrections export's chat rows plus "rejected".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from drafting.support.judge import messages
from drafting.support.store import marks_of
from workspace.paths import write_atomically


def training_rows(db_path: Path, matter: str) -> list[dict[str, Any]]:
    rows = []
    for mark in marks_of(db_path, matter):
        judgement = mark.judgement
        answer = {
            "label": judgement.get("answered") or judgement.get("label", ""),
            "missing": judgement.get("missing", ""),
            "span": judgement.get("answered_span") or judgement.get("span", ""),
        }
        rows.append(
            {
                "messages": messages(str(mark.pair.get("claim", "")), str(mark.pair.get("passage", ""))),
                "rejected": json.dumps(answer, ensure_ascii=False),
                "note": mark.note,
                "cite": mark.pair.get("cite", ""),
                "at": mark.at,
            }
        )
    return rows


def export_marks(db_path: Path, matter: str, out: Path) -> int:
    """Write the matter's marked judgements to ``out`` as JSON lines; the number of rows."""
    rows = training_rows(db_path, matter)
    write_atomically(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8"))
    return len(rows)
