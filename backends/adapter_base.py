"""The interface every kind of model server implements, so callers ask capabilities instead of kinds.

The shape is harlequin's adapter: an abstract class whose class-level flags say what a server
can do, and whose methods document what they return and raise. Every server chambers talks to
speaks OpenAI-compatible chat (backends.chat streams it for any kind); what differs is how each
says who it is, what else it offers, and what its requests carry. A kind is one subclass with a
``KIND``: defining it registers it (``KNOWN``), and every caller reaches it through
``backends.adapters.adapter_for``. The defaults here are what a plain OpenAI-compatible server
offers, so a new kind overrides only what its server does differently.

All of an adapter's HTTP goes through the endpoint layer and its policy: ``_request`` checks the
backend's address (or reuses the check in ``checked``) and sends to that address only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

import httpx

from backends.endpoint import CheckedAddress, Endpoint, open_async_client
from backends.errors import (
    HTTP_FAILURES,
    MalformedAnswer,
    NotAModelServer,
    ServerTimeout,
    ServerUnreachable,
    error_from_response,
    transport_error,
)
from backends.lora import AdapterMissing, LoadedAdapter
from backends.server_facts import Props, ServerSample
from workspace.config import Backend, Policy
from workspace.errors import ChambersError

T = TypeVar("T")
NATIVE_TIMEOUT = httpx.Timeout(5.0)
MODELS_PATH = "/v1/models"
ANY_STATUS = tuple(range(100, 600))


@dataclass(frozen=True)
class Identity:
    """The model a server serves, its context window and its build (None where it does not say)."""

    model: str | None
    n_ctx: int | None
    build: str | None


KNOWN: dict[str, type[ServerAdapter]] = {}  # kind -> adapter class, filled as each kind is defined


class ServerAdapter:
    """What chambers needs from one kind of model server.

    Args:
        backend: the backend from the config.
        policy: the local-only policy (checked by the endpoint layer on every call).
        http: a long-lived client from ``backends.endpoint.async_client``, for callers that poll or
            stream; None opens a short client per call.
        checked: the policy's check to reuse for every call; None checks before each call.
        timeout: for each of the adapter's own (short, non-streaming) calls.

    ``http`` and ``checked`` are plain attributes: a poller that checks once per poll sets ``checked``
    before the calls of that poll; a caller with calls in flight at once uses ``wired`` instead.
    """

    KIND: ClassVar[str]  # the config's ``kind``
    LABEL: ClassVar[str]  # how messages name this kind of server
    BUILD_PATH: ClassVar[str | None] = (
        None  # the GET endpoint that says which build answers (the audit trail)
    )
    # Capabilities.
    REPORTS_PROMPT_PROGRESS: ClassVar[bool] = False  # streams progress while reading a long prompt
    COUNTS_TOKENS: ClassVar[bool] = False  # its own tokenizer over HTTP (``count_tokens``)
    REPORTS_SLOTS: ClassVar[bool] = False  # per-slot state (``busy_slots``)
    REPORTS_METRICS: ClassVar[bool] = False  # Prometheus counters
    REPORTS_PROPS: ClassVar[bool] = False  # how it was launched (``props``)
    SERVES_LORA: ClassVar[bool] = False  # LoRA adapters chosen per request (``request_fields``)
    STARTED_BY_PROFILES: ClassVar[bool] = False  # ``[[profiles]]`` launch it (backends.fleet.profiles)
    KEY_PATH: ClassVar[str | None] = None  # a path that needs the API key, where the server takes one
    STREAM_HEADERS: ClassVar[Mapping[str, str]] = {"Accept": "text/event-stream"}
    # How its processes are named on a GPU (as the first 15 characters of ``comm``, which the kernel
    # cuts there), for the doctor to find servers running outside their board.
    PROCESS_NAMES: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "KIND" in cls.__dict__:
            KNOWN[cls.KIND] = cls

    def __init__(
        self,
        backend: Backend,
        policy: Policy,
        *,
        http: httpx.AsyncClient | None = None,
        checked: CheckedAddress | None = None,
        timeout: httpx.Timeout = NATIVE_TIMEOUT,
    ) -> None:
        self.backend = backend
        self.policy = policy
        self.http = http
        self.checked = checked
        self.timeout = timeout
        self._identity: Identity | None = None  # the last fresh poll's answer

    # --- who it is ----------------------------------------------------------

    async def identity(self) -> Identity:
        """The model it serves, its context window and its build.

        The default reads the OpenAI-compatible ``/v1/models``: the configured model (else the first
        listed), and its window where the entry says (``max_model_len``, as vLLM writes it).

        Returns:
            Identity; fields the server does not report are None.

        Raises:
            PolicyRefusal: the address may not be used (nothing is sent).
            BackendError: any subclass, for a server that is down, refuses or answers nonsense.
        """
        data = self._json(await self._get(MODELS_PATH), MODELS_PATH)
        listed = data.get("data") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            raise self._malformed(MODELS_PATH)
        entries = [m for m in listed if isinstance(m, dict)]
        wanted = next((m for m in entries if m.get("id") == self.backend.model), None)
        entry = wanted or (entries[0] if entries else {})
        n_ctx = entry.get("max_model_len")
        return Identity(
            self.backend.model or entry.get("id"), n_ctx if isinstance(n_ctx, int) else None, None
        )

    @classmethod
    def build_from(cls, answer: Any) -> str | None:
        """The build named in the JSON answer of ``BUILD_PATH``, or None if it names none."""
        return None

    async def props(self) -> Props:
        """How the server was launched (model file, window, slots, sampling, build).

        Raises:
            NotImplementedError: the server does not say (``REPORTS_PROPS`` is False).
            PolicyRefusal, BackendError: as for ``identity``.
        """
        raise NotImplementedError(f"{self.LABEL} does not say how it was launched")

    async def count_tokens(self, text: str) -> int:
        """How many tokens the server's own tokenizer makes of ``text``.

        Raises:
            NotImplementedError: the server cannot count (``COUNTS_TOKENS`` is False).
            PolicyRefusal, BackendError: as for ``identity``.
        """
        raise NotImplementedError(f"{self.LABEL} cannot count tokens over HTTP")

    async def busy_slots(self) -> int | None:
        """How many requests the server is decoding now; None where it cannot say."""
        return None

    # --- what its requests carry -------------------------------------------

    @classmethod
    def chat_fields(cls, *, return_progress: bool) -> dict[str, Any]:
        """Fields of a chat request that only this kind understands."""
        return {"return_progress": True} if return_progress and cls.REPORTS_PROMPT_PROGRESS else {}

    @classmethod
    def bench_fields(cls) -> dict[str, Any]:
        """Fields that make a benchmark call read its whole prompt afresh and write all its tokens."""
        return {}

    async def request_fields(
        self, body: Mapping[str, Any], *, http: httpx.AsyncClient, checked: CheckedAddress
    ) -> dict[str, Any]:
        """Fields a chat request gets after asking the server, replacing the body's own; ``body`` is the
        request as built so far, ``http`` and ``checked`` the call's client and checked address.

        Raises:
            BackendError: the server cannot serve the request as the config describes it (the
                default: the backend names LoRA adapters, which this kind does not serve).
        """
        if self.backend.lora:  # the config refuses this; a backend built in code may not have been read
            raise AdapterMissing(
                f"Backend '{self.backend.name}' names LoRA adapters, but {self.LABEL} serves none. Remove "
                "its `lora`, or give the role a backend whose kind serves adapters.",
                backend=self.backend.name,
                url=self.backend.url,
            )
        return {}

    async def loaded_adapters(self) -> list[LoadedAdapter]:
        """The LoRA adapters the server loaded; [] from one that serves none (``SERVES_LORA`` is False).

        Raises:
            MalformedAnswer: the server's list cannot be read.
            PolicyRefusal, BackendError: as for ``identity``.
        """
        return []

    def lora_record(self) -> tuple[str | None, str | None]:
        """(names, sha256s) of the LoRA adapters the requests carried, for a run's record."""
        return None, None

    def wired(self, http: httpx.AsyncClient | None, checked: CheckedAddress | None) -> Self:
        """A new adapter of this kind whose calls go over ``http`` to ``checked`` (one call's wiring),
        leaving this one's own wiring and what it keeps untouched."""
        return type(self)(self.backend, self.policy, http=http, checked=checked, timeout=self.timeout)

    # --- polling ------------------------------------------------------------

    async def sample(self, klass: str, *, fresh: bool) -> ServerSample:
        """One poll: the server's state now. ``fresh``: read again what changes slowly (its model).

        The default asks ``identity`` on a fresh poll and reports the server as up.

        Raises:
            ModelLoading, BackendError: the poller turns them into the sample's state.
        """
        b = self.backend
        if fresh or self._identity is None:
            self._identity = await self.identity()
        who = self._identity
        return ServerSample(b.name, b.kind, "ok", None, klass, who.model, who.n_ctx, who.build)

    def forget(self) -> None:
        """After an outage: drop what the last polls kept, so nothing is carried across it."""
        self._identity = None

    # --- the transport ------------------------------------------------------

    async def _request(
        self, method: str, path: str, *, accept_status: tuple[int, ...] = (200,), **kw: Any
    ) -> httpx.Response:
        checked = self.checked or await Endpoint.for_backend(self.backend, self.policy).check_async()
        name, url = self.backend.name, self.backend.url
        kw["extensions"] = {**checked.extensions(), **kw.get("extensions", {})}
        try:
            if self.http is not None:
                response = await self.http.request(method, url + path, timeout=self.timeout, **kw)
            else:
                async with await open_async_client(self.timeout) as client:
                    response = await client.request(method, url + path, **kw)
        except HTTP_FAILURES as exc:
            raise transport_error(exc, backend=name, url=url, path=path) from exc
        if response.status_code in accept_status:
            return response
        raise error_from_response(name, url, path, response)

    async def _get(self, path: str, *, accept_status: tuple[int, ...] = (200,)) -> httpx.Response:
        return await self._request("GET", path, accept_status=accept_status)

    def _json(self, response: httpx.Response, path: str) -> Any:
        try:
            return response.json()
        except ValueError:
            raise NotAModelServer(
                f"{self.backend.url}{path} did not answer with JSON. Check that backend "
                f"'{self.backend.name}' points at a {self.LABEL} port.",
                backend=self.backend.name,
                url=self.backend.url,
                status=response.status_code,
                server_message=None,
            ) from None

    def _malformed(self, path: str, detail: str = "unexpected shape") -> MalformedAnswer:
        return MalformedAnswer(
            f"{self.backend.url}{path} answered with something chambers cannot read ({detail}).",
            backend=self.backend.name,
            url=self.backend.url,
        )


async def optional(call: Awaitable[T]) -> T | None:
    """A call a server may have switched off (llama-server's /slots, /metrics): None when it answers
    with an error; a server that is down or silent still fails the poll."""
    try:
        return await call
    except (ServerUnreachable, ServerTimeout):
        raise
    except ChambersError:
        return None
