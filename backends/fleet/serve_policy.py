"""What the local-only policy asks of a launch profile before ``chambers serve`` starts it.

Two ways a served llama-server could reach or be reached from outside the office:

- its ``listen_host``: a public address, or a name that resolves to one, would put the server
  (and the documents in its prompts) on the internet. It is resolved once and judged by the same
  rules as a backend's address (backends.endpoint); ``0.0.0.0`` and ``::`` listen on every
  interface, public ones included, so under local-only they are refused too.
- flags that make llama-server fetch a model itself (from a URL, Hugging Face or a Docker
  registry), or call out for a request (MCP servers, the web UI's fetching proxy, tools): they
  contact addresses nobody checked. They are refused unless the profile sets
  ``allow_remote = true`` with a ``remote_reason``.

The server's inherited environment loses every ``LLAMA_ARG_*`` variable (``serve_environment``):
llama-server reads each flag from one, so a stray ``LLAMA_ARG_HF_REPO`` would fetch a model that
no profile names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from backends.addresses import AddressClass
from backends.errors import PolicyRefusal
from backends.policy import classify_url
from workspace.config import Policy

# llama-server's flags that download a model, a projector or a draft model (or pass a token for it),
# and those that let it call out on a request's behalf: the web UI's MCP proxy (it fetches any URL),
# MCP servers, tools (a shell among them) and a remote runtime for them.
REMOTE_FLAGS = frozenset(
    {
        "-mu",
        "--model-url",
        "-hf",
        "-hfr",
        "--hf-repo",
        "-hff",
        "--hf-file",
        "-hft",
        "--hf-token",
        "-hfd",
        "-hfrd",
        "--hf-repo-draft",
        "--spec-draft-hf",
        "-hfv",
        "-hfrv",
        "--hf-repo-v",
        "-hffv",
        "--hf-file-v",
        "-dr",
        "--docker-repo",
        "-mmu",
        "--mmproj-url",
        "--ui-mcp-proxy",
        "--webui-mcp-proxy",
        "--mcp-servers-config",
        "--mcp-servers-json",
        "--tools",
        "--tools-runtime",
        "-ag",
        "--agent",
    }
)
SERVER_ENV_PREFIX = "LLAMA_ARG_"


def remote_flags(args: Iterable[str]) -> list[str]:
    """The arguments among ``args`` that make llama-server fetch something (``-hf`` and ``-hf=x``)."""
    return [a for a in args if a.split("=", 1)[0] in REMOTE_FLAGS]


def remote_flag_problem(args: Iterable[str], allow_remote: bool, reason: str | None) -> str | None:
    """Why ``extra_args`` may not be used as they are (None: they may)."""
    found = remote_flags(args)
    if not found:
        return None
    if allow_remote and reason and reason.strip():
        return None
    return (
        f"{', '.join(repr(a) for a in found)} makes llama-server download from the internet or call out "
        "on a request's behalf, which the local-only policy does not allow; give the model as a file "
        "(model = ...), or set allow_remote = true and a remote_reason for this profile"
    )


def listen_url(listen_host: str, port: int) -> str:
    host = f"[{listen_host}]" if ":" in listen_host and not listen_host.startswith("[") else listen_host
    return f"http://{host}:{port}"


def check_listen_host(name: str, listen_host: str, port: int, policy: Policy) -> AddressClass:
    """The class of the profile's listen address, resolved once and judged by the policy.

    Raises:
        PolicyRefusal: the address is public (or every interface) under local-only, or the name
            does not resolve.
    """
    try:
        klass, ips = classify_url(listen_url(listen_host, port), policy)
    except (OSError, UnicodeError) as exc:
        raise PolicyRefusal(_refusal(name, listen_host, f"It does not resolve ({exc}).")) from None
    if klass is AddressClass.PUBLIC and policy.local_only:
        where = "" if ips == [listen_host.strip("[]")] else f" ({', '.join(ips)})"
        raise PolicyRefusal(
            _refusal(name, listen_host, f"That address{where} is public and the policy is local-only.")
        )
    return klass


def _refusal(name: str, listen_host: str, why: str) -> str:
    every = listen_host.strip("[]") in ("0.0.0.0", "::")
    what = "every interface of this machine, public ones included" if every else f"'{listen_host}'"
    return (
        f"chambers serve will not start profile '{name}': its listen_host would listen on {what}. {why} "
        "Set listen_host to 127.0.0.1 (this machine only) or to this machine's address on the office "
        "network (a range of your own goes under private_networks in [policy]); nothing was started."
    )


def serve_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a served llama-server inherits: this one without ``LLAMA_ARG_*``."""
    env = dict(os.environ if base is None else base)
    return {k: v for k, v in env.items() if not k.startswith(SERVER_ENV_PREFIX)}
