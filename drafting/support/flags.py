"""The support check's findings as flags: warnings only, each labelled as what it is.

A support role's "does not address" or "contradicts" is a warning marked "model judgement"; the
locator's "the closest passage is elsewhere" is a warning marked "locator". Neither ever blocks:
the attorney reads the claim beside the passage and decides.
"""

from __future__ import annotations

from typing import Any, Literal

from drafting.flags import FlagView
from drafting.support.judge import MODEL_JUDGEMENT, WARN_LABELS


def support_flags(pairs: list[dict[str, Any]], draft_sha256: str = "") -> list[FlagView]:
    """A warning for each stored pair the model judged unsupported or the locator placed elsewhere."""
    out: list[FlagView] = []
    for pair in pairs:
        judgement = pair.get("judgement") or {}
        support = {**pair, "draft_sha256": draft_sha256}
        if judgement.get("label") in WARN_LABELS:
            message = f"{MODEL_JUDGEMENT}: {judgement['label']}; evidence: {judgement.get('span') or 'none'}"
            out.append(_flag(pair, "support", message, support))
        elif pair.get("warning"):
            out.append(_flag(pair, "locator", f"locator; {pair['warning']}", support))
    return out


def _flag(
    pair: dict[str, Any], kind: Literal["support", "locator"], message: str, support: dict[str, Any]
) -> FlagView:
    return FlagView(
        start=int(pair["cite_start"]),
        end=int(pair["cite_end"]),
        source="support",
        severity="warn",
        kind=kind,
        text=str(pair["cite"]),
        message=message,
        support=support,
    )
