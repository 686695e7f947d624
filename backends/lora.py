"""LoRA adapters on a llama-server: which ones it loaded, and the per-request ``lora`` field.

A backend's config names adapters (``lora = [{ name = "demand-v3", scale = 1.0 }]``). llama-server knows
them by position (``id``) in the order of its ``--lora`` flags, and lists them with their file paths at
``GET /lora-adapters``; an adapter's name is its file's stem (``demand-v3.gguf``), which is how chambers
writes them. Each request carries its own ``"lora": [{"id": 0, "scale": 1.0}]``: the global
``POST /lora-adapters`` would change the scale of requests already in flight for every role sharing the
server.

A request that names no adapter runs every loaded adapter at the server's own scale, the one
``GET /lora-adapters`` reports: 1 for ``--lora FILE``, even with ``--lora-init-without-apply``, which only
keeps the adapter off the warm-up. So every request chambers sends to a server with adapters lists each of
them, at 0 for a role that does not use it; and ``chambers serve`` loads them with ``--lora-scaled FILE:0``,
so that requests from other clients get the base model too.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import httpx

from backends.errors import HTTP_FAILURES, BackendError
from workspace.config import Backend, Policy
from workspace.digest import file_sha256
from workspace.errors import ChambersError

LORA_PATH = "/lora-adapters"


class AdapterMissing(BackendError):
    title = "An adapter named in the config is not loaded on its server"


@dataclass(frozen=True)
class LoadedAdapter:
    id: int
    name: str  # the file's stem
    path: str
    scale: float


def launch_flags(files: list[str]) -> list[str]:
    """The llama-server flags that load ``files`` at scale 0, for requests to switch on one by one.

    ``--lora-scaled`` splits its value at ``,`` and ``:``; a path holding either is loaded with ``--lora``
    (at the server's scale 1 for requests that name no adapter, which ``doctor`` then reports)."""
    flags: list[str] = []
    for file in files:
        flags += ["--lora", file] if ("," in file or ":" in file) else ["--lora-scaled", f"{file}:0"]
    return [*flags, "--lora-init-without-apply"] if flags else []


_FAILED_LOAD = re.compile(r"failed to load lora adapter '([^']+)'")
_FAILED_APPLY = re.compile(r"failed to apply lora adapter: (.+)")


def refused_file(server_log: str) -> str | None:
    """The adapter file llama-server's log says it refused at start (None if it refused none)."""
    files = _FAILED_LOAD.findall(server_log)
    return files[0] if files else None


def start_problem(server_log: str) -> str | None:
    """What llama-server's log says about an adapter it refused at start, in words that name the file."""
    files = _FAILED_LOAD.findall(server_log)
    if not files:
        return None
    reasons = _FAILED_APPLY.findall(server_log)
    why = f" ({reasons[0].strip()})" if reasons else ""
    return (
        f"llama-server refused the LoRA adapter {files[0]}{why}: it was trained on another base model than "
        "the one this server loads. Start the server with the base the adapter was trained on "
        "(`chambers adapters show NAME` names it and its sha256), or train an adapter on this base. "
    )


@functools.lru_cache(maxsize=64)
def _sha256_of(path: str, size: int, mtime_ns: int) -> str:
    return file_sha256(path)


def local_sha256(path: str) -> str | None:
    """The sha256 of the adapter file a server reported, when that file is on this machine (the server
    is local, or the path is shared); None otherwise. Cached per file version."""
    try:
        stat = os.stat(path)
        return _sha256_of(path, stat.st_size, stat.st_mtime_ns)
    except OSError:
        return None


def parse_loaded(data: Any) -> list[LoadedAdapter]:
    if not isinstance(data, list):
        return []
    return [
        LoadedAdapter(
            int(item["id"]),
            _stem(str(item.get("path", ""))),
            str(item.get("path", "")),
            float(item.get("scale", 0.0)),
        )
        for item in data
        if isinstance(item, dict) and "id" in item
    ]


def _stem(path: str) -> str:
    name = PurePath(path.replace("\\", "/")).name
    return name[: -len(".gguf")] if name.lower().endswith(".gguf") else name


async def fetch_loaded(
    client: httpx.AsyncClient, backend: Backend, extensions: dict[str, Any] | None = None
) -> list[LoadedAdapter]:
    """The adapters ``backend`` loaded; an empty list from a server that has none or no such endpoint.

    ``extensions`` pins the request to the address the policy checked (as every other call does)."""
    response = await client.get(backend.url + LORA_PATH, timeout=5.0, extensions=extensions or {})
    if response.status_code != 200:
        return []
    return parse_loaded(response.json())


def missing(backend: Backend, loaded: list[LoadedAdapter]) -> list[str]:
    names = {a.name for a in loaded}
    return [ref.name for ref in backend.lora if ref.name not in names]


def missing_message(backend: Backend, names: list[str], loaded: list[LoadedAdapter]) -> str:
    have = ", ".join(a.name for a in loaded) or "none"
    return (
        f"Backend '{backend.name}' at {backend.url} has not loaded the adapter(s) {', '.join(names)} that "
        f"the config names for it (it has: {have}). Restart that llama-server with "
        + " ".join(f"--lora-scaled {n}.gguf:0" for n in names)
        + " --lora-init-without-apply (`chambers adapters show NAME` prints the line), or remove them "
        "from the backend's `lora` in the config."
    )


def request_field(
    backend: Backend, loaded: list[LoadedAdapter], scales: dict[str, float] | None = None
) -> list[dict[str, Any]] | None:
    """The request's ``lora`` list: every adapter the server loaded, at the scale the backend's config
    gives it (or ``scales``'s), and at 0 when the backend does not name it. None for a server without
    adapters (the field is then left out).

    Raises:
        AdapterMissing: a configured adapter is not loaded on the server (sending the request without
            it would draft with the bare base model while the record says otherwise).
    """
    if gone := missing(backend, loaded):
        raise AdapterMissing(missing_message(backend, gone, loaded), backend=backend.name, url=backend.url)
    wanted = {r.name: r.scale for r in backend.lora} | (scales or {})
    return complete_field([], loaded, wanted)


def complete_field(
    own: list[dict[str, Any]], loaded: list[LoadedAdapter], by_name: dict[str, float] | None = None
) -> list[dict[str, Any]] | None:
    """``own`` (a request's entries by id) with every other loaded adapter added: at its ``by_name``
    scale, else 0. An empty list would mean "the server's own scales" to llama-server, so a server
    without adapters gets None (no field) and one with adapters always gets each of them listed."""
    if not loaded:
        return own or None
    given = {int(entry["id"]): entry for entry in own if isinstance(entry, dict) and "id" in entry}
    by_name = by_name or {}
    rest = [{"id": a.id, "scale": by_name.get(a.name, 0.0)} for a in loaded if a.id not in given]
    return sorted([*given.values(), *rest], key=lambda entry: int(entry["id"]))


async def adapter_findings(backends: list[Backend], policy: Policy) -> list[tuple[str, str, str]]:
    """For ``doctor``: (level, subject, message) for each backend whose server lacks a configured adapter."""
    from backends.endpoint import Endpoint, async_client

    findings = []
    async with async_client(5.0) as client:
        for backend in backends:
            if not backend.lora:
                continue
            try:
                checked = await Endpoint.for_backend(backend, policy).check_async()
                loaded = await fetch_loaded(client, backend, checked.extensions())
            except (*HTTP_FAILURES, ChambersError, ValueError) as exc:
                findings.append(
                    ("error", f"backend {backend.name}", f"its LoRA adapters could not be listed ({exc})")
                )
                continue
            if gone := missing(backend, loaded):
                findings.append(("error", f"backend {backend.name}", missing_message(backend, gone, loaded)))
    return findings
