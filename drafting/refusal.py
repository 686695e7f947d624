"""The one way a stage fails: a refusal naming the stage, the backend, its address and the cause.

Told to run locally, a step that cannot run locally says so
and stops; it never quietly calls anything else. The pipeline has no fallback
path at all, so this module only turns the backends room's typed errors into
the sentence the attorney reads, e.g. "Adversarial review cannot run locally:
backend 'reviewer' at 10.0.0.12:8083 refused the connection."
"""

from __future__ import annotations

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
            stage=stage, backend=None, address=None, cause=cause, run_id=run_id,
        )  # fmt: skip
    address = address_of(backend.url)
    cause = cause_of(exc)
    # Down, unreachable, refusing or not allowed: the step cannot run locally. A server that answered
    # but broke off or sent nonsense did run; that stage failed.
    down = (PolicyRefusal, BadAddress, ServerUnreachable, ServerTimeout, ServerHTTPError)
    verb = "cannot run locally" if isinstance(exc, down) else "failed"
    return StageRefused(
        f"{label} {verb}: backend '{backend.name}' at {address} {cause}.{next_step}",
        stage=stage, backend=backend.name, address=address, cause=cause, run_id=run_id,
    )  # fmt: skip
