"""The one place the workstation wires a drafting session: the screen, the demo and ``chambers draft`` share it.

The drafting room cannot reach the rooms beside and above it, so its wiring gets their parts here:
the exhibits room's reader of issued Bates productions (the verifier checks Bates cites against
them) and the corrections room's capture of an accepted draft. The prompt folder is the one beside
the attorney's config, read template by template, so templates written there later are picked up.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from drafting.options import PipelineOptions
from drafting.runs import Run
from drafting.session import DraftingSession
from drafting.stages import IssuedRanges
from drafting.wiring import Wiring, prompt_folder, wire
from workspace.audit import AuditLog
from workspace.config import Config

if TYPE_CHECKING:
    from corrections.capture import CaptureResult


def capture_pair(database_file: Path, run: Run, text: str) -> CaptureResult:
    """The corrections room's capture, imported when the first draft is accepted, not with the screen."""
    from corrections.from_run import capture_from_run

    return capture_from_run(database_file, run, text)


def issued_ranges_on(database_file: Path) -> IssuedRanges:
    """The exhibits room's reader of a matter's issued Bates productions on ``database_file``."""
    from exhibits.registry import issued_productions

    return partial(issued_productions, database_file)


def drafting_wiring(
    config: Config,
    database_file: Path,
    *,
    audit: AuditLog | None = None,
    options: PipelineOptions | None = None,
) -> Wiring:
    """The wiring of every drafting run on ``database_file``, with the other rooms' parts plugged in."""
    return wire(
        config,
        database_file,
        audit=audit,
        prompts=prompt_folder(config),
        options=options,
        issued_ranges=issued_ranges_on(database_file),
        capture=capture_pair,
    )


def drafting_session(
    config: Config,
    database_file: Path,
    *,
    audit: AuditLog | None = None,
    options: PipelineOptions | None = None,
) -> DraftingSession:
    """The headless drafting session the screen and the command line both drive."""
    return DraftingSession(drafting_wiring(config, database_file, audit=audit, options=options))
