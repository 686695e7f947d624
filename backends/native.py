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

from backends.errors import (
    BackendError,
    MalformedStream,
    NotAModelServer,
    ServerTimeout,
    ServerUnreachable,
    error_from_response,
    plain_cause,
)
from backends.policy import check_backend
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
    ) -> None:
        """``http``: a long-lived client for callers that poll (the dashboard). Without one,
        each call opens its own short client; building one costs ~20 ms of CPU."""
        self.backend = backend
        self.policy = policy
        self.timeout = timeout
        self.http = http

    async def _get(self, path: str, *, accept_status: tuple[int, ...] = (200,)) -> httpx.Response:
        check_backend(self.backend, self.policy)
        name, url = self.backend.name, self.backend.url
        try:
            if self.http is not None:
                response = await self.http.get(url + path, timeout=self.timeout)
            else:
                async with httpx.AsyncClient(timeout=self.timeout, trust_env=False) as client:
                    response = await client.get(url + path)
        except httpx.ConnectError as exc:
            raise ServerUnreachable(
                f"Nothing is answering at {url} (backend '{name}'): {plain_cause(exc)}. Start the model server, "
                "or check the address in the config.",
                backend=name,
                url=url,
            ) from exc
        except httpx.TimeoutException as exc:
            raise ServerTimeout(
                f"Backend '{name}' at {url} did not answer {path} in time.", backend=name, url=url
            ) from exc
        except httpx.HTTPError as exc:
            raise BackendError(f"Backend '{name}' at {url}: {exc}", backend=name, url=url) from exc
        if response.status_code in accept_status:
            return response
        raise error_from_response(name, url, path, response)

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
        llama-server spells them anyway (see REFERENCE §3.6 on renaming).
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

    def _malformed(self, path: str, detail: str = "unexpected shape") -> MalformedStream:
        return MalformedStream(
            f"{self.backend.url}{path} answered with something chambers cannot read ({detail}).",
            backend=self.backend.name,
            url=self.backend.url,
        )

    async def tokenize(self, text: str) -> int:
        """How many tokens the server's own tokenizer makes of ``text`` (llama-server ``POST /tokenize``).

        The evidence context builder counts with it (passed in as a plain function), so a
        context fits the model's window by the model's own count rather than an estimate.
        """
        check_backend(self.backend, self.policy)
        name, url = self.backend.name, self.backend.url
        try:
            async with httpx.AsyncClient(timeout=self.timeout, trust_env=False) as client:
                response = await client.post(url + "/tokenize", json={"content": text})
        except httpx.HTTPError as exc:
            raise ServerUnreachable(
                f"Backend '{name}' at {url} could not count tokens: {plain_cause(exc)}.",
                backend=name,
                url=url,
            ) from exc
        if response.status_code != 200:
            raise error_from_response(name, url, "/tokenize", response)
        tokens = self._json(response, "/tokenize").get("tokens")
        if not isinstance(tokens, list):
            raise self._malformed("/tokenize")
        return len(tokens)


def _n_decoded(next_token: Any) -> int:
    """``next_token`` is an object in older builds and a list (one per sequence) in newer ones."""
    if isinstance(next_token, list):
        next_token = next_token[0] if next_token else {}
    return int(next_token.get("n_decoded", 0)) if isinstance(next_token, dict) else 0
