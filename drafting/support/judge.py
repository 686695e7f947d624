"""The support role's judgement of each (claim, passage) pair, with its evidence checked.

The model answers one of four labels and quotes the span of the passage it relies on. The span is
checked here, deterministically: it must be a verbatim substring of the passage, or the answer is
discarded and shown as "no evidence given", so the model cannot invent evidence. A judgement is
the model's, labelled so everywhere; "does not address" and "contradicts" are warnings, never
blocks. The support role is served by the backend that declares it (``roles = ["reviewer",
"support"]`` shares the reviewer's), by the reviewer's where none does, and pairs go to it in
parallel, as many at once as the server has slots.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import ValidationError

from backends.adapters import adapter_for
from backends.chat import ChatClient, ChatRequest
from backends.errors import BackendError
from drafting.support.prompt import SupportAnswer, messages, schema
from workspace.audit import AuditLog
from workspace.config import Backend, Config

WARN_LABELS = ("does not address", "contradicts")
NO_EVIDENCE = "no evidence given"
MODEL_JUDGEMENT = "model judgement"
SUPPORT_ROLE = "support"
SHARED_ROLE = "reviewer"  # judges support where no backend declares the support role


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


def support_backend(config: Config) -> Backend:
    """The backend that declares the support role; where none does, the reviewer's."""
    for backend in config.backends:
        if SUPPORT_ROLE in backend.roles:
            return backend
    return config.backend_for_role(SHARED_ROLE)


async def server_slots(backend: Backend, config: Config) -> int:
    """How many requests the server decodes at once (/props total_slots); 1 where it does not say."""
    server = adapter_for(backend, config.policy)
    if not server.REPORTS_PROPS:
        return 1
    try:
        props = await server.props()
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
                        answer = await client.complete_json(request, schema(), role=SUPPORT_ROLE)
                        out[index] = checked(answer, passage)
                    except BackendError as exc:
                        out[index] = Judgement(NO_EVIDENCE, error=exc.message)
            done += 1
            if on_done is not None:
                on_done(done, len(pairs))

        await asyncio.gather(*(one(i, c, p) for i, (c, p) in enumerate(pairs)))
    return [j if j is not None else Judgement(NO_EVIDENCE) for j in out]
