"""Native (non-OpenAI) calls: llama-server health/props/slots/metrics, Ollama version/tags/ps.

These feed the backend list and, later, the fleet dashboard. Each returns a
small typed result or raises the same typed errors as streaming calls, so a
caller shows one kind of message whichever endpoint failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from backends.endpoint import SAFE_TO_RESEND, CheckedAddress, Endpoint, open_async_client
from backends.errors import (
    HTTP_FAILURES,
    MalformedAnswer,
    NotAModelServer,
    error_from_response,
    transport_error,
)
from workspace.config import Backend, Policy

NATIVE_TIMEOUT = httpx.Timeout(5.0)


@dataclass(frozen=True)
class Health:
    ok: bool
    status: str  # "ok", "loading model", or the server's own words


@dataclass(frozen=True)
class Props:
    model: str | None
    n_ctx: int | None
    build: str | None
    total_slots: int | None
    endpoint_metrics: bool
    raw: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Slot:
    id: int
    n_ctx: int
    is_processing: bool
    n_decoded: int


@dataclass(frozen=True)
class OllamaModel:
    name: str
    size: int
    size_vram: int | None = None
    context_length: int | None = None


class NativeClient:
    """Short, non-streaming calls to one backend; the policy is checked first."""

    def __init__(
        self,
        backend: Backend,
        policy: Policy,
        *,
        timeout: httpx.Timeout = NATIVE_TIMEOUT,
        http: httpx.AsyncClient | None = None,
        checked: CheckedAddress | None = None,
    ) -> None:
        """``http``: a long-lived client (from ``backends.endpoint.async_client``) for callers that
        poll (the dashboard). Without one, each call opens its own short client. ``checked``: the
        policy's check to reuse for every call (a poll checks once); None checks before each call."""
        self.backend = backend
        self.policy = policy
        self.timeout = timeout
        self.http = http
        self.checked = checked

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
                f"'{self.backend.name}' points at a {self._kind_word()} port.",
                backend=self.backend.name,
                url=self.backend.url,
                status=response.status_code,
                server_message=None,
            ) from None

    def _kind_word(self) -> str:
        return "llama-server" if self.backend.kind == "llamacpp" else "Ollama"

    # --- llama-server -------------------------------------------------------

    async def health(self) -> Health:
        response = await self._get("/health", accept_status=(200, 503))
        data = self._json(response, "/health")
        if response.status_code == 200:
            return Health(ok=True, status=str(data.get("status", "ok")))
        message = (data.get("error") or {}).get("message", "unavailable")
        return Health(ok=False, status=str(message).lower())

    async def props(self) -> Props:
        data = self._json(await self._get("/props"), "/props")
        if not isinstance(data, dict):
            raise self._malformed("/props")
        settings = data.get("default_generation_settings") or {}
        model_path = data.get("model_path") or ""
        return Props(
            model=data.get("model_alias") or (model_path.rsplit("/", 1)[-1] or None),
            n_ctx=settings.get("n_ctx"),
            build=data.get("build_info"),
            total_slots=data.get("total_slots"),
            endpoint_metrics=bool(data.get("endpoint_metrics", False)),
            raw=data,
        )

    async def slots(self) -> list[Slot]:
        data = self._json(await self._get("/slots"), "/slots")
        if not isinstance(data, list):
            raise self._malformed("/slots")
        return [
            Slot(
                id=int(s.get("id", i)),
                n_ctx=int(s.get("n_ctx", 0)),
                is_processing=bool(s.get("is_processing", False)),
                n_decoded=_n_decoded(s.get("next_token")),
            )
            for i, s in enumerate(data)
        ]

    async def metrics(self) -> dict[str, float]:
        """``/metrics`` as {sample name: value}, parsed by prometheus-client.

        Counters appear under their ``_total`` sample names, which is how
        llama-server spells them anyway: prometheus-client renames a counter family without
        ``_total`` but always names its samples with it.
        """
        response = await self._get("/metrics")
        try:
            families = list(text_string_to_metric_families(response.text))
        except ValueError as exc:
            raise self._malformed("/metrics", str(exc)) from exc
        return {sample.name: sample.value for fam in families for sample in fam.samples}

    # --- Ollama -------------------------------------------------------------

    async def ollama_version(self) -> str:
        data = self._json(await self._get("/api/version"), "/api/version")
        return str(data.get("version", ""))

    async def ollama_tags(self) -> list[OllamaModel]:
        data = self._json(await self._get("/api/tags"), "/api/tags")
        return [
            OllamaModel(name=m.get("name", ""), size=int(m.get("size", 0))) for m in data.get("models", [])
        ]

    async def ollama_ps(self) -> list[OllamaModel]:
        data = self._json(await self._get("/api/ps"), "/api/ps")
        return [
            OllamaModel(
                name=m.get("name", ""),
                size=int(m.get("size", 0)),
                size_vram=m.get("size_vram"),
                context_length=m.get("context_length"),
            )
            for m in data.get("models", [])
        ]

    def _malformed(self, path: str, detail: str = "unexpected shape") -> MalformedAnswer:
        return MalformedAnswer(
            f"{self.backend.url}{path} answered with something chambers cannot read ({detail}).",
            backend=self.backend.name,
            url=self.backend.url,
        )

    async def tokenize(self, text: str) -> int:
        """How many tokens the server's own tokenizer makes of ``text`` (llama-server ``POST /tokenize``).

        The evidence context builder counts with it (passed in as a plain function), so a
        context fits the model's window by the model's own count rather than an estimate.
        """
        # It changes nothing on the server, so a dropped pooled connection may be tried again.
        response = await self._request(
            "POST", "/tokenize", json={"content": text}, extensions={SAFE_TO_RESEND: True}
        )
        tokens = self._json(response, "/tokenize").get("tokens")
        if not isinstance(tokens, list):
            raise self._malformed("/tokenize")
        return len(tokens)


def _n_decoded(next_token: Any) -> int:
    """``next_token`` is an object in older builds and a list (one per sequence) in newer ones."""
    if isinstance(next_token, list):
        next_token = next_token[0] if next_token else {}
    return int(next_token.get("n_decoded", 0)) if isinstance(next_token, dict) else 0
