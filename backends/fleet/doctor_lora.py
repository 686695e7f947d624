"""The doctor's look at each server's LoRA adapters: which it loaded, what a request that names none gets,
and whether each was trained on the model the server loads.

One server often answers for several backends (one per role); its adapters are listed once, under all of
them. The registry's side (what each adapter was trained on) comes from the caller, as ``TrainedOn``.
"""

from __future__ import annotations

from collections.abc import Mapping

from backends.adapters import adapter_class, adapter_for
from backends.endpoint import async_client
from backends.fleet.topology_lint import Finding
from backends.lora import LoadedAdapter
from backends.lora_base import TrainedOn, mismatch, served_model
from backends.server_facts import Props
from workspace.config import Backend, Policy
from workspace.errors import ChambersError


def _describe(loaded: list[LoadedAdapter]) -> str:
    return ", ".join(f"{a.name} ({a.path}, scale {a.scale:g} for requests that name none)" for a in loaded)


def server_findings(
    subject: str,
    loaded: list[LoadedAdapter],
    model_path: str | None,
    trained_on: Mapping[str, TrainedOn],
) -> list[Finding]:
    """What one server's adapters call for: the list, other clients' scale, and each one's base."""
    if not loaded:
        return []
    findings = [Finding("info", subject, f"loads the LoRA adapter(s) {_describe(loaded)}")]
    for a in loaded:
        if a.scale != 0:
            findings.append(
                Finding(
                    "warning",
                    subject,
                    (
                        f"requests not sent by chambers get adapter {a.name} at scale {a.scale:g}: llama-server applies "
                        "each loaded adapter at its start-up scale to a request that names none (chambers' requests "
                        f"name every adapter). Start it with --lora-scaled {a.path}:0 instead of --lora, as "
                        "`chambers serve` does, for them to get the base model"
                    ),
                )
            )
        trained = trained_on.get(a.name)
        why = mismatch(trained, served_model(model_path)) if trained is not None and model_path else None
        if why:
            findings.append(
                Finding("warning", subject, why + "; its drafts and scores are not the adapter's")
            )
    return findings


async def lora_findings(
    backends: list[Backend],
    policy: Policy,
    props: Mapping[str, Props | None],
    trained_on: Mapping[str, TrainedOn],
) -> tuple[list[Finding], dict[str, list[str] | None]]:
    """Findings for each reachable server of a kind that serves LoRA adapters, and per backend the paths
    of the adapters its server loaded (None where they could not be listed)."""
    by_url: dict[str, list[Backend]] = {}
    for backend in backends:
        if adapter_class(backend.kind).SERVES_LORA:
            by_url.setdefault(backend.url, []).append(backend)
    findings: list[Finding] = []
    paths: dict[str, list[str] | None] = {}
    async with async_client(5.0) as client:
        for url, sharing in by_url.items():
            first = sharing[0]
            try:
                server = adapter_for(first, policy, http=client)
                loaded: list[LoadedAdapter] | None = await server.loaded_adapters()
            except ChambersError:
                loaded = None  # the server's own check says why it cannot be asked
            for backend in sharing:
                paths[backend.name] = None if loaded is None else [a.path for a in loaded]
            if not loaded:
                continue
            names = ", ".join(b.name for b in sharing)
            subject = f"backend {names}" if len(sharing) == 1 else f"server {url} (backends {names})"
            answer = props.get(first.name)
            model_path = str(answer.raw.get("model_path") or "") if answer is not None else None
            findings += server_findings(subject, loaded, model_path or None, trained_on)
    return findings, paths
