"""Subcommands of ``chambers``, one module per room.

Each module has ``register(subparsers)``, which adds its parsers and sets
``handler`` (a function taking the parsed args and Paths, returning an exit
code) with ``parser.set_defaults(handler=...)``. Heavy imports stay inside the
handlers so ``chambers --help`` is fast.

``COMMANDS`` names the module that registers each top-level command, so that ``chambers verify ...``
builds only the verify parser instead of all fifty-odd (a start-up cost paid by every command).
A command missing from it still works, through the full parser; a test keeps it complete.
"""

from __future__ import annotations

from types import ModuleType

from tui.cli import (
    authorities,
    batch,
    core,
    corrections,
    drafting,
    evidence,
    exhibits,
    fleet,
    fleet_experts,
    train,
    verify,
)

MODULES = [
    core,
    fleet,
    evidence,
    exhibits,
    verify,
    drafting,
    batch,
    corrections,
    authorities,
    train,
    fleet_experts,
]

COMMANDS: dict[str, ModuleType] = {
    **dict.fromkeys(["init", "config", "demo", "local-server"], core),
    **dict.fromkeys(["serve", "agree", "doctor", "bench"], fleet),
    **dict.fromkeys(["matter", "evidence"], evidence),
    "exhibits": exhibits,
    "verify": verify,
    **dict.fromkeys(["draft", "runs"], drafting),
    "batch": batch,
    "corrections": corrections,
    "authorities": authorities,
    **dict.fromkeys(["train", "eval", "adapters"], train),
    **dict.fromkeys(["experts", "requant"], fleet_experts),
}
