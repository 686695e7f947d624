"""The support role's judgement of each (claim, passage) pair, with its evidence checked.

The model answers one of four labels and quotes the span of the passage it relies on. The span is
checked here, deterministically: it must be a verbatim substring of the passage, or the answer is
discarded and shown as "no evidence given", so the model cannot invent evidence. A judgement is
the model's, labelled so everywhere; "does not address" and "contradicts" are warnings, never
blocks. The support role shares the reviewer's backend (the config knows no role of its own for
it), and pairs go to it in parallel, as many at once as the server has slots.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ValidationError, create_model

from backends.chat import ChatClient, ChatRequest
from backends.errors import BackendError
from backends.native import NativeClient
from drafting.answers import bounded_text, json_schema
from workspace.audit import AuditLog
from workspace.config import Backend, Config

Label = Literal["supports", "partly", "does not address", "contradicts"]
LABELS: tuple[Label, ...] = get_args(Label)
WARN_LABELS = ("does not address", "contradicts")
NO_EVIDENCE = "no evidence given"
MODEL_JUDGEMENT = "model judgement"
SPAN_CHARS = 400
MISSING_CHARS = 300
SHARED_ROLE = "reviewer"
SYSTEM = (
    "You check a legal brief's citations. Given a CLAIM from the brief and the PASSAGE of the cited source, "
    "say whether the passage supports the claim: supports, partly (say what is missing), does not address, "
    "or contradicts. Quote, word for word, the span of the passage you rely on. Answer only with the JSON asked for."
)


class SupportAnswer(BaseModel):
    """What the support model answers: its label, what the passage lacks (for "partly"), and its evidence."""

    label: Label
    missing: str
    span: str  # quoted from the passage, checked here


# The schema sent bounds the strings, so every answer ends; the answer is checked against its shape.
BOUNDED = create_model(
    "SupportAnswer",
    __base__=SupportAnswer,
    missing=(bounded_text(MISSING_CHARS), ...),
    span=(bounded_text(SPAN_CHARS), ...),
)


def schema() -> dict[str, Any]:
    return json_schema(BOUNDED)


@dataclass(frozen=True)
class Judgement:
    label: str  # one of LABELS, or NO_EVIDENCE where the answer was discarded
    missing: str = ""
    span: str = ""
    span_start: int = -1  # in the passage; -1 where there is no span
    answered: str = ""  # the model's label, kept even where the answer was discarded
    answered_span: str = ""
    error: str = ""  # the backend's error, where the call failed
    source: str = MODEL_JUDGEMENT

    @property
    def warns(self) -> bool:
        return self.label in WARN_LABELS

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def checked(answer: Any, passage: str) -> Judgement:
    """The model's answer held to its evidence: a span not found verbatim in ``passage`` discards it."""
    try:
        said = SupportAnswer.model_validate(answer)
    except ValidationError:  # not the schema's answer: nothing of it is evidence
        return Judgement(NO_EVIDENCE, answered=str(answer)[:200])
    label, span = said.label, said.span
    missing = said.missing.strip() if label == "partly" else ""
    at = passage.find(span) if span.strip() else -1
    if at < 0:
        return Judgement(NO_EVIDENCE, answered=label, answered_span=span)
    return Judgement(label, missing, span, at, answered=label, answered_span=span)


def messages(claim: str, passage: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"CLAIM:\n{claim}\n\nPASSAGE:\n{passage}"},
    ]


def support_backend(config: Config) -> Backend:
    return config.backend_for_role(SHARED_ROLE)


async def server_slots(backend: Backend, config: Config) -> int:
    """How many requests the server decodes at once (/props total_slots); 1 where it does not say."""
    try:
        props = await NativeClient(backend, config.policy).props()
    except BackendError:
        return 1
    return max(1, int(props.total_slots or 1))


async def judge_pairs(
    pairs: list[tuple[str, str]],
    backend: Backend,
    config: Config,
    *,
    slots: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
    audit: AuditLog | None = None,
) -> list[Judgement]:
    """A judgement for each (claim, passage), as many in flight as the backend's slots."""
    width = slots or await server_slots(backend, config)
    gate = asyncio.Semaphore(width)
    done = 0
    out: list[Judgement | None] = [None] * len(pairs)
    async with ChatClient(backend, config.policy, audit) as client:

        async def one(index: int, claim: str, passage: str) -> None:
            nonlocal done
            async with gate:
                if not passage.strip():
                    out[index] = Judgement(NO_EVIDENCE, error="no passage to judge")
                else:
                    try:
                        request = ChatRequest(messages(claim, passage), schema_name="support")
                        answer = await client.complete_json(request, schema(), role="support")
                        out[index] = checked(answer, passage)
                    except BackendError as exc:
                        out[index] = Judgement(NO_EVIDENCE, error=exc.message)
            done += 1
            if on_done is not None:
                on_done(done, len(pairs))

        await asyncio.gather(*(one(i, c, p) for i, (c, p) in enumerate(pairs)))
    return [j if j is not None else Judgement(NO_EVIDENCE) for j in out]
