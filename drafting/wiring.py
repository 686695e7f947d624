"""What a drafting run is wired to, built once by whoever starts chambers and handed down whole.

The session, the pipeline, each stage's runner and the batch runner all work from one ``Wiring``:
the config, the database file, the audit trail, the attorney's prompt folder, the pipeline's
options, the matter's issued Bates ranges and the capture of an accepted draft. The last two are
other rooms' business (exhibits and corrections sit beside and above this one), so the caller that
builds the wiring plugs them in as plain functions; this room never imports those rooms.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from drafting.options import PipelineOptions
from drafting.runs import Run
from drafting.stages import IssuedRanges
from drafting.verify.sources import ProductionRange
from workspace.audit import AuditLog
from workspace.config import Config


class CapturedPair(Protocol):
    """What a capture function returns: the stored pair and how much the attorney changed."""

    @property
    def pair_id(self) -> int: ...
    @property
    def stored(self) -> bool: ...
    @property
    def redline(self) -> Any: ...  # has edit_ratio


Capture = Callable[[Path, Run, str], CapturedPair]


@dataclass(frozen=True)
class Wiring:
    """Everything a drafting run needs from outside the pipeline (``with_config`` follows a saved config)."""

    config: Config
    database_file: Path
    audit: AuditLog
    prompts: Path | None = None  # the attorney's edited templates; None: the shipped ones
    options: PipelineOptions = field(default_factory=PipelineOptions)
    issued_ranges: IssuedRanges | None = None  # a matter's issued Bates productions, for the verifier
    capture: Capture | None = None  # stores an accepted draft as a correction pair

    def with_config(self, config: Config) -> Wiring:
        return dataclasses.replace(self, config=config)

    def ranges_of(self, matter: str) -> Sequence[ProductionRange]:
        """The matter's issued Bates ranges (none when no reader was plugged in)."""
        return self.issued_ranges(matter) if self.issued_ranges is not None else ()


def prompt_folder(config: Config) -> Path:
    """Where the attorney keeps his edited prompt templates: ``prompts/`` beside his config file."""
    return Path(config.file).parent / "prompts"


def wire(
    config: Config,
    database_file: Path,
    *,
    audit: AuditLog | None = None,
    prompts: Path | None = None,
    options: PipelineOptions | None = None,
    issued_ranges: IssuedRanges | None = None,
    capture: Capture | None = None,
) -> Wiring:
    """The wiring for one database, its own audit trail and the default options unless given."""
    return Wiring(
        config=config,
        database_file=database_file,
        audit=audit if audit is not None else AuditLog(database_file),
        prompts=prompts,
        options=options if options is not None else PipelineOptions(),
        issued_ranges=issued_ranges,
        capture=capture,
    )
