"""What the support role is asked, and the shape of its answer: the one place both are written.

Kept apart from the calls themselves so the corrections export can build a training row from
exactly the messages the role is sent without reaching for a model server.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, create_model

from drafting.answers import bounded_text, json_schema

Label = Literal["supports", "partly", "does not address", "contradicts"]
LABELS: tuple[Label, ...] = get_args(Label)
SPAN_CHARS = 400
MISSING_CHARS = 300
SYSTEM = (
    "You check a legal brief's citations. Given a CLAIM from the brief and the PASSAGE of the cited source, "
    "say whether the passage supports the claim: supports, partly (say what is missing), does not address, "
    "or contradicts. Quote, word for word, the span of the passage you rely on. Answer only with the JSON asked for."
)


class SupportAnswer(BaseModel):
    """What the support model answers: its label, what the passage lacks (for "partly"), and its evidence."""

    label: Label
    missing: str
    span: str  # quoted from the passage, checked by the judge


# The schema sent bounds the strings, so every answer ends; the answer is checked against its shape.
BOUNDED = create_model(
    "SupportAnswer",
    __base__=SupportAnswer,
    missing=(bounded_text(MISSING_CHARS), ...),
    span=(bounded_text(SPAN_CHARS), ...),
)


def schema() -> dict[str, Any]:
    return json_schema(BOUNDED)


def messages(claim: str, passage: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"CLAIM:\n{claim}\n\nPASSAGE:\n{passage}"},
    ]
