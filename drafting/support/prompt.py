"""What the support role is asked, and the shape of its answer: the one place both are written.

Kept apart from the calls themselves so the corrections export can build a training row from
exactly the messages the role is sent without reaching for a model server.
"""

from __future__ import annotations

from typing import Any

LABELS = ("supports", "partly", "does not address", "contradicts")
SPAN_CHARS = 400
MISSING_CHARS = 300
SYSTEM = (
    "You check a legal brief's citations. Given a CLAIM from the brief and the PASSAGE of the cited source, "
    "say whether the passage supports the claim: supports, partly (say what is missing), does not address, "
    "or contradicts. Quote, word for word, the span of the passage you rely on. Answer only with the JSON asked for."
)


def schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "label": {"type": "string", "enum": list(LABELS)},
            "missing": {"type": "string", "maxLength": MISSING_CHARS},
            "span": {"type": "string", "maxLength": SPAN_CHARS},
        },
        "required": ["label", "missing", "span"],
    }


def messages(claim: str, passage: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"CLAIM:\n{claim}\n\nPASSAGE:\n{passage}"},
    ]
