"""The one way a stage fails: a refusal naming the stage, the backend, its address and the cause.

Told to run locally, a step that cannot run locally says so
and stops; it never quietly calls anything else. The pipeline has no fallback
path at all, so this module only turns the backends room's typed errors into
the sentence the attorney reads, e.g. "Adversarial review cannot run locally:
backend 'reviewer' at 10.0.0.12:8083 refused the connection."
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from backends.errors import (
    BadAddress,
    MalformedAnswer,
    MalformedStream,
    ModelLoading,
    PolicyRefusal,
    ServerHTTPError,
    ServerTimeout,
    ServerUnreachable,
    StreamBroken,
)
from drafting.runs import Run
from workspace.config import Backend, NoBackendForRole
from workspace.errors import ChambersError


class StageRefused(ChambersError):
    """A stage could not run on its backend; the run stopped there and kept what it has."""

    title = "A step cannot run locally"

    def __init__(
        self, message: str, *, stage: str, backend: str | None, address: str | None, cause: str, run_id: int
    ) -> None:
        super().__init__(message)
        self.stage = stage
        self.backend = backend
        self.address = address
        self.cause = cause
        self.run_id = run_id


class PromptTooLong(StageRefused):
    """The server is up and counted the prompt: it is longer than the server's context. Rerouting or
    restarting the server would not help, so this is the attorney's input to change (exit 2, not 3)."""

    title = "The prompt is too long for the server's context"


_TOO_LONG = re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)")


def prompt_overflow(exc: BaseException) -> tuple[int, int] | None:
    """(prompt tokens, context tokens) when ``exc`` is llama-server refusing a prompt longer than its
    context, counted by its own tokenizer; None for any other error."""
    if not isinstance(exc, ServerHTTPError) or exc.status != 400:
        return None
    found = _TOO_LONG.search(exc.server_message or "")
    return (int(found[1]), int(found[2])) if found else None


def prompt_parts(run: Run, messages: list[dict[str, Any]]) -> dict[str, int]:
    """The characters of each part of a stage's prompt that the attorney can act on, and the rest."""
    sent = "\n".join(str(m.get("content", "")) for m in messages)
    parts = {
        "your instructions": len(run.instructions) if run.instructions and run.instructions in sent else 0,
        "the sources": sum(len(s.text) for s in run.sources if s.text and s.text in sent),
        "the draft": len(run.draft) if run.draft and run.draft in sent else 0,
    }
    parts["the task's own prompt"] = max(len(sent) - sum(parts.values()), 0)
    return {name: n for name, n in parts.items() if n}


def too_long(
    label: str, stage: str, run_id: int, backend: Backend, sizes: tuple[int, int], parts: dict[str, int]
) -> PromptTooLong:
    """The refusal for a prompt of ``sizes[0]`` tokens against a context of ``sizes[1]``; ``parts`` are
    the characters of each part of the prompt, whose shares estimate the tokens of each."""
    tokens, context = sizes
    over = tokens - context
    chars = sum(parts.values()) or 1
    largest = max(parts, key=lambda name: parts[name])
    shares = ", ".join(
        f"{name} ~{round(tokens * n / chars):,}" for name, n in sorted(parts.items(), key=lambda p: -p[1])
    )
    if largest == "the sources":
        fix = (
            f"Trim the sources to fit: draft again with `--max-context {max(context - over - 256, 256)}`, "
            "or give the server a larger context (-c)."
        )
    else:
        fix = f"Shorten {largest}, or give the server a larger context (-c), then draft again."
    message = (
        f"{label}: the prompt is {tokens:,} tokens, {over:,} more than the {context:,}-token context of "
        f"backend '{backend.name}' at {address_of(backend.url)} (counted by the server's own tokenizer; "
        f"the server is up, so another backend or a restart will not help). Its parts, in tokens: "
        f"{shares}. {fix} Run {run_id} keeps what it has."
    )
    return PromptTooLong(
        message,
        stage=stage,
        backend=backend.name,
        address=address_of(backend.url),
        cause="prompt too long",
        run_id=run_id,
    )


def address_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port}" if parts.port else (parts.hostname or url)


def cause_of(exc: BaseException) -> str:
    """The cause in the attorney's words, as the end of '...backend X at ADDRESS <cause>'."""
    if isinstance(exc, ServerUnreachable):
        return "refused the connection" if "connection refused" in str(exc) else "could not be reached"
    if isinstance(exc, ServerTimeout):
        return "stopped answering (timed out)"
    if isinstance(exc, ModelLoading):
        return "is still loading its model"
    if isinstance(exc, ServerHTTPError):
        said = f": {exc.server_message}" if exc.server_message else ""
        return f"refused the request (HTTP {exc.status}{said})"
    if isinstance(exc, StreamBroken):
        return "closed the connection before the answer was finished"
    if isinstance(exc, MalformedStream | MalformedAnswer):
        return "answered with something that is not the JSON it was asked for"
    if isinstance(exc, BadAddress):
        return f"has an address that cannot be used ({exc})"
    if isinstance(exc, PolicyRefusal):
        return f"is not allowed by the local-only policy ({exc})"
    return str(exc)


def refuse(
    label: str, stage: str, run_id: int, exc: BaseException, backend: Backend | None, role: str | None
) -> StageRefused:
    """The refusal for ``exc`` raised while ``stage`` ran on ``backend``."""
    next_step = (
        f" The run stopped here and kept what it has. Start that server and run `chambers runs resume "
        f"{run_id}`, or choose another backend for this stage yourself: `chambers runs resume {run_id} "
        f"--reroute {stage}=BACKEND --reason WHY`."
    )
    if isinstance(exc, NoBackendForRole) or backend is None:
        cause = f"no backend in the config has the role '{role}'"
        return StageRefused(
            f"{label} cannot run locally: {cause}.{next_step}",
            stage=stage,
            backend=None,
            address=None,
            cause=cause,
            run_id=run_id,
        )
    address = address_of(backend.url)
    cause = cause_of(exc)
    # Down, unreachable, refusing or not allowed: the step cannot run locally. A server that answered
    # but broke off or sent nonsense did run; that stage failed.
    down = (PolicyRefusal, BadAddress, ServerUnreachable, ServerTimeout, ServerHTTPError)
    verb = "cannot run locally" if isinstance(exc, down) else "failed"
    return StageRefused(
        f"{label} {verb}: backend '{backend.name}' at {address} {cause}.{next_step}",
        stage=stage,
        backend=backend.name,
        address=address,
        cause=cause,
        run_id=run_id,
    )
