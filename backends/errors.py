"""Typed failures of a model call, each with a message the attorney can act on.

A failure during streaming keeps the text received so far in ``partial`` and
marks it incomplete, so a half-drafted paragraph is never lost because a
server died.
"""

from __future__ import annotations

from typing import Any

import httpx

from backends.answer_caps import AnswerRefused
from workspace.errors import ChambersError


class BackendError(ChambersError):
    title = "The model server failed"

    def __init__(self, message: str, *, backend: str, url: str, partial: str = "") -> None:
        super().__init__(message)
        self.backend = backend
        self.url = url
        self.partial = partial

    @property
    def incomplete(self) -> bool:
        """True when some text arrived before the failure (and is kept in ``partial``)."""
        return bool(self.partial)


class ServerUnreachable(BackendError):
    title = "Model server not reachable"


class ServerTimeout(BackendError):
    title = "Model server stopped answering"


class ServerHTTPError(BackendError):
    title = "The model server refused the request"

    def __init__(
        self,
        message: str,
        *,
        backend: str,
        url: str,
        status: int,
        server_message: str | None,
        error_type: str | None = None,
        partial: str = "",
    ) -> None:
        super().__init__(message, backend=backend, url=url, partial=partial)
        self.status = status
        self.server_message = server_message
        self.error_type = error_type


class ModelLoading(ServerHTTPError):
    title = "The model is still loading"


class NotAModelServer(ServerHTTPError):
    title = "That address is not a model server"


class MalformedStream(BackendError):
    """A chat answer (its event stream, or the JSON it was asked for) chambers cannot read."""

    title = "The model server sent something unreadable"


class MalformedAnswer(BackendError):
    """A status endpoint (``/props``, ``/slots``, ``/metrics``, ``/tokenize``) answered in a shape
    chambers cannot read: the server is not the llama-server or Ollama the config says it is."""

    title = "The model server sent something unreadable"


class StreamBroken(BackendError):
    title = "The model server stopped mid-answer"


class BadAddress(BackendError):
    title = "The server's address cannot be used"


class PolicyRefusal(ChambersError):
    title = "Refused: this would leave the office"


def transport_error(exc: Exception, *, backend: str, url: str, path: str = "") -> BackendError:
    """The one mapping from an httpx failure to the typed error the attorney reads.

    ``path`` names the endpoint that failed when it is not the main call (``/tokenize``).
    """
    name, what = backend, f" ({path})" if path else ""
    if isinstance(exc, AnswerRefused):  # over a cap: the message already names the endpoint and the cap
        return MalformedAnswer(f"Backend '{name}': {exc}", backend=name, url=url)
    if isinstance(exc, httpx.ConnectError):
        return ServerUnreachable(
            f"Nothing is answering at {url}{what} (backend '{name}'): {plain_cause(exc)}. Start the model "
            "server, or check the address in the config.",
            backend=name,
            url=url,
        )
    if isinstance(exc, httpx.TimeoutException):
        return ServerTimeout(
            f"Backend '{name}' at {url}{what} went silent for longer than the timeout "
            f"({type(exc).__name__}). The server may be overloaded or stuck; check it, then retry.",
            backend=name,
            url=url,
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return StreamBroken(
            f"Backend '{name}' at {url}{what} closed the connection mid-answer ({plain_cause(exc)}). "
            "The server may have crashed or restarted. The text so far is kept, marked incomplete.",
            backend=name,
            url=url,
        )
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol | httpx.LocalProtocolError):
        return BadAddress(
            f"The address of backend '{name}' cannot be used: {url!r}{what} is not a valid URL ({exc}). "
            "Fix url in the config; nothing was sent.",
            backend=name,
            url=url,
        )
    return BackendError(f"Backend '{name}' at {url}{what} failed: {plain_cause(exc)}", backend=name, url=url)


def plain_cause(exc: BaseException) -> str:
    """The plainest cause in the exception chain (anyio wraps the refusal in a generic error)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return "connection refused"
        seen = seen.__cause__ or seen.__context__
    return str(exc).strip() or type(exc).__name__


def error_from_response(name: str, url: str, path: str, response: httpx.Response) -> ServerHTTPError:
    """The typed error for an HTTP error status, carrying the server's own message.

    llama.cpp answers ``{"error": {"code", "message", "type"}}``, Ollama ``{"error": "..."}``;
    anything else (an HTML page, an empty body) means the address is not a model server.
    """
    status = response.status_code
    message, error_type = _server_error_fields(response)
    if status == 503 and message and "loading" in message.lower():
        return ModelLoading(
            f"Backend '{name}' at {url} is still loading its model (HTTP 503). Wait until it is "
            "ready, then retry.",
            backend=name,
            url=url,
            status=status,
            server_message=message,
            error_type=error_type,
        )
    if message is None:
        ctype = response.headers.get("content-type", "none")
        return NotAModelServer(
            f"{url}{path} answered HTTP {status} with '{ctype}', not a model server's error. Check "
            f"that backend '{name}' points at a llama-server or Ollama port.",
            backend=name,
            url=url,
            status=status,
            server_message=None,
        )
    return ServerHTTPError(
        f"Backend '{name}' at {url} refused the request (HTTP {status}): {message}",
        backend=name,
        url=url,
        status=status,
        server_message=message,
        error_type=error_type,
    )


def _server_error_fields(response: httpx.Response) -> tuple[str | None, str | None]:
    try:
        data: Any = response.json()
    except ValueError:
        return None, None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message", "")) or None, error.get("type")
    if isinstance(error, str):
        return error, None
    return None, None


# What an httpx call can raise for a server problem (InvalidURL is not an HTTPError).
HTTP_FAILURES = (httpx.HTTPError, httpx.InvalidURL)
