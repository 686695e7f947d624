"""llama-server (llama.cpp): its native endpoints, its poll, and what its requests carry.

``/health``, ``/props`` (model, window, build; slow-changing, so a poll re-reads it only when
asked for a fresh read), ``/slots`` (busy or idle, tokens decoded) and ``/metrics`` (requests
processing and deferred, and the token counters). Decode and prefill speeds come from the counter
deltas between two polls, so the dashboard shows what the server did in the last interval, not its
lifetime average. Its LoRA adapters are chosen per request by the ids it gave them (backends.lora).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from backends.adapter_base import ANY_STATUS, Identity, ServerAdapter, optional
from backends.endpoint import SAFE_TO_RESEND, CheckedAddress
from backends.errors import BackendError, MalformedAnswer
from backends.local_build import shown_build
from backends.lora import (
    LORA_PATH,
    LoadedAdapter,
    complete_field,
    local_sha256,
    parse_loaded,
    request_field,
)
from backends.server_facts import Health, Props, ServerSample, Slot


class LlamaCppServer(ServerAdapter):
    KIND = "llamacpp"
    LABEL = "llama-server"
    BUILD_PATH = "/props"
    REPORTS_PROMPT_PROGRESS = True
    COUNTS_TOKENS = True
    REPORTS_SLOTS = True
    REPORTS_METRICS = True
    REPORTS_PROPS = True
    SERVES_LORA = True
    STARTED_BY_PROFILES = True
    PROCESS_NAMES = ("llama-server",)
    KEY_PATH = "/props"  # /health is public on every llama-server and says nothing about a key
    # llama-server closes the connection as soon as a streamed answer ends, though its headers offer
    # keep-alive; a pool that kept it would send the next call into that close ("Server disconnected
    # without sending a response"). So a chat request says it is the connection's last.
    STREAM_HEADERS = {"Accept": "text/event-stream", "Connection": "close"}

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._loaded_adapters: list[LoadedAdapter] | None = None  # read once per adapter
        self._props_sample: ServerSample | None = None
        self._counters: dict[str, float] | None = None
        self._decoded: tuple[float, dict[int, int]] | None = None  # (when, n_decoded per busy slot)

    # --- who it is ----------------------------------------------------------

    async def identity(self) -> Identity:
        props = await self.props()
        return Identity(props.model, props.n_ctx, props.build)

    @classmethod
    def build_from(cls, answer: Any) -> str | None:
        return (str(answer.get("build_info") or "") or None) if isinstance(answer, dict) else None

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

    async def busy_slots(self) -> int | None:
        """None where ``/slots`` is off (``--no-slots``) or fails."""
        try:
            return sum(1 for slot in await self.slots() if slot.is_processing)
        except BackendError:
            return None

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

    async def count_tokens(self, text: str) -> int:
        """``POST /tokenize``: the evidence context builder counts with it (passed in as a plain
        function), so a context fits the model's window by the model's own count, not an estimate."""
        # It changes nothing on the server, so a dropped pooled connection may be tried again.
        response = await self._request(
            "POST", "/tokenize", json={"content": text}, extensions={SAFE_TO_RESEND: True}
        )
        tokens = self._json(response, "/tokenize").get("tokens")
        if not isinstance(tokens, list):
            raise self._malformed("/tokenize")
        return len(tokens)

    # --- what its requests carry -------------------------------------------

    @classmethod
    def bench_fields(cls) -> dict[str, Any]:
        return {"cache_prompt": False, "ignore_eos": True}

    async def loaded_adapters(self) -> list[LoadedAdapter]:
        """The LoRA adapters the server loaded (``GET /lora-adapters``); [] from one without any.

        Raises:
            MalformedAnswer: the answer is not a list of adapters.
            PolicyRefusal, BackendError: as for ``identity``.
        """
        response = await self._get(LORA_PATH, accept_status=ANY_STATUS)
        if response.status_code != 200:
            return []
        try:
            return parse_loaded(response.json())
        except (ValueError, KeyError, TypeError) as exc:
            raise self._malformed(LORA_PATH, f"not a list of adapters: {exc}") from exc

    async def request_fields(
        self, body: Mapping[str, Any], *, http: httpx.AsyncClient, checked: CheckedAddress
    ) -> dict[str, Any]:
        """The request's ``lora`` list by the ids this server gave its adapters, read once per adapter:
        the request's own entries (``body["lora"]``, a replay setting its scale) or the configured
        adapters at their scales, and every other adapter the server loaded at 0. No field for a server
        without any.

        Raises:
            AdapterMissing: the server did not load a configured adapter: drafting on the bare base while
                the run's record names an adapter would be a false record.
        """
        own = body.get("lora")
        if self._loaded_adapters is None:
            try:
                loaded = await self.wired(http, checked).loaded_adapters()
            except MalformedAnswer:
                loaded = []  # not a list of adapters: every configured one is missing
            except BackendError:
                if not self.backend.lora:  # the call itself says why the server cannot be used
                    return {"lora": own} if isinstance(own, list) else {}
                raise
            self._loaded_adapters = loaded
        field = (
            complete_field(own, self._loaded_adapters)
            if isinstance(own, list)
            else request_field(self.backend, self._loaded_adapters)
        )
        return {} if field is None else {"lora": field}

    def lora_record(self) -> tuple[str | None, str | None]:
        if not self.backend.lora or self._loaded_adapters is None:
            return None, None
        names = [ref.name for ref in self.backend.lora]
        by_name = {a.name: a for a in self._loaded_adapters}
        hashes = [local_sha256(by_name[n].path) if n in by_name else None for n in names]
        return ",".join(names), ",".join(h or "?" for h in hashes) if any(hashes) else None

    # --- polling ------------------------------------------------------------

    async def sample(self, klass: str, *, fresh: bool) -> ServerSample:
        b = self.backend
        health = await self.health()
        if not health.ok:
            return ServerSample(b.name, b.kind, "loading", health.status, klass)
        if self._props_sample is None or fresh:
            props = await self.props()
            self._props_sample = ServerSample(
                b.name,
                b.kind,
                "ok",
                None,
                klass,
                props.model,
                props.n_ctx,
                shown_build(b.url, props.build),
                slots_total=props.total_slots,
            )
        sample = self._props_sample
        slots = await optional(self.slots())
        metrics = await optional(self.metrics())
        live_rate = None
        if slots is not None:
            sample = replace(
                sample,
                slots=tuple(slots),
                slots_total=len(slots),
                slots_busy=sum(s.is_processing for s in slots),
            )
            live_rate = self._live_decode_rate(slots)
        if metrics is not None:
            before, self._counters = self._counters, metrics
            sample = replace(
                sample,
                requests_processing=metrics.get("llamacpp:requests_processing"),
                requests_deferred=metrics.get("llamacpp:requests_deferred"),
                prompt_tok_s=_rate(
                    metrics, before, "llamacpp:prompt_tokens_total", "llamacpp:prompt_seconds_total"
                ),
                decode_tok_s=_rate(
                    metrics,
                    before,
                    "llamacpp:tokens_predicted_total",
                    "llamacpp:tokens_predicted_seconds_total",
                ),
                decode_avg_tok_s=metrics.get("llamacpp:predicted_tokens_seconds") or None,
            )
        if live_rate is not None:  # mid-answer: the counters only move when a request ends
            sample = replace(sample, decode_tok_s=live_rate)
        return sample

    def forget(self) -> None:
        super().forget()
        self._props_sample, self._counters = None, None

    def _live_decode_rate(self, slots: list[Slot]) -> float | None:
        """Tokens/s decoded by the busy slots since the last poll (``n_decoded`` grows as they answer)."""
        now = time.monotonic()
        busy = {s.id: s.n_decoded for s in slots if s.is_processing}
        before, self._decoded = self._decoded, (now, busy)
        if before is None or not busy:
            return None
        then, counts = before
        gained = sum(n - counts[i] for i, n in busy.items() if i in counts and n > counts[i])
        return gained / (now - then) if gained > 0 and now > then else None


def _rate(now: dict[str, float], before: dict[str, float] | None, tokens: str, seconds: str) -> float | None:
    if before is None or tokens not in now or seconds not in now:
        return None
    dt = now[seconds] - before.get(seconds, 0.0)
    dn = now[tokens] - before.get(tokens, 0.0)
    return dn / dt if dt > 0 and dn > 0 else None


def _n_decoded(next_token: Any) -> int:
    """``next_token`` is an object in older builds and a list (one per sequence) in newer ones."""
    if isinstance(next_token, list):
        next_token = next_token[0] if next_token else {}
    return int(next_token.get("n_decoded", 0)) if isinstance(next_token, dict) else 0
