"""Subcommands of ``chambers``, one module per room.

Each module has ``register(subparsers)``, which adds its parsers and sets
``handler`` (a function taking the parsed args and Paths, returning an exit
code) with ``parser.set_defaults(handler=...)``. Heavy imports stay inside the
handlers so ``chambers --help`` is fast.
"""

from __future__ import annotations

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
